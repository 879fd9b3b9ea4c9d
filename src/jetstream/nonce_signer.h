// NonceSigner answers a NATS server's authentication challenge (sign its nonce with the user's
// nkey seed, and hand over the user JWT of a .creds file) in place of libnats's own handlers.
//
// Why not libnats's own: libnats 3.4.1 (Debian 12) base64-encodes the signature with an encoder
// that takes a first byte of zero for an empty input, so one signature in 256 is sent as none and
// the server refuses the connection as an authorization violation (fixed upstream in 3.10.0,
// nats.c #705). An ed25519 signature is fixed by the key and the nonce, so the only way past it is
// a new nonce, which a new connection brings. Sign() therefore refuses a signature that begins
// with zero, failing that connection attempt here instead of at the server, and remembers it:
// Connection::Connect opens another connection, and libnats's reconnect loop simply tries again.
//
// Like libnats, it reads its files on every connection, so a rotated seed or .creds file is used
// from the next reconnect on.
// Ownership: must outlive every connection whose options point at it (a Connection owns one).
// Threads: Sign() and Jwt() run on libnats's connect or reconnect thread; TakeUnsendable() may
// be called from any thread.
#pragma once

#include <nats/nats.h>

#include <atomic>
#include <string>
#include <utility>

namespace sinkd::jetstream {

class NonceSigner {
 public:
  // `seed_file` holds the seed (an nkey seed file, or the .creds file itself); `creds_file` is
  // empty for a plain nkey user.
  NonceSigner(std::string seed_file, std::string creds_file)
      : seed_file_(std::move(seed_file)), creds_file_(std::move(creds_file)) {}

  // natsSignatureHandler: the signature of `nonce`, or NATS_ERR with `*error` saying why.
  static natsStatus Sign(char** error, unsigned char** signature, int* length, const char* nonce,
                         void* self);
  // natsUserJWTHandler: the .creds file's user JWT.
  static natsStatus Jwt(char** jwt, char** error, void* self);

  // Whether a signature was refused for beginning with zero since the last call.
  bool TakeUnsendable() { return unsendable_.exchange(false); }

 private:
  const std::string seed_file_;
  const std::string creds_file_;
  std::atomic<bool> unsendable_{false};
};

}  // namespace sinkd::jetstream
