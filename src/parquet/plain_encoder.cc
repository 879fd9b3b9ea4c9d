#include "parquet/plain_encoder.h"

namespace sinkd::parquet {

void PlainEncodeBooleans(const uint8_t* values, std::span<const uint32_t> rows, ByteBuffer& out) {
  const size_t n = rows.size();
  uint8_t* dst = out.Extend((n + 7) / 8);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint8_t byte = 0;
    for (int bit = 0; bit < 8; ++bit) {
      byte |= static_cast<uint8_t>((values[rows[i + bit]] != 0) << bit);
    }
    *dst++ = byte;
  }
  if (i < n) {
    uint8_t byte = 0;
    for (int bit = 0; i < n; ++i, ++bit) byte |= static_cast<uint8_t>((values[rows[i]] != 0) << bit);
    *dst = byte;
  }
}

}  // namespace sinkd::parquet
