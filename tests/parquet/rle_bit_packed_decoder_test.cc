// The RLE / bit-packed hybrid decoder against the writer's encoder at every bit width, and on
// input no encoder writes: truncated runs, values wider than the width, width 0.
#include "parquet/rle_bit_packed_decoder.h"

#include <gtest/gtest.h>

#include <random>

#include "parquet/rle_bit_packed_encoder.h"

namespace sinkd::parquet {
namespace {

TEST(RleBitPackedDecoder, DecodesWhatTheEncoderWroteAtEveryWidthInAnyBatchSizes) {
  std::mt19937 rng(5);
  for (int width = 1; width <= 32; ++width) {
    const uint64_t limit = width == 32 ? 0xFFFFFFFFull : (1ull << width) - 1;
    std::vector<uint32_t> values;
    for (int i = 0; i < 5000; ++i) {
      // Runs (RLE) and noise (bit-packed) mixed.
      const uint32_t v = static_cast<uint32_t>(rng() & limit);
      const int repeat = rng() % 4 == 0 ? 1 + static_cast<int>(rng() % 40) : 1;
      for (int k = 0; k < repeat; ++k) values.push_back(v);
    }
    ByteBuffer encoded;
    EncodeRleBitPacked(values, width, encoded);
    RleBitPackedDecoder decoder(encoded.data(), encoded.size(), width);
    std::vector<uint32_t> decoded(values.size());
    for (size_t at = 0; at < values.size();) {
      const size_t n = std::min<size_t>(values.size() - at, 1 + rng() % 700);
      ASSERT_EQ(decoder.Decode(decoded.data() + at, n), nullptr) << "width " << width;
      at += n;
    }
    ASSERT_EQ(decoded, values) << "width " << width;
  }
}

TEST(RleBitPackedDecoder, RefusesRunsPastItsBytesAndValuesWiderThanTheWidth) {
  std::vector<uint32_t> values(100);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<uint32_t>(i % 7);
  ByteBuffer encoded;
  EncodeRleBitPacked(values, 3, encoded);
  for (size_t cut = 0; cut + 1 < encoded.size(); ++cut) {
    RleBitPackedDecoder decoder(encoded.data(), cut, 3);
    std::vector<uint32_t> out(values.size());
    EXPECT_NE(decoder.Decode(out.data(), out.size()), nullptr) << "cut at " << cut;
  }
  const uint8_t too_wide[] = {0x08, 0x05};  // RLE run of 4 × 5 at width 2
  RleBitPackedDecoder wide(too_wide, sizeof too_wide, 2);
  uint32_t out[4];
  EXPECT_STREQ(wide.Decode(out, 4), "a run value is wider than the bit width");
  const uint8_t endless[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
  RleBitPackedDecoder header(endless, sizeof endless, 1);
  EXPECT_NE(header.Decode(out, 1), nullptr);
}

TEST(RleBitPackedDecoder, ReadsABitPackedRunWithoutItsPaddingAndWidthZero) {
  // One group of 8 values at width 8 announced, only 3 bytes present: the 3 values are readable.
  const uint8_t short_run[] = {0x03, 7, 8, 9};
  RleBitPackedDecoder decoder(short_run, sizeof short_run, 8);
  uint32_t out[4] = {};
  EXPECT_EQ(decoder.Decode(out, 3), nullptr);
  EXPECT_EQ(out[0], 7u);
  EXPECT_EQ(out[2], 9u);
  EXPECT_NE(decoder.Decode(out + 3, 1), nullptr);
  const uint8_t zeros[] = {0x0A};  // RLE run of 5 at width 0: no value bytes
  RleBitPackedDecoder zero(zeros, sizeof zeros, 0);
  EXPECT_EQ(zero.Decode(out, 4), nullptr);
  EXPECT_EQ(out[3], 0u);
}

}  // namespace
}  // namespace sinkd::parquet
