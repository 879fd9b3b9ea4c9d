// The byte layout of Parts, checked with an independent Thrift decoder (thrift_decoder.h): row
// group and page splitting, offsets and sizes, zero-row files, determinism.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "reader_check.h"
#include "thrift_decoder.h"

namespace sinkd::parquet {
namespace {

// FileMetaData / RowGroup / ColumnMetaData field ids (parquet.thrift) beyond thrift_decoder.h's.
constexpr int16_t kNumRows = 3;
constexpr int16_t kTotalByteSize = 2, kGroupRows = 3, kFileOffset = 5, kTotalCompressed = 6,
                  kOrdinal = 7;

SampleTable Numbers(size_t rows) {
  SampleTable t({{"n", PhysicalType::kInt64}, {"s", PhysicalType::kByteArray, Annotation::kString}});
  for (size_t r = 0; r < rows; ++r) {
    t.Int64(0, static_cast<int64_t>(r * 7919 % 100003));
    t.String(1, Numbered("v", r % 13));
    t.EndRow();
  }
  return t;
}

// The caller decides whether to create a file for no rows; if it does, the file must be valid:
// row_groups = [], num_rows = 0, never an empty row group or page.
TEST(PartWriterLayout, AWriterWithNoRowsFinishesAValidEmptyFile) {
  MemoryOutputStream out;
  const Schema schema = {{"a", PhysicalType::kInt32}};
  PartWriter writer(schema, WriterOptions{}, out);
  ASSERT_TRUE(writer.WriteRows(TableView{{std::span<const int32_t>()}, 0}, {}).ok());
  ASSERT_TRUE(writer.Finish({}).ok());
  const ThriftValue footer = DecodeFooter(out.data());
  EXPECT_EQ(footer.Int(kNumRows), 0);
  EXPECT_TRUE(footer.List(kRowGroups).empty());
  EXPECT_EQ(footer.List(2).size(), 2u) << "the schema is still there: root + one leaf";
  EXPECT_EQ(writer.rows_written(), 0u);
  EXPECT_EQ(writer.bytes_written(), out.data().size());
}

// Row groups of row_group_rows, the last one partial, with ordinals, offsets and totals right:
// a wrong RowGroup.file_offset made Trino return 0 rows (trino#26058).
TEST(PartWriterLayout, RowsAreSplitIntoRowGroupsWithConsistentOffsetsAndTotals) {
  WriterOptions options;
  options.row_group_rows = 400;
  const std::string file = EncodeAll(Numbers(1000), options);
  const ThriftValue footer = DecodeFooter(file);
  const auto& groups = footer.List(kRowGroups);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(footer.Int(kNumRows), 1000);
  int64_t expected_offset = 4;  // after "PAR1"
  const int64_t sizes[] = {400, 400, 200};
  for (size_t g = 0; g < groups.size(); ++g) {
    EXPECT_EQ(groups[g].Int(kGroupRows), sizes[g]);
    EXPECT_EQ(groups[g].Int(kOrdinal), static_cast<int64_t>(g));
    EXPECT_EQ(groups[g].Int(kFileOffset), expected_offset) << "row group " << g;
    int64_t compressed = 0, uncompressed = 0;
    for (const ThriftValue& chunk : groups[g].List(kColumns)) {
      EXPECT_EQ(chunk.Int(2), 0) << "ColumnChunk.file_offset is written 0";
      const ThriftValue& meta = chunk[kMeta];
      const int64_t start = meta.Has(11) ? meta.Int(11) : meta.Int(9);
      EXPECT_EQ(start, expected_offset + compressed) << "chunks are contiguous, in schema order";
      EXPECT_EQ(meta.Int(5), sizes[g]) << "num_values = rows for a flat required column";
      compressed += meta.Int(7);
      uncompressed += meta.Int(6);
    }
    EXPECT_EQ(groups[g].Int(kTotalCompressed), compressed);
    EXPECT_EQ(groups[g].Int(kTotalByteSize), uncompressed);
    expected_offset += compressed;
  }
}

// Exactly row_group_rows rows make one group: no empty trailing group.
TEST(PartWriterLayout, ExactlyRowGroupRowsRowsMakeOneRowGroup) {
  WriterOptions options;
  options.row_group_rows = 500;
  const ThriftValue footer = DecodeFooter(EncodeAll(Numbers(500), options));
  ASSERT_EQ(footer.List(kRowGroups).size(), 1u);
  EXPECT_EQ(footer.List(kRowGroups)[0].Int(kGroupRows), 500);
}

// Every page of every chunk: sizes add up to the chunk totals, the uncompressed size is exact
// (Arrow's zstd path rejects anything else), the dictionary page comes first and alone, and
// encoding_stats counts exactly the pages present.
TEST(PartWriterLayout, PageSizesAddUpToChunkTotalsAndMatchEncodingStats) {
  WriterOptions options;
  options.page_rows = 300;
  const std::string file = EncodeAll(Numbers(1000), options);
  const ThriftValue footer = DecodeFooter(file);
  for (const ThriftValue& chunk : footer.List(kRowGroups)[0].List(kColumns)) {
    const ThriftValue& meta = chunk[kMeta];
    const std::vector<PageInFile> pages = ChunkPages(file, meta);
    ASSERT_FALSE(pages.empty());
    int64_t compressed = 0, uncompressed = 0, values = 0, data_pages = 0, dictionary_pages = 0;
    for (size_t p = 0; p < pages.size(); ++p) {
      const PageInFile& page = pages[p];
      compressed += static_cast<int64_t>(page.header_bytes + page.compressed_bytes);
      uncompressed += static_cast<int64_t>(page.header_bytes) + page.header.Int(2);
      EXPECT_EQ(page.Uncompressed(file).size(), static_cast<size_t>(page.header.Int(2)));
      if (page.header.Int(1) == 2) {
        EXPECT_EQ(p, 0u) << "the dictionary page must be first";
        EXPECT_EQ(meta.Int(11), static_cast<int64_t>(page.offset));
        ++dictionary_pages;
      } else {
        if (data_pages++ == 0) {
          EXPECT_EQ(meta.Int(9), static_cast<int64_t>(page.offset)) << "data_page_offset";
        }
        const int64_t n = page.header[5].Int(1);
        EXPECT_GT(n, 0) << "never an empty page";
        EXPECT_LE(n, 300) << "page_rows";
        values += n;
      }
    }
    EXPECT_EQ(compressed, meta.Int(7));
    EXPECT_EQ(uncompressed, meta.Int(6)) << "total_uncompressed_size includes the headers";
    EXPECT_EQ(values, 1000);
    EXPECT_EQ(data_pages, 4) << "1000 rows at 300 per page";
    EXPECT_EQ(meta.Has(11), dictionary_pages == 1) << "dictionary_page_offset only with one";
    int64_t counted = 0;
    for (const ThriftValue& s : meta.List(13)) counted += s.Int(3);
    EXPECT_EQ(counted, data_pages + dictionary_pages) << "encoding_stats counts every page";
    EXPECT_EQ(meta.Int(4), 6) << "ZSTD";
  }
}

// Strings cut pages by bytes; a value bigger than a page still gets a page of its own.
TEST(PartWriterLayout, StringPagesCloseAtPageBytesAndAHugeValueGetsItsOwnPage) {
  SampleTable t({{"s", PhysicalType::kByteArray, Annotation::kString}});
  for (int r = 0; r < 40; ++r) {
    t.String(0, r == 20 ? std::string(5000, 'h') : Numbered(std::string(100, static_cast<char>('a' + r % 26)), r));
    t.EndRow();
  }
  WriterOptions options;
  options.page_bytes = 1000;
  const std::string file = EncodeAll(t, options);
  const ThriftValue meta = DecodeFooter(file).List(kRowGroups)[0].List(kColumns)[0][kMeta];
  ASSERT_FALSE(meta.Has(11)) << "premise: 40 distinct of 40 rows stays PLAIN";
  size_t rows = 0;
  bool saw_huge_page = false;
  for (const PageInFile& page : ChunkPages(file, meta)) {
    const int64_t size = page.header.Int(2);
    const int64_t n = page.header[5].Int(1);
    rows += static_cast<size_t>(n);
    if (size > 1000) {
      EXPECT_EQ(n, 1) << "only a single value may exceed page_bytes";
      saw_huge_page = true;
    }
  }
  EXPECT_EQ(rows, 40u);
  EXPECT_TRUE(saw_huge_page);
}

// Same input, same bytes: a Part can be rewritten and compared, and caches stay valid.
TEST(PartWriterLayout, TheSameRowsGiveByteIdenticalFiles) {
  const SampleTable t = MixedTable(3000, 9, true);
  WriterOptions options;
  options.row_group_rows = 1000;
  const std::string first = EncodeAll(t, options);
  const std::string second = EncodeAll(t, options);
  ASSERT_GT(first.size(), 1000u);
  EXPECT_TRUE(first == second) << "two encodings of the same rows differ";
}

}  // namespace
}  // namespace sinkd::parquet
