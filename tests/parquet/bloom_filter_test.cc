#include "parquet/bloom_filter.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <string>

#include "reader_check.h"

namespace sinkd::parquet {
namespace {

// The format fixes XXH64 seed 0; these are the vectors parquet-format.md quotes.
TEST(BloomFilter, TheHashIsXxh64WithSeedZero) {
  EXPECT_EQ(BloomHash(""), 0xEF46DB3751D8E999ull);
  EXPECT_EQ(BloomHash("a"), 0xD24EC4F1A98C6E5Bull);
}

// Sizing: the doc's example, powers of two, and Arrow's bounds.
TEST(BloomFilter, SizesArePowersOfTwoFromTheFalsePositiveFormula) {
  EXPECT_EQ(SplitBlockBloomFilter::OptimalBytes(24'576, 0.01), 32u << 10);
  EXPECT_EQ(SplitBlockBloomFilter::OptimalBytes(0, 0.01), 32u);
  EXPECT_EQ(SplitBlockBloomFilter::OptimalBytes(1, 0.01), 32u);
  EXPECT_EQ(SplitBlockBloomFilter::OptimalBytes(1'000'000'000, 0.0001), 128u << 20);
  const size_t for_row_group = SplitBlockBloomFilter::OptimalBytes(122'880, 0.01);
  EXPECT_EQ(for_row_group & (for_row_group - 1), 0u);
  EXPECT_GE(for_row_group * 8, 122'880u * 10) << "about 10 bits per value at 1%";
}

// No false negatives ever, and the false-positive rate near the target.
TEST(BloomFilter, EveryInsertedValueIsFoundAndFewOthersAre) {
  const size_t n = 20'000;
  SplitBlockBloomFilter filter(SplitBlockBloomFilter::OptimalBytes(n, 0.01));
  for (size_t i = 0; i < n; ++i) filter.Insert(BloomHash(Numbered("in-", i)));
  for (size_t i = 0; i < n; ++i) {
    ASSERT_TRUE(filter.MightContain(BloomHash(Numbered("in-", i)))) << i;
  }
  size_t false_positives = 0;
  for (size_t i = 0; i < n; ++i) {
    false_positives += filter.MightContain(BloomHash(Numbered("out-", i)));
  }
  EXPECT_LT(false_positives, n * 2 / 100) << "target 1%, allowing for rounding luck";
}

// One insert sets exactly one bit in each of the 8 words of one block, as the spec's salts say.
TEST(BloomFilter, AnInsertSetsOneBitPerWordInOneBlock) {
  SplitBlockBloomFilter filter(64);
  // High half 0x80000000 picks block (0x80000000 × 2 blocks) >> 32 = 1; the low half is x.
  const uint64_t hash = 0x80000000ull << 32 | 0x12345678u;
  filter.Insert(hash);
  const std::span<const uint8_t> bytes = filter.bytes();
  size_t bits_in_block[2] = {0, 0};
  for (size_t byte = 0; byte < 64; ++byte) bits_in_block[byte / 32] += std::popcount(bytes[byte]);
  EXPECT_EQ(bits_in_block[0], 0u);
  EXPECT_EQ(bits_in_block[1], 8u);
  const uint32_t x = 0x12345678u;
  uint32_t word0;
  std::memcpy(&word0, bytes.data() + 32, 4);
  EXPECT_EQ(word0, 1u << ((x * 0x47b6137bu) >> 27)) << "word 0 uses the first salt";
}

}  // namespace
}  // namespace sinkd::parquet
