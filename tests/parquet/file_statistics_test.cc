// FileStatistics from the writer's own footer: what an Iceberg manifest entry records for a Part
// (column sizes, value and null counts, bounds, split offsets) without reading the Part again.
// DuckDB, which shares nothing with the writer, reads the same numbers from the file; the bounds
// are checked against the values written.
#include "parquet/file_statistics.h"

#include <gtest/gtest.h>

#include <cstring>
#include <map>

#include "parquet/output_stream.h"
#include "parquet/part_reader.h"
#include "reader_check.h"
#include "support/support.h"

namespace sinkd::parquet {
namespace {

template <typename T>
T Decoded(const std::optional<std::string>& bytes) {
  T v{};
  EXPECT_TRUE(bytes.has_value());
  if (bytes && bytes->size() == sizeof v) std::memcpy(&v, bytes->data(), sizeof v);
  return v;
}

TEST(FileStatistics, TheWritersStatisticsAreTheFileAsDuckDbReadsItOverEveryRowGroup) {
  SampleTable t({
      {"id", PhysicalType::kByteArray, Annotation::kString, 1, true, false},
      {"time", PhysicalType::kInt64, Annotation::kTimestampMicrosUtc, 2, false, false},
      {"n", PhysicalType::kInt32, Annotation::kNone, 3, false, false},
      {"cost", PhysicalType::kDouble, Annotation::kNone, 4, false, false},
      {"flag", PhysicalType::kBoolean, Annotation::kNone, 5, false, false},
      {"maybe", PhysicalType::kByteArray, Annotation::kString, 7, false, true},
  });
  for (int r = 0; r < 250; ++r) {
    t.String(0, Numbered("id-", 1000 + r));
    t.Int64(1, 1'700'000'000'000'000 - 7 * r);  // decreasing: the min is in the last group
    t.Int32(2, (r * 37) % 101 - 50);
    t.Double(3, r == 120 ? -2.5 : r * 0.25);
    t.Bool(4, false);
    r % 3 == 0 ? t.Null(5) : t.String(5, Numbered("m", r % 10));
    t.EndRow();
  }
  WriterOptions options;
  options.row_group_rows = 100;
  MemoryOutputStream out;
  PartWriter writer(t.schema(), options, out);
  const std::vector<uint32_t> rows = t.AllRows();
  ASSERT_TRUE(writer.WriteRows(t.View(), rows).ok());
  ASSERT_TRUE(writer.Finish({}).ok());
  const FileStatistics stats = writer.statistics();
  testing::TempDir dir;
  testing::WriteFile(dir / "s.parquet", out.Release());

  ASSERT_EQ(stats.rows, 250u);
  ASSERT_EQ(stats.columns.size(), 6u);
  const testing::QueryResult meta = testing::DuckDb(
      "SELECT column_id, sum(total_compressed_size), sum(num_values), sum(stats_null_count) "
      "FROM parquet_metadata(" +
      testing::SqlQuote((dir / "s.parquet").string()) +
      ") "
      "GROUP BY column_id ORDER BY column_id");
  ASSERT_TRUE(meta.ok) << meta.error;
  ASSERT_EQ(meta.rows.size(), 6u);
  const int32_t ids[] = {1, 2, 3, 4, 5, 7};
  for (size_t c = 0; c < 6; ++c) {
    EXPECT_EQ(stats.columns[c].field_id, ids[c]);
    EXPECT_EQ(std::to_string(stats.columns[c].bytes), meta.rows[c][1]) << "column " << c;
    EXPECT_EQ(std::to_string(stats.columns[c].values), meta.rows[c][2]) << "column " << c;
    ASSERT_TRUE(stats.columns[c].nulls.has_value()) << "column " << c;
    EXPECT_EQ(std::to_string(*stats.columns[c].nulls), meta.rows[c][3]) << "column " << c;
  }
  EXPECT_EQ(*stats.columns[5].nulls, 84u) << "every third of 250 rows is NULL";
  EXPECT_EQ(stats.columns[0].min, "id-1000");
  EXPECT_EQ(stats.columns[0].max, "id-1249");
  EXPECT_EQ(Decoded<int64_t>(stats.columns[1].min), 1'700'000'000'000'000 - 7 * 249);
  EXPECT_EQ(Decoded<int64_t>(stats.columns[1].max), 1'700'000'000'000'000);
  EXPECT_EQ(Decoded<int32_t>(stats.columns[2].min), -50);
  EXPECT_EQ(Decoded<int32_t>(stats.columns[2].max), 50);
  EXPECT_EQ(Decoded<double>(stats.columns[3].min), -2.5) << "from the middle row group";
  EXPECT_EQ(Decoded<double>(stats.columns[3].max), 249 * 0.25);
  EXPECT_EQ(stats.columns[4].min, std::string(1, '\0'));
  EXPECT_EQ(stats.columns[4].max, std::string(1, '\0')) << "all false";
  EXPECT_EQ(stats.columns[5].min, "m0");
  EXPECT_EQ(stats.columns[5].max, "m9");

  const testing::QueryResult groups = testing::DuckDb(
      "SELECT row_group_id, min(coalesce(dictionary_page_offset, data_page_offset)) "
      "FROM parquet_metadata(" +
      testing::SqlQuote((dir / "s.parquet").string()) +
      ") "
      "GROUP BY row_group_id ORDER BY row_group_id");
  ASSERT_TRUE(groups.ok) << groups.error;
  ASSERT_EQ(stats.row_group_offsets.size(), 3u);
  for (size_t g = 0; g < 3; ++g) {
    EXPECT_EQ(std::to_string(stats.row_group_offsets[g]), groups.rows[g][1]) << "row group " << g;
  }
}

TEST(FileStatistics, AColumnWithoutABoundInOneRowGroupHasNoFileBound) {
  // A chunk of NULLs only has no min/max: a file bound taken from the other chunks would claim a
  // range, which is still right, but a chunk without a bound for another reason (a NaN) would make
  // it wrong. No bound is always safe for pruning.
  SampleTable t({{"x", PhysicalType::kDouble, Annotation::kNone, 1, false, false}});
  for (int r = 0; r < 4; ++r) {
    t.Double(0, r == 3 ? std::nan("") : r);
    t.EndRow();
  }
  WriterOptions options;
  options.row_group_rows = 2;
  MemoryOutputStream out;
  PartWriter writer(t.schema(), options, out);
  const std::vector<uint32_t> rows = t.AllRows();
  ASSERT_TRUE(writer.WriteRows(t.View(), rows).ok());
  ASSERT_TRUE(writer.Finish({}).ok());
  const FileStatistics stats = writer.statistics();
  ASSERT_EQ(stats.columns.size(), 1u);
  EXPECT_FALSE(stats.columns[0].min.has_value());
  EXPECT_FALSE(stats.columns[0].max.has_value());
  EXPECT_EQ(stats.columns[0].values, 4u);
}

// `sinkd table register` and `lake verify` of a table describe a Part from its footer read back:
// Summarize of what ReadFooter gives must be, field by field, what the writer's gave. Failed
// before Summarize(FileFooter) existed (no such overload); a read footer without the row groups'
// offsets or the null counts' presence would differ in split offsets or nulls.
TEST(FileStatistics, TheStatisticsOfAFooterReadBackAreTheWritersOwn) {
  SampleTable t({
      {"id", PhysicalType::kByteArray, Annotation::kString, 1, true, false},
      {"time", PhysicalType::kInt64, Annotation::kTimestampMicrosUtc, 2, false, false},
      {"n", PhysicalType::kInt32, Annotation::kNone, 3, false, false},
      {"cost", PhysicalType::kDouble, Annotation::kNone, 4, false, false},
      {"flag", PhysicalType::kBoolean, Annotation::kNone, 5, false, false},
      {"maybe", PhysicalType::kByteArray, Annotation::kString, 7, false, true},
      {"none", PhysicalType::kByteArray, Annotation::kString, -1, false, true},
  });
  for (int r = 0; r < 250; ++r) {
    t.String(0, Numbered("id-", 1000 + r));
    t.Int64(1, 1'700'000'000'000'000 - 7 * r);
    t.Int32(2, (r * 37) % 101 - 50);
    t.Double(3, r * 0.25);
    t.Bool(4, r % 2 == 0);
    r < 120 ? t.Null(5) : t.String(5, Numbered("m", r % 10));  // all NULL in the first group
    t.Null(6);
    t.EndRow();
  }
  WriterOptions options;
  options.row_group_rows = 100;
  MemoryOutputStream out;
  PartWriter writer(t.schema(), options, out);
  ASSERT_TRUE(writer.WriteRows(t.View(), t.AllRows()).ok());
  ASSERT_TRUE(writer.Finish({}).ok());
  const FileStatistics written = writer.statistics();
  const std::string bytes = out.Release();
  Result<FileFooter> footer = ReadFooter(
      [&](uint64_t offset, uint64_t length) -> Result<std::string> {
        return bytes.substr(offset, length);
      },
      bytes.size(), "s.parquet");
  ASSERT_TRUE(footer.ok()) << footer.status().ToString();
  const FileStatistics read = Summarize(*footer);
  EXPECT_EQ(read.rows, written.rows);
  EXPECT_EQ(read.row_group_offsets, written.row_group_offsets);
  ASSERT_EQ(written.row_group_offsets.size(), 3u);
  ASSERT_EQ(read.columns.size(), written.columns.size());
  for (size_t c = 0; c < written.columns.size(); ++c) {
    const ColumnSummary& a = read.columns[c];
    const ColumnSummary& b = written.columns[c];
    EXPECT_EQ(a.field_id, b.field_id) << "column " << c;
    EXPECT_EQ(a.type, b.type) << "column " << c;
    EXPECT_EQ(a.bytes, b.bytes) << "column " << c;
    EXPECT_EQ(a.values, b.values) << "column " << c;
    EXPECT_EQ(a.nulls, b.nulls) << "column " << c;
    EXPECT_EQ(a.min, b.min) << "column " << c;
    EXPECT_EQ(a.max, b.max) << "column " << c;
  }
  EXPECT_FALSE(written.columns[5].min.has_value()) << "a group of NULLs only: no file bound";
  EXPECT_EQ(written.columns[6].field_id, -1);
}

}  // namespace
}  // namespace sinkd::parquet
