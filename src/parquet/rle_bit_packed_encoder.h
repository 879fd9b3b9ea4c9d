// The RLE / bit-packed hybrid encoding (Encodings.md "RLE"; parquet-format.md §3.3), used here for
// dictionary indices. The output is a sequence of runs, each opened by a ULEB128 header:
//   RLE run         header = count << 1, then the value in ceil(width / 8) little-endian bytes;
//   bit-packed run  header = groups << 1 | 1, then groups × width bytes: 8 values per group,
//                   packed least significant bit first; the last group is zero-padded.
// A run of 8 or more equal values becomes an RLE run; everything else is bit-packed. No length
// prefix is written: dictionary indices in a data page have none (levels would).
// Threads: free functions, no state.
#pragma once

#include <cstdint>
#include <span>

#include "parquet/byte_buffer.h"

namespace sinkd::parquet {

// The bit width that holds every value below `count` (at least 1): ceil(log2(count)).
int BitWidthFor(uint32_t count);

// Appends `values` bit-packed at `width` bits each, LSB first.
// REQUIRES: values.size() % 8 == 0 (callers pad); every value < 2^width; 1 <= width <= 32.
void BitPack(std::span<const uint32_t> values, int width, ByteBuffer& out);

// Appends `values` as RLE / bit-packed hybrid runs at `width` bits each.
// REQUIRES: every value < 2^width; 1 <= width <= 32.
void EncodeRleBitPacked(std::span<const uint32_t> values, int width, ByteBuffer& out);

}  // namespace sinkd::parquet
