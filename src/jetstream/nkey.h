// NATS nkeys: an ed25519 key written as base32 text with a type prefix and a CRC-16. A user's
// seed ("SU…") is what an operator hands sinkd; the server wants the public key ("U…") next to
// the signature of its nonce (NonceSigner makes that, with SignWithNkeySeed), so the public key is
// derived here instead of being one more setting to keep in step with the seed.
// Errors: a malformed seed is a Refuse that never quotes it (it is a secret).
// Threads: pure functions.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"

namespace sinkd::jetstream {

// The type prefixes of the nkeys sinkd and its tests use.
inline constexpr uint8_t kNkeyOperator = 14 << 3;  // 'O'
inline constexpr uint8_t kNkeyAccount = 0;          // 'A'
inline constexpr uint8_t kNkeyUser = 20 << 3;       // 'U'

using Ed25519Raw = std::array<uint8_t, 32>;
using Ed25519Signature = std::array<uint8_t, 64>;

// "U…"/"A…"/"O…" for a raw public key, "S…" for a raw seed of that type.
std::string EncodeNkeyPublic(uint8_t type, const Ed25519Raw& key);
std::string EncodeNkeySeed(uint8_t type, const Ed25519Raw& seed);

struct DecodedSeed {
  uint8_t type = 0;
  Ed25519Raw seed{};
};
Result<DecodedSeed> DecodeNkeySeed(std::string_view text);

// The public key ("U…" for a user seed) of an encoded seed.
Result<std::string> NkeyPublicFromSeed(std::string_view seed);
// The first line of a seed file (or a .creds file) that holds a seed.
Result<std::string> ReadNkeySeedFile(const std::string& path);
// The user JWT of a .creds file: the first line of text inside its first "-----BEGIN … JWT-----"
// block, as nsc writes it.
Result<std::string> ReadCredsJwt(const std::string& path);

// The ed25519 signature of `message` by the key of an encoded seed.
Result<Ed25519Signature> SignWithNkeySeed(std::string_view seed, std::string_view message);

}  // namespace sinkd::jetstream
