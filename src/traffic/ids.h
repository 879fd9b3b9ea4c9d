// Identifier shapes of generated traffic: hex, UUIDv7 and base62, drawn from an Rng so that they
// are deterministic per seed. Internal to src/traffic and its tests. Pure functions.
#pragma once

#include <cstdint>
#include <string>

#include "traffic/random.h"

namespace sinkd::traffic {

// Appends the low `digits` hex digits of `bits`, most significant first, in lower case.
// REQUIRES: 1 <= digits <= 16.
void AppendHex(std::string& out, uint64_t bits, int digits);

// Appends a UUIDv7 (RFC 9562) in its 8-4-4-4-12 form: 48 bits of unix milliseconds, version 7,
// variant 10, and 74 random bits. Time-ordered like garmd's ids, and unique without coordination
// (two ids of one millisecond collide with probability 2^-74).
void AppendUuidV7(std::string& out, int64_t unix_ms, Rng& rng);

// Appends `length` random characters of [0-9A-Za-z], as providers' request ids use.
void AppendBase62(std::string& out, int length, Rng& rng);

}  // namespace sinkd::traffic
