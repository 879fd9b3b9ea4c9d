#include "parquet/plain_encoder.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "bytes.h"

namespace sinkd::parquet {
namespace {

// The spec's example: bits are packed least significant first; MSB-first would flip every bool.
TEST(PlainEncoder, BooleansPackLeastSignificantBitFirstAsInTheSpecExample) {
  const std::vector<uint8_t> values = {1, 0, 1, 1, 0, 0, 0, 1, 1, 1};
  std::vector<uint32_t> rows(values.size());
  for (uint32_t i = 0; i < rows.size(); ++i) rows[i] = i;
  ByteBuffer out;
  PlainEncodeBooleans(values.data(), rows, out);
  EXPECT_EQ(Bytes(out), (std::vector<uint8_t>{0x8D, 0x03}));
}

// Any non-zero byte is true, and the row order given is the order written (a gather).
TEST(PlainEncoder, BooleansAreGatheredInRowOrderAndAnyNonZeroIsTrue) {
  const std::vector<uint8_t> values = {0, 7, 0};
  const std::vector<uint32_t> rows = {1, 0, 1, 2, 1, 1, 1, 1, 1};
  ByteBuffer out;
  PlainEncodeBooleans(values.data(), rows, out);
  EXPECT_EQ(Bytes(out), (std::vector<uint8_t>{0b11110101, 0x01}));
}

// Numerics are little-endian fixed width; a gather must follow the row list, not the array.
TEST(PlainEncoder, FixedWidthValuesAreLittleEndianInRowOrder) {
  const std::vector<int32_t> values = {1, -2, 0x01020304};
  const std::vector<uint32_t> rows = {2, 0, 1};
  ByteBuffer out;
  PlainEncodeGather(values.data(), rows, out);
  EXPECT_EQ(Bytes(out), (std::vector<uint8_t>{0x04, 0x03, 0x02, 0x01, 0x01, 0x00, 0x00, 0x00,
                                              0xFE, 0xFF, 0xFF, 0xFF}));
  out.Clear();
  const std::vector<double> doubles = {1.0};
  PlainEncodeRun(doubles.data(), doubles.size(), out);
  EXPECT_EQ(Bytes(out), (std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 0xF0, 0x3F}));
}

// A BYTE_ARRAY is a 4-byte length then the bytes; an empty string is a zero length, not nothing.
TEST(PlainEncoder, ByteArraysCarryAFourByteLengthPrefix) {
  ByteBuffer out;
  PlainEncodeByteArray("ab", out);
  PlainEncodeByteArray("", out);
  EXPECT_EQ(Bytes(out), (std::vector<uint8_t>{2, 0, 0, 0, 'a', 'b', 0, 0, 0, 0}));
}

}  // namespace
}  // namespace sinkd::parquet
