#include "parquet/rle_bit_packed_encoder.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "bytes.h"

namespace sinkd::parquet {
namespace {

// An independent decoder of the hybrid format, written from the spec, to round-trip sequences.
std::vector<uint32_t> Decode(const std::vector<uint8_t>& in, int width, size_t count) {
  std::vector<uint32_t> out;
  size_t at = 0;
  while (out.size() < count && at < in.size()) {
    uint64_t header = 0;
    for (int shift = 0;; shift += 7) {
      header |= static_cast<uint64_t>(in[at] & 0x7F) << shift;
      if (!(in[at++] & 0x80)) break;
    }
    if (header & 1) {
      const size_t values = (header >> 1) * 8;
      for (size_t v = 0; v < values; ++v) {
        uint64_t value = 0;
        for (int bit = 0; bit < width; ++bit) {
          const size_t pos = v * width + bit;
          value |= static_cast<uint64_t>((in[at + pos / 8] >> (pos % 8)) & 1) << bit;
        }
        out.push_back(static_cast<uint32_t>(value));
      }
      at += (header >> 1) * width;
    } else {
      uint32_t value = 0;
      for (int byte = 0; byte < (width + 7) / 8; ++byte) value |= in[at++] << (8 * byte);
      out.insert(out.end(), header >> 1, value);
    }
  }
  out.resize(std::min(out.size(), count));
  return out;
}

// The spec's RLE example: 1000 ones at width 1 are one run, header 2000 as a varint.
TEST(RleBitPacked, AThousandOnesAtWidthOneAreTheSpecsThreeBytes) {
  const std::vector<uint32_t> ones(1000, 1);
  ByteBuffer out;
  EncodeRleBitPacked(ones, 1, out);
  EXPECT_EQ(Bytes(out), (std::vector<uint8_t>{0xD0, 0x0F, 0x01}));
}

// The spec's bit-packing vector; a wrong bit order inside bytes breaks every dictionary page.
TEST(RleBitPacked, ZeroToSevenAtWidthThreePackAsTheSpecSays) {
  const std::vector<uint32_t> values = {0, 1, 2, 3, 4, 5, 6, 7};
  ByteBuffer packed;
  BitPack(values, 3, packed);
  EXPECT_EQ(Bytes(packed), (std::vector<uint8_t>{0x88, 0xC6, 0xFA}));
  ByteBuffer hybrid;
  EncodeRleBitPacked(values, 3, hybrid);
  EXPECT_EQ(Bytes(hybrid), (std::vector<uint8_t>{0x03, 0x88, 0xC6, 0xFA}))
      << "one bit-packed group: header (1 << 1) | 1";
}

// An RLE value takes ceil(width / 8) bytes: a 9-bit width needs two.
TEST(RleBitPacked, AnRleValueWiderThanEightBitsTakesTwoBytes) {
  const std::vector<uint32_t> values(8, 300);
  ByteBuffer out;
  EncodeRleBitPacked(values, 9, out);
  EXPECT_EQ(Bytes(out), (std::vector<uint8_t>{0x10, 0x2C, 0x01}));
}

// A short tail is padded to a whole group; readers stop at the page's value count.
TEST(RleBitPacked, AShortTailIsPaddedToAGroupOfEight) {
  const std::vector<uint32_t> values = {1, 0, 1};
  ByteBuffer out;
  EncodeRleBitPacked(values, 1, out);
  EXPECT_EQ(Bytes(out), (std::vector<uint8_t>{0x03, 0x05}));
}

// Literals before a repeat borrow from it to finish their group, and the rest becomes a run:
// without the borrowing a bit-packed run would end mid-group and misalign every later value.
TEST(RleBitPacked, LiteralsBorrowFromARepeatToCompleteTheirGroup) {
  std::vector<uint32_t> values = {5, 6, 7};
  values.insert(values.end(), 20, 2);
  ByteBuffer out;
  EncodeRleBitPacked(values, 3, out);
  // Group of 8: 5 6 7 2 2 2 2 2 packed; then 15 × 2 as a run.
  const std::vector<uint8_t> bytes = Bytes(out);
  ASSERT_GE(bytes.size(), 6u);
  EXPECT_EQ(bytes[0], 0x03) << "one bit-packed group first";
  EXPECT_EQ(bytes[4], 15 << 1) << "then an RLE run of the remaining 15";
  EXPECT_EQ(Decode(bytes, 3, values.size()), values);
}

// A width one too small drops the top index; width 0 for one entry is legal but less tested.
TEST(RleBitPacked, BitWidthIsTheCeilingOfLog2WithAMinimumOfOne) {
  EXPECT_EQ(BitWidthFor(1), 1);
  EXPECT_EQ(BitWidthFor(2), 1);
  EXPECT_EQ(BitWidthFor(3), 2);
  EXPECT_EQ(BitWidthFor(256), 8);
  EXPECT_EQ(BitWidthFor(257), 9);
  EXPECT_EQ(BitWidthFor(UINT32_MAX), 32);
}

// Random mixes of runs and noise at every width round-trip through an independent decoder: the
// 64-bit accumulator and the run/literal switching have no edge left untested.
TEST(RleBitPacked, RandomRunsAndNoiseRoundTripAtEveryWidth) {
  std::mt19937 rng(7);
  for (int width = 1; width <= 32; ++width) {
    const uint64_t limit = width == 32 ? UINT32_MAX : (1ull << width) - 1;
    std::vector<uint32_t> values;
    while (values.size() < 3000) {
      const uint32_t v = static_cast<uint32_t>(rng() % (limit + 1));
      values.insert(values.end(), rng() % 3 == 0 ? rng() % 40 : 1, v);
    }
    ByteBuffer out;
    EncodeRleBitPacked(values, width, out);
    EXPECT_EQ(Decode(Bytes(out), width, values.size()), values) << "width " << width;
  }
}

}  // namespace
}  // namespace sinkd::parquet
