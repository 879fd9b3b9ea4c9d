// The bytes an encoder wrote, as a vector that EXPECT_EQ compares and prints byte by byte.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "parquet/byte_buffer.h"

namespace sinkd::parquet {

inline std::vector<uint8_t> Bytes(std::span<const uint8_t> b) { return {b.begin(), b.end()}; }
inline std::vector<uint8_t> Bytes(const ByteBuffer& b) { return Bytes(b.span()); }

}  // namespace sinkd::parquet
