#include "parquet/dictionary_encoder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "bytes.h"

namespace sinkd::parquet {
namespace {

std::string Key(uint32_t i) {
  std::string key = "v";
  key += std::to_string(i);
  return key;
}

// Indices follow first appearance and the page payload is the PLAIN entries in index order:
// any other order would map every row to the wrong value.
TEST(StringDictionary, IndicesFollowFirstAppearanceAndThePagePayloadIsPlain) {
  StringDictionary d;
  d.Reset(100, 1 << 20);
  EXPECT_EQ(d.Insert("b"), 0u);
  EXPECT_EQ(d.Insert("a"), 1u);
  EXPECT_EQ(d.Insert("b"), 0u);
  EXPECT_EQ(d.Insert(""), 2u);
  EXPECT_EQ(d.Insert(""), 2u);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d.entry(1), "a");
  EXPECT_EQ(d.entry(2), "");
  EXPECT_EQ(Bytes(d.plain()),
            (std::vector<uint8_t>{1, 0, 0, 0, 'b', 1, 0, 0, 0, 'a', 0, 0, 0, 0}));
}

// The limits are what make a chunk fall back to PLAIN; a value already present always fits.
TEST(StringDictionary, ANewValuePastEitherLimitIsRefusedButKnownValuesStillResolve) {
  StringDictionary d;
  d.Reset(2, 1 << 20);
  ASSERT_EQ(d.Insert("x"), 0u);
  ASSERT_EQ(d.Insert("y"), 1u);
  EXPECT_EQ(d.Insert("z"), kDictionaryFull) << "a third entry past max_entries = 2";
  EXPECT_EQ(d.Insert("x"), 0u);
  d.Reset(100, 10);  // 4 + 5 bytes fit, another 4 + 1 do not
  ASSERT_EQ(d.Insert("hello"), 0u);
  EXPECT_EQ(d.Insert("!"), kDictionaryFull) << "9 + 5 bytes past max_bytes = 10";
  EXPECT_EQ(d.size(), 1u) << "a refused value must not be half-inserted";
}

// Growth rehashes from stored hashes; a bug there loses or duplicates entries only at scale.
TEST(StringDictionary, ManyEntriesSurviveGrowthAndReuseAfterReset) {
  StringDictionary d;
  for (int round = 0; round < 2; ++round) {
    d.Reset(1 << 20, 64 << 20);
    for (uint32_t i = 0; i < 50000; ++i) ASSERT_EQ(d.Insert(Key(i)), i);
    for (uint32_t i = 0; i < 50000; i += 7) ASSERT_EQ(d.Insert(Key(i)), i);
    EXPECT_EQ(d.size(), 50000u);
    EXPECT_EQ(d.entry(49999), "v49999");
  }
}

// Doubles are keyed by bits: -0.0 and 0.0 (equal under ==) must stay distinct values.
TEST(FixedDictionary, NegativeZeroAndZeroAreDistinctEntries) {
  FixedDictionary<double> d;
  d.Reset(10);
  EXPECT_EQ(d.Insert(0.0), 0u);
  EXPECT_EQ(d.Insert(-0.0), 1u);
  EXPECT_EQ(d.Insert(0.0), 0u);
  ASSERT_EQ(d.size(), 2u);
  EXPECT_TRUE(std::signbit(d.entries()[1]));
}

// Sequential keys (ids, timestamps) are where a weak hash clusters; growth must keep them all.
TEST(FixedDictionary, SequentialKeysSurviveGrowthAndTheLimitIsEnforced) {
  FixedDictionary<int64_t> d;
  d.Reset(100000);
  for (int64_t i = 0; i < 100000; ++i) ASSERT_EQ(d.Insert(i * 1000), static_cast<uint32_t>(i));
  EXPECT_EQ(d.Insert(-1), kDictionaryFull);
  EXPECT_EQ(d.Insert(99999 * 1000), 99999u);
  d.Reset(3);
  EXPECT_EQ(d.size(), 0u) << "Reset empties the dictionary";
  EXPECT_EQ(d.Insert(5), 0u);
}

// A data page's values: the bit width byte, then hybrid runs with no length prefix.
TEST(DictionaryIndices, APageStartsWithItsBitWidthAndHasNoLengthPrefix) {
  const std::vector<uint32_t> indices(1000, 1);
  ByteBuffer out;
  EncodeDictionaryIndices(indices, 2, out);
  EXPECT_EQ(Bytes(out.span()), (std::vector<uint8_t>{0x01, 0xD0, 0x0F, 0x01}));
  out.Clear();
  EncodeDictionaryIndices(std::vector<uint32_t>(8, 0), 1, out);
  EXPECT_EQ(out.data()[0], 1) << "a one-entry dictionary still uses width 1";
}

// Widths 3 and 5-7 are rounded to a nibble or a byte (zstd finds the repeats), others are exact;
// a width below the exact one would drop the top bit of the largest index.
TEST(DictionaryIndices, SmallWidthsRoundUpToANibbleOrAByteAndOthersStayExact) {
  const std::vector<std::pair<uint32_t, int>> expected = {
      {1, 1}, {2, 1}, {3, 2}, {4, 2}, {5, 4}, {8, 4}, {9, 4}, {16, 4}, {17, 8},
      {128, 8}, {256, 8}, {257, 9}, {1 << 14, 14}, {(1 << 14) + 1, 15}};
  for (const auto& [entries, width] : expected) {
    EXPECT_EQ(DictionaryIndexWidth(entries), width) << entries << " entries";
  }
  ByteBuffer out;
  EncodeDictionaryIndices(std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}, 8, out);
  EXPECT_EQ(Bytes(out.span()), (std::vector<uint8_t>{4, 0x03, 0x10, 0x32, 0x54, 0x76}))
      << "width byte 4, one bit-packed group of whole nibbles";
}

}  // namespace
}  // namespace sinkd::parquet
