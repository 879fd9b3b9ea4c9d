// Avro's deflate codec: raw RFC 1951 deflate (no zlib header, no checksum), through libdeflate,
// which compresses a manifest about twice as fast as zlib at the same level and inflates it
// several times faster (a compaction's replace rewrites and rereads manifests of megabytes).
// Internal to src/avro. Threads: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"

namespace sinkd::avro {

// `level` is 1 (fastest) … 12 (smallest), zlib's scale up to 9. Internal only on a library failure.
Result<std::string> Deflate(std::string_view data, int level);

// Returns Reject when `data` does not start with one complete raw deflate stream (bytes after its
// end are ignored, as other readers ignore them) or would inflate past
// `max_bytes` (a bound on hostile input: a few bytes can claim gigabytes).
Result<std::string> Inflate(std::string_view data, uint64_t max_bytes);

}  // namespace sinkd::avro
