// Byte sizes as an operator writes them, on the command line and in the configuration file:
// plain bytes ("268435456") or a number with a binary unit ("256MiB", "1GiB", "1.5GiB", "64 KiB",
// "512B"). The one parser of every size flag and size key. Pure functions.
// Decimal units (kB, MB, GB, TB) and bare letters (K, M, G) are refused, not guessed: "1GB" read
// as 10^9 where 2^30 was meant is a limit 7% off that nobody would notice.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"

namespace sinkd {

// Parses a non-negative size: digits, an optional fraction, optional spaces, then an optional
// unit B, KiB, MiB, GiB or TiB (any letter case). The result must be a whole number of bytes
// that fits in 64 bits. Errors (Refuse) quote the text and list the units.
Result<uint64_t> ParseSize(std::string_view text);

// The shortest spelling ParseSize reads back to `bytes`: "512MiB", "1GiB", "1536KiB", and plain
// digits when no unit divides it ("1000", "0").
std::string FormatSize(uint64_t bytes);

}  // namespace sinkd
