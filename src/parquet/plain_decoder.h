// PLAIN values (parquet-format.md §3.1) appended to a ColumnValues: fixed-width little-endian
// numbers, booleans bit-packed LSB first, BYTE_ARRAY as a 4-byte length then the bytes.
// Used for data pages and dictionary pages. Bounded: never reads past `size`.
// Threads: free functions.
#pragma once

#include <cstddef>
#include <cstdint>

#include "parquet/part_reader.h"

namespace sinkd::parquet {

// Appends `n` values of out.physical decoded from data[0..size) to `out` (strings: at most
// `max_bytes` in out.bytes); sets *used to the bytes they took. Returns nullptr, or why the bytes
// cannot hold them (out is then partly appended).
const char* DecodePlain(const uint8_t* data, size_t size, size_t n, size_t max_bytes,
                        ColumnValues& out, size_t* used);

}  // namespace sinkd::parquet
