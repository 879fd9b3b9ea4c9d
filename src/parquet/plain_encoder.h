// PLAIN encoding (Encodings.md; parquet-format.md §3.2): the values back to back.
//   BOOLEAN     1 bit per value, least significant bit first, last byte zero-padded;
//   INT32       4 bytes little-endian; INT64 and DOUBLE 8 bytes little-endian;
//   BYTE_ARRAY  4-byte little-endian length, then the bytes.
// Used for data pages, for the dictionary page (the distinct values) and, without the BYTE_ARRAY
// length prefix, for statistics and Bloom filter hashes.
// The encoders gather `values[rows[i]]`: the writer never copies the caller's table.
// Threads: free functions, no state.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include "base/short_copy.h"
#include "parquet/byte_buffer.h"

namespace sinkd::parquet {

// PLAIN numerics are the in-memory bytes only on a little-endian host.
static_assert(std::endian::native == std::endian::little, "sinkd writes Parquet on little-endian");

// Appends values[rows[0]], values[rows[1]], … for a fixed-width type (int32, int64, double).
template <typename T>
void PlainEncodeGather(const T* values, std::span<const uint32_t> rows, ByteBuffer& out) {
  T* dst = reinterpret_cast<T*>(out.Extend(rows.size() * sizeof(T)));
  // memcpy per value rather than a typed store: `dst` need not be aligned for T.
  for (size_t i = 0; i < rows.size(); ++i) std::memcpy(dst + i, &values[rows[i]], sizeof(T));
}

// Appends `n` consecutive values: one memcpy.
template <typename T>
void PlainEncodeRun(const T* values, size_t n, ByteBuffer& out) {
  out.Append(values, n * sizeof(T));
}

// Appends the booleans values[rows[i]] (each byte 0 = false, anything else = true), 8 per byte.
void PlainEncodeBooleans(const uint8_t* values, std::span<const uint32_t> rows, ByteBuffer& out);

// Appends one BYTE_ARRAY value: its length as 4 bytes little-endian, then its bytes.
inline void PlainEncodeByteArray(std::string_view value, ByteBuffer& out) {
  uint8_t* dst = out.Extend(4 + value.size());
  const uint32_t length = static_cast<uint32_t>(value.size());
  std::memcpy(dst, &length, 4);
  CopyShort(dst + 4, value.data(), value.size());
}

}  // namespace sinkd::parquet
