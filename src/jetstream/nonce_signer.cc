#include "jetstream/nonce_signer.h"

#include <openssl/crypto.h>

#include <cstdlib>
#include <cstring>

#include "jetstream/nkey.h"

namespace sinkd::jetstream {

namespace {

// libnats frees what a handler hands it with free().
char* MallocCopy(const std::string& text) { return strdup(text.c_str()); }

natsStatus Fail(char** error, const std::string& why) {
  *error = MallocCopy(why);
  return NATS_ERR;
}

}  // namespace

natsStatus NonceSigner::Sign(char** error, unsigned char** signature, int* length,
                             const char* nonce, void* self) {
  auto* signer = static_cast<NonceSigner*>(self);
  auto seed = ReadNkeySeedFile(signer->seed_file_);
  if (!seed.ok()) return Fail(error, seed.status().message());
  auto sig = SignWithNkeySeed(*seed, nonce);
  OPENSSL_cleanse(seed->data(), seed->size());
  if (!sig.ok()) return Fail(error, sig.status().message() + " in " + signer->seed_file_);
  if ((*sig)[0] == 0) {
    signer->unsendable_.store(true);
    return Fail(error,
                "the signature of the server's nonce begins with a zero byte, which libnats "
                "3.4.1 would send as no signature; a new connection brings a new nonce");
  }
  *signature = static_cast<unsigned char*>(std::malloc(sig->size()));
  if (*signature == nullptr) return Fail(error, "out of memory");
  std::memcpy(*signature, sig->data(), sig->size());
  *length = static_cast<int>(sig->size());
  return NATS_OK;
}

natsStatus NonceSigner::Jwt(char** jwt, char** error, void* self) {
  auto* signer = static_cast<NonceSigner*>(self);
  auto read = ReadCredsJwt(signer->creds_file_);
  if (!read.ok()) return Fail(error, read.status().message());
  *jwt = MallocCopy(*read);
  return *jwt != nullptr ? NATS_OK : Fail(error, "out of memory");
}

}  // namespace sinkd::jetstream
