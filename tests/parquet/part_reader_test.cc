// PartReader over Parts sinkd writes: every type in both value encodings (PLAIN, RLE_DICTIONARY),
// several pages and row groups, column subsets, and every row and value equal to what was written.
#include <gtest/gtest.h>

#include <cstring>

#include "parquet/part_reader.h"
#include "reader_check.h"

namespace sinkd::parquet {
namespace {

ReadAt InMemory(const std::string& bytes) {
  return [&bytes](uint64_t offset, uint64_t length) -> Result<std::string> {
    if (offset > bytes.size()) return std::string();
    return bytes.substr(offset, length);
  };
}

// The text of value `row` of `v`, in SampleTable's canonical form.
std::string TextOf(const ColumnValues& v, size_t row) {
  if (!v.defined.empty() && !v.defined[row]) return "<NULL>";
  switch (v.physical) {
    case PhysicalType::kBoolean: return v.bools[row] ? "true" : "false";
    case PhysicalType::kInt32: return std::to_string(v.int32s[row]);
    case PhysicalType::kInt64: return std::to_string(v.int64s[row]);
    case PhysicalType::kDouble: {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.17g", v.doubles[row]);
      return buf;
    }
    case PhysicalType::kByteArray:
      return v.bytes.substr(v.offsets[row], v.offsets[row + 1] - v.offsets[row]);
  }
  return "";
}

// Every row of `bytes` read back equals table row `first + i`, value by value (doubles bit for
// bit).
::testing::AssertionResult ReadsBack(const SampleTable& t, const std::string& bytes,
                                     std::span<const int> columns = {}) {
  Result<std::unique_ptr<PartReader>> reader = PartReader::Open(InMemory(bytes), bytes.size(), "t.parquet");
  if (!reader.ok()) return ::testing::AssertionFailure() << reader.status().ToString();
  const FileFooter& footer = (*reader)->footer();
  if (footer.rows != t.rows()) {
    return ::testing::AssertionFailure() << footer.rows << " rows, wrote " << t.rows();
  }
  std::vector<int> want(columns.begin(), columns.end());
  if (want.empty()) {
    for (size_t c = 0; c < t.schema().size(); ++c) want.push_back(static_cast<int>(c));
  }
  size_t row = 0;
  for (size_t g = 0; g < footer.row_groups.size(); ++g) {
    Result<std::vector<ColumnValues>> values = (*reader)->ReadRowGroup(g, columns);
    if (!values.ok()) return ::testing::AssertionFailure() << values.status().ToString();
    if (values->size() != want.size()) return ::testing::AssertionFailure() << "column count";
    const size_t rows = footer.row_groups[g].rows;
    for (size_t k = 0; k < want.size(); ++k) {
      const ColumnValues& v = (*values)[k];
      const size_t c = static_cast<size_t>(want[k]);
      if (v.size() != rows) {
        return ::testing::AssertionFailure() << "column " << c << ": " << v.size() << " values";
      }
      if (!v.defined.empty()) return ::testing::AssertionFailure() << "a REQUIRED column has NULLs";
      for (size_t r = 0; r < rows; ++r) {
        const double wrote = v.physical == PhysicalType::kDouble ? t.DoubleAt(c, row + r) : 0;
        const bool same = v.physical == PhysicalType::kDouble
                              ? std::memcmp(&v.doubles[r], &wrote, 8) == 0
                              : TextOf(v, r) == t.Text(c, row + r);
        if (!same) {
          return ::testing::AssertionFailure()
                 << "row " << row + r << " column " << t.schema()[c].name << ": read '"
                 << TextOf(v, r).substr(0, 80) << "', wrote '" << t.Text(c, row + r).substr(0, 80)
                 << "'";
        }
      }
    }
    row += rows;
  }
  return ::testing::AssertionSuccess();
}

TEST(PartReader, ReadsEveryTypeBackDictionaryEncodedAcrossRowGroupsAndPages) {
  const SampleTable t = MixedTable(5000, 11, /*with_nan=*/true);
  WriterOptions options;
  options.row_group_rows = 1500;
  options.page_bytes = 4096;  // many pages per chunk
  EXPECT_TRUE(ReadsBack(t, EncodeAll(t, options)));
}

TEST(PartReader, ReadsEveryTypeBackPlainEncoded) {
  const SampleTable t = MixedTable(3000, 12);
  WriterOptions options;
  options.dictionary_bytes_limit = 1;  // every chunk falls back to PLAIN
  options.row_group_rows = 1000;
  options.page_rows = 333;
  EXPECT_TRUE(ReadsBack(t, EncodeAll(t, options)));
}

TEST(PartReader, ReadsALedgerShapedPartOfDefaultRowGroups) {
  const SampleTable t = LedgerLikeTable(130'000, 3);
  EXPECT_TRUE(ReadsBack(t, EncodeAll(t)));
}

TEST(PartReader, ReadsOnlyTheColumnsAskedForInTheOrderAsked) {
  const SampleTable t = MixedTable(2000, 5);
  const std::string bytes = EncodeAll(t);
  const int columns[] = {7, 0, 3};
  EXPECT_TRUE(ReadsBack(t, bytes, columns));
}

TEST(PartReader, ReadsHugeEmptyAndOneValueStrings) {
  SampleTable t({{"s", PhysicalType::kByteArray, Annotation::kString}});
  t.String(0, std::string(3 << 20, 'h'));  // its own page
  t.EndRow();
  for (int i = 0; i < 100; ++i) {
    t.String(0, i % 2 ? "" : "a");
    t.EndRow();
  }
  EXPECT_TRUE(ReadsBack(t, EncodeAll(t)));
}

TEST(PartReader, ReadsAZeroRowPart) {
  const SampleTable t = MixedTable(0, 1);
  const std::string bytes = EncodeAll(t);
  Result<std::unique_ptr<PartReader>> reader = PartReader::Open(InMemory(bytes), bytes.size(), "z");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*reader)->footer().rows, 0u);
  EXPECT_TRUE((*reader)->footer().row_groups.empty());
}

TEST(PartReader, SaysARowGroupOrColumnOutOfRangeIsACallerBug) {
  const SampleTable t = MixedTable(10, 1);
  const std::string bytes = EncodeAll(t);
  Result<std::unique_ptr<PartReader>> reader = PartReader::Open(InMemory(bytes), bytes.size(), "z");
  ASSERT_TRUE(reader.ok());
  EXPECT_TRUE((*reader)->ReadRowGroup(1).status().IsInternal());
  const int bad[] = {8};
  EXPECT_TRUE((*reader)->ReadRowGroup(0, bad).status().IsInternal());
}

TEST(PartReader, ReadsEachRowGroupInOneReadOfItsBytes) {
  const SampleTable t = MixedTable(3000, 2);
  WriterOptions options;
  options.row_group_rows = 1000;
  const std::string bytes = EncodeAll(t, options);
  int reads = 0;
  const ReadAt counting = [&](uint64_t offset, uint64_t length) -> Result<std::string> {
    ++reads;
    return bytes.substr(offset, length);
  };
  Result<std::unique_ptr<PartReader>> reader = PartReader::Open(counting, bytes.size(), "z");
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ(reads, 1);
  for (size_t g = 0; g < 3; ++g) ASSERT_TRUE((*reader)->ReadRowGroup(g).ok());
  EXPECT_EQ(reads, 4);
}

}  // namespace
}  // namespace sinkd::parquet
