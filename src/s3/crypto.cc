#include "s3/crypto.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <cstdlib>

namespace sinkd::s3 {

namespace {

std::string Digest(const EVP_MD* md, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(data.data(), data.size(), out, &size, md, nullptr) != 1) std::abort();
  return std::string(reinterpret_cast<const char*>(out), size);
}

}  // namespace

std::string Md5(std::string_view data) { return Digest(EVP_md5(), data); }

std::string HmacSha256(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
           reinterpret_cast<const unsigned char*>(data.data()), data.size(), out,
           &size) == nullptr) {
    std::abort();
  }
  return std::string(reinterpret_cast<const char*>(out), size);
}

struct Md5Stream::Context {
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  ~Context() { EVP_MD_CTX_free(ctx); }
};

Md5Stream::Md5Stream() : context_(std::make_unique<Context>()) {
  if (context_->ctx == nullptr || EVP_DigestInit_ex(context_->ctx, EVP_md5(), nullptr) != 1) {
    std::abort();
  }
}

Md5Stream::~Md5Stream() = default;

void Md5Stream::Update(std::string_view data) {
  if (EVP_DigestUpdate(context_->ctx, data.data(), data.size()) != 1) std::abort();
}

std::string Md5Stream::Finish() {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_DigestFinal_ex(context_->ctx, out, &size) != 1) std::abort();
  return std::string(reinterpret_cast<const char*>(out), size);
}

}  // namespace sinkd::s3
