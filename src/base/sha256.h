// SHA-256 (FIPS 180-4), sinkd's one implementation of it: OpenSSL's. The outbox hashes sink ids
// that are not lease-safe into lease keys; the S3 signer hashes bodies and canonical requests.
// Never fails: OpenSSL's one-shot digest cannot fail for SHA-256 short of memory exhaustion,
// which terminates (as every allocation in sinkd may).
// Threads: pure functions, safe for concurrent use.
#pragma once

#include <string>
#include <string_view>

namespace sinkd {

std::string Sha256(std::string_view data);     // 32 raw bytes
std::string Sha256Hex(std::string_view data);  // 64 lowercase hex digits
std::string HexEncode(std::string_view bytes);  // two lowercase hex digits per byte

}  // namespace sinkd
