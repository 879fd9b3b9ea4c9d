// Encoding choices, footer statistics and Bloom filter placement, checked in the bytes with the
// independent Thrift decoder.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "parquet/bloom_filter.h"
#include "reader_check.h"
#include "thrift_decoder.h"

namespace sinkd::parquet {
namespace {

constexpr int16_t kEncodings = 2, kDictionaryOffset = 11, kStatistics = 12, kEncodingStats = 13,
                  kBloomOffset = 14, kBloomLength = 15;
constexpr int64_t kPlain = 0, kRle = 3, kRleDictionary = 8;

ThriftValue ChunkMeta(const std::string& file, size_t group, size_t column) {
  return DecodeFooter(file).List(kRowGroups)[group].List(kColumns)[column][kMeta];
}

std::vector<int64_t> Ints(const std::vector<ThriftValue>& list) {
  std::vector<int64_t> out;
  for (const ThriftValue& v : list) out.push_back(v.i);
  return out;
}

SampleTable OneStringColumn(size_t rows, const std::function<std::string(size_t)>& value) {
  SampleTable t({{"s", PhysicalType::kByteArray, Annotation::kString}});
  for (size_t r = 0; r < rows; ++r) {
    t.String(0, value(r));
    t.EndRow();
  }
  return t;
}

// A chunk whose distinct values pass dictionary_bytes_limit is PLAIN from its first page: one
// encoding per chunk, so encoding_stats stays clean.
TEST(PartWriterEncoding, AStringChunkPastTheDictionaryLimitFallsBackToPlain) {
  const SampleTable t = OneStringColumn(1000, [](size_t r) {
    return Numbered("twenty-byte-value-", r % 100);
  });
  const ThriftValue fits = ChunkMeta(EncodeAll(t), 0, 0);
  ASSERT_EQ(Ints(fits.List(kEncodings)), (std::vector<int64_t>{kPlain, kRle, kRleDictionary}))
      << "premise: 100 distinct values of 1000 rows are dictionary-encoded under the default";
  WriterOptions small;
  small.dictionary_bytes_limit = 1000;  // 100 × (4 + 20) bytes do not fit
  const ThriftValue fallback = ChunkMeta(EncodeAll(t, small), 0, 0);
  EXPECT_EQ(Ints(fallback.List(kEncodings)), (std::vector<int64_t>{kPlain, kRle}));
  EXPECT_FALSE(fallback.Has(kDictionaryOffset));
  ASSERT_EQ(fallback.List(kEncodingStats).size(), 1u);
  EXPECT_EQ(fallback.List(kEncodingStats)[0].Int(2), kPlain);
  EXPECT_FALSE(fallback[kStatistics].Has(4)) << "no distinct_count without a dictionary";
}

// The dictionary chunk's metadata: DICTIONARY_PAGE/PLAIN once, DATA_PAGE/RLE_DICTIONARY per page
// (parquet-java can then prove the chunk fully dictionary-coded), distinct_count = entries.
TEST(PartWriterEncoding, ALowCardinalityChunkDeclaresItsDictionaryInEncodingStats) {
  SampleTable t({{"n", PhysicalType::kInt32}, {"s", PhysicalType::kByteArray, Annotation::kString}});
  for (int r = 0; r < 5000; ++r) {
    t.Int32(0, r % 17 - 8);
    t.String(1, Numbered("tenant-", (r * 7) % 23));
    t.EndRow();
  }
  WriterOptions options;
  options.page_rows = 2000;
  const std::string file = EncodeAll(t, options);
  const int64_t distinct[] = {17, 23};
  for (size_t c = 0; c < 2; ++c) {
    const ThriftValue meta = ChunkMeta(file, 0, c);
    const auto& stats = meta.List(kEncodingStats);
    ASSERT_EQ(stats.size(), 2u) << "column " << c;
    EXPECT_EQ(stats[0].Int(1), 2) << "DICTIONARY_PAGE";
    EXPECT_EQ(stats[0].Int(2), kPlain);
    EXPECT_EQ(stats[0].Int(3), 1);
    EXPECT_EQ(stats[1].Int(1), 0) << "DATA_PAGE";
    EXPECT_EQ(stats[1].Int(2), kRleDictionary);
    EXPECT_EQ(stats[1].Int(3), 3) << "5000 rows at 2000 per page";
    EXPECT_EQ(meta[kStatistics].Int(4), distinct[c]) << "distinct_count";
    EXPECT_TRUE(meta.Has(kDictionaryOffset));
  }
}

// Unique ids gain nothing from a dictionary: indices on top of every value. They stay PLAIN.
TEST(PartWriterEncoding, ANearUniqueColumnStaysPlain) {
  const SampleTable t = OneStringColumn(4000, [](size_t r) { return Numbered("id-", r * 7919); });
  const ThriftValue meta = ChunkMeta(EncodeAll(t), 0, 0);
  EXPECT_EQ(Ints(meta.List(kEncodings)), (std::vector<int64_t>{kPlain, kRle}));
}

// The same cardinality (a third of the rows) is dictionary-coded when repeats are scattered and
// PLAIN when each value sits in one short run, where zstd codes the repeats almost for free.
TEST(PartWriterEncoding, ValuesInShortRunsStayPlainWhileScatteredRepeatsUseTheDictionary) {
  const SampleTable clustered = OneStringColumn(6000, [](size_t r) { return Numbered("run-", r / 3); });
  const SampleTable scattered =
      OneStringColumn(6000, [](size_t r) { return Numbered("run-", (r * 7919) % 2000); });
  EXPECT_EQ(Ints(ChunkMeta(EncodeAll(clustered), 0, 0).List(kEncodings)),
            (std::vector<int64_t>{kPlain, kRle}));
  EXPECT_EQ(Ints(ChunkMeta(EncodeAll(scattered), 0, 0).List(kEncodings)),
            (std::vector<int64_t>{kPlain, kRle, kRleDictionary}));
}

// Statistics on every chunk: null_count = 0 always; exact flags; legacy min/max for numbers only;
// no bounds at all for a double chunk holding a NaN.
TEST(PartWriterEncoding, EveryChunkHasNullCountZeroAndTheRightBoundFields) {
  const SampleTable t = MixedTable(2000, 1, /*with_nan=*/true);
  const ThriftValue group = DecodeFooter(EncodeAll(t)).List(kRowGroups)[0];
  for (size_t c = 0; c < t.schema().size(); ++c) {
    const ThriftValue& s = group.List(kColumns)[c][kMeta][kStatistics];
    EXPECT_EQ(s.Int(3), 0) << t.schema()[c].name << ": null_count";
    const bool is_string = t.schema()[c].physical == PhysicalType::kByteArray;
    const bool has_bounds = t.schema()[c].name != "cost";  // the one column with a NaN
    EXPECT_EQ(s.Has(5) && s.Has(6), has_bounds) << t.schema()[c].name;
    EXPECT_EQ(s.Has(1) || s.Has(2), !is_string && has_bounds) << t.schema()[c].name << ": legacy";
    if (has_bounds) {
      EXPECT_TRUE(s[7].b && s[8].b) << t.schema()[c].name << ": exact";
    }
  }
}

// Megabyte strings must not reach the footer: bounds are cut to 64 bytes and marked inexact.
TEST(PartWriterEncoding, AOneMegabyteStringKeepsTheFooterSmall) {
  const SampleTable t = OneStringColumn(3, [](size_t r) {
    return std::string(1 << 20, static_cast<char>('a' + r));
  });
  const std::string file = EncodeAll(t);
  uint32_t footer_length;
  std::memcpy(&footer_length, file.data() + file.size() - 8, 4);
  EXPECT_LT(footer_length, 1024u);
  const ThriftValue meta = ChunkMeta(file, 0, 0);
  const ThriftValue& s = meta[kStatistics];
  EXPECT_EQ(s.Bin(6), std::string(64, 'a'));
  EXPECT_EQ(s.Bin(5), std::string(62, 'c') + "d") << "cut a byte early, then incremented";
  EXPECT_FALSE(s[7].b);
  EXPECT_FALSE(s[8].b);
}

// Bloom filters: one per (row group, requested column), after the last row group, before the
// footer, with bloom_filter_length = header + power-of-two bitset.
TEST(PartWriterEncoding, BloomFiltersSitBetweenTheRowGroupsAndTheFooter) {
  const SampleTable t = MixedTable(3000, 5);  // id and amount ask for a filter
  WriterOptions options;
  options.row_group_rows = 1000;
  const std::string file = EncodeAll(t, options);
  const ThriftValue footer = DecodeFooter(file);
  const auto& groups = footer.List(kRowGroups);
  ASSERT_EQ(groups.size(), 3u);
  const ThriftValue& last = groups.back();
  const int64_t data_end = last.Int(5) + last.Int(6);
  int filters = 0;
  for (const ThriftValue& group : groups) {
    for (size_t c = 0; c < t.schema().size(); ++c) {
      const ThriftValue& meta = group.List(kColumns)[c][kMeta];
      ASSERT_EQ(meta.Has(kBloomOffset), t.schema()[c].bloom_filter) << t.schema()[c].name;
      if (!meta.Has(kBloomOffset)) continue;
      ++filters;
      const int64_t offset = meta.Int(kBloomOffset);
      EXPECT_GE(offset, data_end);
      size_t header_bytes = 0;
      const ThriftValue header = DecodeStruct(std::string_view(file).substr(offset), &header_bytes);
      const int64_t bitset = header.Int(1);
      EXPECT_EQ(bitset & (bitset - 1), 0) << "a power of two";
      EXPECT_GE(bitset, 32);
      EXPECT_EQ(meta.Int(kBloomLength), static_cast<int64_t>(header_bytes) + bitset);
      EXPECT_LE(offset + meta.Int(kBloomLength), static_cast<int64_t>(file.size()) - 8);
    }
  }
  EXPECT_EQ(filters, 6);
}

}  // namespace
}  // namespace sinkd::parquet
