// OPTIONAL columns: NULLs written as definition levels, read back as NULL by the three independent
// readers (DuckDB, hyparquet, parquet-wasm = arrow-rs), counted in statistics, and kept out of the
// values, the dictionary, the bounds and the Bloom filter. A NULL's slot holds a placeholder the
// writer must ignore, so the tests put tell-tale values there.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "reader_check.h"
#include "support/support.h"

namespace sinkd::parquet {
namespace {

using testing::DuckDb;
using testing::SqlQuote;
using testing::TempDir;

constexpr const char* kPlaceholderString = "placeholder-never-written";
constexpr const char* kPlaceholderInt = "-999999999";

// Every physical type OPTIONAL, with NULLs in four shapes: scattered (about a third), a column
// that is never NULL, a column that is NULL in every row, and one NULL only at the start and end
// of each row group (the levels before a page's first value and after the chunk's last).
// Column 0 is a REQUIRED id.
SampleTable NullableTable(size_t rows, uint64_t seed) {
  SampleTable t({
      {"id", PhysicalType::kInt64, Annotation::kNone, 1, false, false},
      {"name", PhysicalType::kByteArray, Annotation::kString, 2, true, true},
      {"tenant", PhysicalType::kByteArray, Annotation::kString, 3, false, true},
      {"count", PhysicalType::kInt32, Annotation::kNone, 4, false, true},
      {"amount", PhysicalType::kInt64, Annotation::kNone, 5, true, true},
      {"cost", PhysicalType::kDouble, Annotation::kNone, 6, false, true},
      {"flag", PhysicalType::kBoolean, Annotation::kNone, 7, false, true},
      {"ts", PhysicalType::kInt64, Annotation::kTimestampMicrosUtc, 8, false, true},
      {"never_null", PhysicalType::kInt64, Annotation::kNone, 9, false, true},
      {"always_null", PhysicalType::kByteArray, Annotation::kString, 10, true, true},
      {"edges", PhysicalType::kInt32, Annotation::kNone, 11, false, true},
  });
  std::mt19937_64 rng(seed);
  const char* tenants[] = {"acme", "globex", "initech", "umbrella"};
  for (size_t r = 0; r < rows; ++r) {
    const auto null = [&] { return rng() % 3 == 0; };
    t.Int64(0, static_cast<int64_t>(r));
    null() ? t.Null(1, kPlaceholderString) : t.String(1, Numbered("name-", r));
    null() ? t.Null(2, kPlaceholderString) : t.String(2, tenants[rng() % 4]);
    null() ? t.Null(3, kPlaceholderInt) : t.Int32(3, static_cast<int32_t>(rng() % 100));
    null() ? t.Null(4, kPlaceholderInt) : t.Int64(4, static_cast<int64_t>(rng() % 100000));
    null() ? t.Null(5, "1e300") : t.Double(5, static_cast<double>(rng() % 1000) / 8.0);
    null() ? t.Null(6, "true") : t.Bool(6, rng() % 2 == 0);
    null() ? t.Null(7, kPlaceholderInt) : t.Int64(7, 1'700'000'000'000'000 + static_cast<int64_t>(r));
    t.Int64(8, static_cast<int64_t>(rng() % 7));
    t.Null(9, kPlaceholderString);
    (r % 100 == 0 || r % 100 == 99) ? t.Null(10, kPlaceholderInt)
                                    : t.Int32(10, static_cast<int32_t>(r % 100));
    t.EndRow();
  }
  return t;
}

// Several row groups of 100 rows and pages of 16 values, so the levels are spread over many pages,
// some starting or ending with NULLs; both the dictionary and the PLAIN paths are taken.
TEST(PartWriterOptional, NullsReadBackAsNullInAllThreeReaders) {
  TempDir dir;
  const SampleTable table = NullableTable(1000, 5);
  WriterOptions options;
  options.row_group_rows = 100;
  options.page_rows = 16;
  const auto path = dir / "nulls.parquet";
  ASSERT_TRUE(WriteParquet(table, table.AllRows(), options, path).ok());
  ExpectAllReadersAgree(table, table.AllRows(), path);
}

// A selection in an arbitrary order, with repeats, over rows some of which are NULL: the levels
// follow the output order, not the table's.
TEST(PartWriterOptional, SelectedRowsKeepTheirNullsInTheGivenOrder) {
  TempDir dir;
  const SampleTable table = NullableTable(300, 9);
  const std::vector<uint32_t> rows = {299, 0, 0, 150, 3, 4, 5, 99, 100, 7, 250};
  const auto path = dir / "selected.parquet";
  ASSERT_TRUE(WriteParquet(table, rows, WriterOptions{}, path).ok());
  ExpectAllReadersAgree(table, rows, path);
}

// Statistics: null_count per chunk is the number of NULLs; the bounds come from values only (the
// placeholders are outside every value's range); the schema says OPTIONAL for exactly the
// optional fields.
TEST(PartWriterOptional, StatisticsCountTheNullsAndTheBoundsIgnoreThem) {
  TempDir dir;
  const SampleTable table = NullableTable(600, 17);
  WriterOptions options;
  options.row_group_rows = 200;
  const auto path = dir / "stats.parquet";
  ASSERT_TRUE(WriteParquet(table, table.AllRows(), options, path).ok());
  const std::string file = SqlQuote(path.string());

  const testing::QueryResult meta = DuckDb(
      "SELECT row_group_id, column_id, stats_null_count, stats_min_value, stats_max_value "
      "FROM parquet_metadata(" + file + ") ORDER BY row_group_id, column_id");
  ASSERT_TRUE(meta.ok) << meta.error;
  ASSERT_EQ(meta.rows.size(), 3u * table.schema().size());
  for (const auto& chunk : meta.rows) {
    const size_t group = std::stoul(chunk[0]);
    const size_t c = std::stoul(chunk[1]);
    int64_t nulls = 0;
    int64_t min = INT64_MAX, max = INT64_MIN;
    for (size_t r = group * 200; r < (group + 1) * 200; ++r) {
      if (table.IsNull(c, r)) {
        ++nulls;
      } else if (c == 0 || c == 3 || c == 4 || c == 8 || c == 10) {
        const int64_t v = std::stoll(table.Text(c, r));
        min = std::min(min, v);
        max = std::max(max, v);
      }
    }
    const std::string& name = table.schema()[c].name;
    EXPECT_EQ(chunk[2], std::to_string(nulls)) << "row group " << group << " column " << name;
    if (c == 0 || c == 3 || c == 4 || c == 8 || c == 10) {
      EXPECT_EQ(chunk[3], std::to_string(min)) << "row group " << group << " column " << name;
      EXPECT_EQ(chunk[4], std::to_string(max)) << "row group " << group << " column " << name;
    }
    if (c == 9) {
      EXPECT_EQ(chunk[3], "<NULL>") << "an all-NULL chunk has no bounds";
      EXPECT_EQ(chunk[4], "<NULL>");
    }
    if (c == 1 || c == 2) {
      EXPECT_NE(chunk[3], kPlaceholderString) << name;
      EXPECT_NE(chunk[4], kPlaceholderString) << name;
    }
    if (c == 5) {
      EXPECT_LT(std::stod(chunk[4]), 1000.0) << "the 1e300 placeholder is no bound";
    }
  }

  const testing::QueryResult schema = DuckDb(
      "SELECT name, repetition_type FROM parquet_schema(" + file + ") WHERE type IS NOT NULL");
  ASSERT_TRUE(schema.ok) << schema.error;
  ASSERT_EQ(schema.rows.size(), table.schema().size());
  for (size_t c = 0; c < table.schema().size(); ++c) {
    EXPECT_EQ(schema.rows[c][1], table.schema()[c].optional ? "OPTIONAL" : "REQUIRED")
        << schema.rows[c][0];
  }

  const testing::QueryResult counts = DuckDb(
      "SELECT count(*), count(name), count(always_null), count(never_null) FROM read_parquet(" +
      file + ")");
  ASSERT_TRUE(counts.ok) << counts.error;
  size_t names = 0;
  for (size_t r = 0; r < table.rows(); ++r) names += !table.IsNull(1, r);
  EXPECT_EQ(counts.rows, (std::vector<std::vector<std::string>>{
                             {"600", std::to_string(names), "0", "600"}}));
}

// The Bloom filter holds the values only: every written value may be present, the placeholder of
// a NULL is excluded, and so is any value probed against a chunk of NULLs only.
TEST(PartWriterOptional, BloomFiltersHoldNoPlaceholderOfANull) {
  TempDir dir;
  const SampleTable table = NullableTable(500, 23);
  WriterOptions options;
  options.row_group_rows = 500;
  const auto path = dir / "bloom.parquet";
  ASSERT_TRUE(WriteParquet(table, table.AllRows(), options, path).ok());
  const std::string file = SqlQuote(path.string());
  // One query for every probe: each DuckDB call starts a node process.
  std::string probes;
  const auto probe = [&](const char* expected, const char* column, const std::string& value) {
    probes += probes.empty() ? "" : " UNION ALL ";
    probes += "SELECT " + SqlQuote(std::string(column) + " " + value) + ", bloom_filter_excludes, " +
              expected + " FROM parquet_bloom_probe(" + file + ", '" + column + "', " + value + ")";
  };
  for (size_t r = 0; r < 500; r += 7) {
    if (!table.IsNull(1, r)) probe("false", "name", SqlQuote(table.Text(1, r)));
    if (!table.IsNull(4, r)) probe("false", "amount", table.Text(4, r));
  }
  probe("true", "name", SqlQuote(kPlaceholderString));
  probe("true", "amount", kPlaceholderInt);
  probe("true", "always_null", SqlQuote(kPlaceholderString));
  const testing::QueryResult q = DuckDb("SELECT count(*), string_agg(p, '; ') FILTER "
                                        "(excludes IS DISTINCT FROM expected) FROM (" + probes +
                                        ") AS t(p, excludes, expected)");
  ASSERT_TRUE(q.ok) << q.error;
  EXPECT_GT(std::stoi(q.rows[0][0]), 50) << "premise: the probes ran";
  EXPECT_EQ(q.rows[0][1], "<NULL>") << "probes with the wrong answer: " << q.rows[0][1];
}

// NULLs take no room among the values: a column NULL in 99% of its rows is far smaller than the
// same rows with the placeholders written, i.e. the values were skipped, not zeroed.
TEST(PartWriterOptional, NullsAreLeftOutOfTheValues) {
  Schema schema = {{"s", PhysicalType::kByteArray, Annotation::kString, -1, false, true}};
  SampleTable sparse(schema), dense(schema);
  std::mt19937_64 rng(3);
  for (size_t r = 0; r < 20000; ++r) {
    const std::string unique = Numbered("value-", rng());
    r % 100 == 0 ? sparse.String(0, unique) : sparse.Null(0, unique);
    dense.String(0, unique);
    sparse.EndRow();
    dense.EndRow();
  }
  const std::string sparse_bytes = EncodeAll(sparse);
  const std::string dense_bytes = EncodeAll(dense);
  EXPECT_LT(sparse_bytes.size() * 10, dense_bytes.size())
      << "sparse " << sparse_bytes.size() << " B, dense " << dense_bytes.size() << " B";
}

// A REQUIRED field cannot hold a NULL: the caller broke the contract, and nothing is written.
TEST(PartWriterOptional, ARequiredFieldGivenANullIsInternal) {
  SampleTable t({{"a", PhysicalType::kInt64}, {"b", PhysicalType::kInt64}});
  for (int r = 0; r < 10; ++r) {
    t.Int64(0, r);
    r == 6 ? t.Null(1, "5") : t.Int64(1, r);
    t.EndRow();
  }
  MemoryOutputStream out;
  PartWriter writer(t.schema(), WriterOptions{}, out);
  const Status s = writer.WriteRows(t.View(), t.AllRows());
  EXPECT_TRUE(s.IsInternal()) << s.ToString();
  EXPECT_NE(s.message().find("column b is REQUIRED but row 6 is NULL"), std::string::npos)
      << s.message();
  EXPECT_TRUE(out.data().empty()) << "nothing written, not even the magic";
}

// TableView::defined of the wrong shape is the caller's bug too.
TEST(PartWriterOptional, DefinitionSpansOfTheWrongShapeAreInternal) {
  const std::vector<int64_t> values = {1, 2, 3};
  const std::vector<uint8_t> two = {1, 0};
  const Schema schema = {{"a", PhysicalType::kInt64, Annotation::kNone, -1, false, true}};
  for (const TableView& table : {
           TableView{{std::span<const int64_t>(values)}, 3, {std::span<const uint8_t>(two)}},
           TableView{{std::span<const int64_t>(values)}, 3, {{}, {}}},
       }) {
    MemoryOutputStream out;
    PartWriter writer(schema, WriterOptions{}, out);
    EXPECT_TRUE(writer.WriteRows(table, {}).IsInternal());
    writer.Abandon();
  }
}

// A REQUIRED-only table with definition spans (all 1) writes the very bytes it writes without
// them: the spans change nothing for REQUIRED fields.
TEST(PartWriterOptional, DefinitionSpansOfAllValuesChangeNothingForRequiredFields) {
  const SampleTable table = MixedTable(500, 2);
  MemoryOutputStream plain_out, spans_out;
  std::vector<uint8_t> ones(table.rows(), 1);
  TableView with_spans = table.View();
  with_spans.defined.assign(table.schema().size(), std::span<const uint8_t>(ones));
  for (auto [out, view] : {std::pair{&plain_out, table.View()}, std::pair{&spans_out, with_spans}}) {
    PartWriter writer(table.schema(), WriterOptions{}, *out);
    ASSERT_TRUE(writer.WriteRows(view, table.AllRows()).ok());
    ASSERT_TRUE(writer.Finish({}).ok());
  }
  EXPECT_EQ(plain_out.data(), spans_out.data());
}

}  // namespace
}  // namespace sinkd::parquet
