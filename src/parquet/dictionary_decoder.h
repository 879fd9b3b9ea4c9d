// Dictionary-encoded values (RLE_DICTIONARY, and PLAIN_DICTIONARY as DuckDB writes in V1 pages):
// a data page holds one byte of bit width, then RLE / bit-packed indices into the chunk's
// dictionary page (decoded PLAIN into a ColumnValues). Every index is checked against the
// dictionary's size before it is used.
// Threads: free functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "parquet/part_reader.h"

namespace sinkd::parquet {

// Decodes `n` indices from data[0..size) into `indices` (resized to n).
// Returns nullptr, or why the bytes cannot hold them.
const char* DecodeDictionaryIndices(const uint8_t* data, size_t size, size_t n,
                                    std::vector<uint32_t>& indices);

// Appends dictionary[indices[i]] for i in [0, n) to `out`. Returns nullptr, or why not (an
// index out of range, strings past `max_bytes` in total).
const char* GatherDictionary(const ColumnValues& dictionary, const uint32_t* indices, size_t n,
                             size_t max_bytes, ColumnValues& out);

}  // namespace sinkd::parquet
