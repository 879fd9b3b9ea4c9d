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

// One run of the output: RLE of `count` values, or bit-packed `count` values (groups × 8).
struct Run {
  bool rle;
  size_t count;
  bool operator==(const Run&) const = default;
};

// The runs of an encoding, read from their headers.
std::vector<Run> Runs(const std::vector<uint8_t>& in, int width) {
  std::vector<Run> runs;
  size_t at = 0;
  while (at < in.size()) {
    uint64_t header = 0;
    for (int shift = 0;; shift += 7) {
      header |= static_cast<uint64_t>(in[at] & 0x7F) << shift;
      if (!(in[at++] & 0x80)) break;
    }
    const bool rle = (header & 1) == 0;
    runs.push_back({rle, rle ? header >> 1 : (header >> 1) * 8});
    at += rle ? (width + 7) / 8 : (header >> 1) * width;
  }
  return runs;
}

// The runs the encoder is to choose, found value by value: every maximal repeat of 8 or more is
// an RLE run, less the values it lends the literals before it to fill their last group of 8
// (none if that leaves fewer than 8); everything else is bit-packed, padded to a group of 8.
std::vector<Run> ExpectedRuns(const std::vector<uint32_t>& values) {
  std::vector<Run> runs;
  size_t literal_start = 0, i = 0;
  const auto literals = [&](size_t end) {
    if (end > literal_start) runs.push_back({false, (end - literal_start + 7) / 8 * 8});
  };
  while (i < values.size()) {
    size_t end = i + 1;
    while (end < values.size() && values[end] == values[i]) ++end;
    const size_t lend = (8 - (i - literal_start) % 8) % 8;
    if (end - i >= 8 && end - i - lend >= 8) {
      literals(i + lend);
      runs.push_back({true, end - i - lend});
      literal_start = end;
    }
    i = end;
  }
  literals(values.size());
  return runs;
}

// The encoder looks for repeats 58 starting places at a time: a repeat of 8 or more must become
// an RLE run wherever it starts and ends against those windows, and a shorter one never.
TEST(RleBitPacked, RepeatsBecomeRleRunsWhereverTheyStartAndNeverWhenShorterThanEight) {
  for (size_t length : {size_t{7}, size_t{8}, size_t{9}, size_t{15}, size_t{64}, size_t{70}}) {
    for (size_t offset = 0; offset < 140; ++offset) {
      std::vector<uint32_t> values;
      for (size_t i = 0; i < offset; ++i) values.push_back(static_cast<uint32_t>(i % 3));
      values.insert(values.end(), length, 7);
      for (size_t i = 0; i < 70; ++i) values.push_back(static_cast<uint32_t>(i % 3));
      ByteBuffer out;
      EncodeRleBitPacked(values, 3, out);
      const std::vector<uint8_t> bytes = Bytes(out);
      EXPECT_EQ(Runs(bytes, 3), ExpectedRuns(values)) << "length " << length << " at " << offset;
      EXPECT_EQ(Decode(bytes, 3, values.size()), values) << "length " << length << " at " << offset;
    }
  }
  std::mt19937 rng(11);
  for (int round = 0; round < 300; ++round) {  // runs of 1-12 (many just 8) and a few long ones
    std::vector<uint32_t> values;
    const size_t size = rng() % 600;
    while (values.size() < size) {
      const size_t run = rng() % 10 == 0 ? 8 + rng() % 100 : 1 + rng() % 12;
      values.insert(values.end(), run, static_cast<uint32_t>(rng() % 4));
    }
    ByteBuffer out;
    EncodeRleBitPacked(values, 2, out);
    EXPECT_EQ(Runs(Bytes(out), 2), ExpectedRuns(values)) << "round " << round;
    EXPECT_EQ(Decode(Bytes(out), 2, values.size()), values) << "round " << round;
  }
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
