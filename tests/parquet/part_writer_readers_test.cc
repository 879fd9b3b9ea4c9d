// Files written by PartWriter, read back by three independent decoders (DuckDB's C++ reader,
// hyparquet in JavaScript, parquet-wasm = arrow-rs) and compared value by value with the source.
// The JavaScript readers take seconds per 100k rows, so their files stay small.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "reader_check.h"
#include "support/support.h"
#include "thrift_decoder.h"

namespace sinkd::parquet {
namespace {

using testing::DuckDb;
using testing::SqlQuote;
using testing::TempDir;

// Every type, unicode, empty strings, NaN/±0/±inf, INT64 extremes and pre-1970 timestamps, in
// several row groups, read identically by all three readers: the basic promise of the writer.
TEST(PartWriterReaders, EveryTypeReadsBackExactlyInAllThreeReaders) {
  TempDir dir;
  const SampleTable table = MixedTable(5000, 42, /*with_nan=*/true);
  const auto rows = table.AllRows();
  WriterOptions options;
  options.row_group_rows = 2048;
  const auto path = dir / "mixed.parquet";
  ASSERT_TRUE(WriteParquet(table, rows, options, path).ok());
  ExpectAllReadersAgree(table, rows, path);
}

// Boundary shapes: a single row; exactly one full row group; many tiny row groups (the last one
// partial); each a different path through row-group and page splitting.
TEST(PartWriterReaders, OneRowExactlyOneRowGroupAndManyRowGroupsReadBack) {
  TempDir dir;
  const SampleTable table = MixedTable(300, 11);
  struct Case {
    const char* name;
    size_t rows;
    size_t row_group_rows;
  };
  for (const Case& c : {Case{"one-row", 1, 100}, Case{"exact", 100, 100}, Case{"many", 300, 7}}) {
    std::vector<uint32_t> rows(c.rows);
    for (size_t i = 0; i < c.rows; ++i) rows[i] = static_cast<uint32_t>(i);
    WriterOptions options;
    options.row_group_rows = c.row_group_rows;
    const auto path = dir / (std::string(c.name) + ".parquet");
    ASSERT_TRUE(WriteParquet(table, rows, options, path).ok()) << c.name;
    SCOPED_TRACE(c.name);
    ExpectAllReadersAgree(table, rows, path);
  }
}

// Megabyte strings (a page each), empty strings and multi-byte text, in both encodings: a
// dictionary chunk and, past a tiny dictionary limit, a PLAIN chunk of the same values.
TEST(PartWriterReaders, HugeEmptyAndUnicodeStringsReadBackInBothEncodings) {
  TempDir dir;
  SampleTable table({{"s", PhysicalType::kByteArray, Annotation::kString},
                     {"n", PhysicalType::kInt32}});
  const std::string values[] = {"", std::string(1 << 20, 'M'), "ünïcödé ✓", "", "𝄞 clef",
                                std::string(1 << 20, 'N') + "é"};
  for (int r = 0; r < 18; ++r) {
    table.String(0, values[r % 6]);
    table.Int32(1, r);
    table.EndRow();
  }
  const auto rows = table.AllRows();
  for (size_t limit : {size_t{8} << 20, size_t{64}}) {
    WriterOptions options;
    options.dictionary_bytes_limit = limit;
    const auto path = dir / Numbered("strings-", limit);
    ASSERT_TRUE(WriteParquet(table, rows, options, path).ok());
    const testing::QueryResult encodings = DuckDb(
        "SELECT encodings FROM parquet_metadata(" + SqlQuote(path.string()) +
        ") WHERE path_in_schema = 's'");
    ASSERT_TRUE(encodings.ok) << encodings.error;
    const bool dictionary = encodings.rows[0][0].find("RLE_DICTIONARY") != std::string::npos;
    EXPECT_EQ(dictionary, limit > 64) << "premise: the limit decides the encoding";
    SCOPED_TRACE(dictionary ? "dictionary" : "plain");
    ExpectAllReadersAgree(table, rows, path);
  }
}

// Dictionary-encoded numbers with their edge values: NaN, ±0 (distinct entries), ±inf, the
// smallest subnormal, INT32/INT64 extremes and pre-1970 timestamps. The dictionary must keep
// every bit pattern; a value-equality key would merge -0.0 into 0.0.
TEST(PartWriterReaders, DictionaryEncodedEdgeValuesReadBackBitForBit) {
  TempDir dir;
  SampleTable table({{"d", PhysicalType::kDouble},
                     {"i", PhysicalType::kInt32},
                     {"l", PhysicalType::kInt64},
                     {"t", PhysicalType::kInt64, Annotation::kTimestampMicrosUtc}});
  const double doubles[] = {NAN, -0.0, 0.0, INFINITY, -INFINITY, 5e-324, 0.1};
  const int32_t ints[] = {INT32_MIN, INT32_MAX, 0, -1};
  const int64_t longs[] = {INT64_MIN, INT64_MAX, 0, -1, 1};
  const int64_t times[] = {-62'135'596'800'000'000LL, -1, 0, 253'402'300'799'999'999LL};
  for (int r = 0; r < 700; ++r) {
    table.Double(0, doubles[(r * 3) % 7]);
    table.Int32(1, ints[(r * 5) % 4]);
    table.Int64(2, longs[(r * 7) % 5]);
    table.Int64(3, times[(r * 3) % 4]);
    table.EndRow();
  }
  const auto path = dir / "edges.parquet";
  ASSERT_TRUE(WriteParquet(table, table.AllRows(), WriterOptions{}, path).ok());
  const testing::QueryResult encodings = DuckDb(
      "SELECT count(*) FILTER (encodings LIKE '%RLE_DICTIONARY%') FROM parquet_metadata(" +
      SqlQuote(path.string()) + ")");
  ASSERT_TRUE(encodings.ok) << encodings.error;
  EXPECT_EQ(encodings.rows[0][0], "4") << "premise: every chunk is dictionary-encoded";
  ExpectAllReadersAgree(table, table.AllRows(), path);
}

// A zero-row file is valid for every reader, with its schema intact.
TEST(PartWriterReaders, AZeroRowFileIsReadAsAnEmptyTableWithItsSchema) {
  TempDir dir;
  const SampleTable table = MixedTable(0, 1);
  const auto path = dir / "empty.parquet";
  ASSERT_TRUE(WriteParquet(table, {}, WriterOptions{}, path).ok());
  const testing::QueryResult q = DuckDb("SELECT count(*), count(DISTINCT column_name) FROM (DESCRIBE "
                                        "SELECT * FROM read_parquet(" + SqlQuote(path.string()) + "))");
  ASSERT_TRUE(q.ok) << q.error;
  EXPECT_EQ(q.rows[0][1], "8") << "all columns are described";
  for (const char* reader : {"hyparquet", "parquet-wasm"}) {
    const ReaderOutput out = ReadWith(reader, path);
    ASSERT_TRUE(out.ok) << reader << ": " << out.error;
    EXPECT_EQ(out.num_rows, 0) << reader;
    EXPECT_TRUE(out.rows.empty()) << reader;
  }
  EXPECT_TRUE(SameRows(table, {}, ReadWithDuckDb(table.schema(), path)));
}

// WriteRows writes the selected rows, in the order given, with repeats; nothing else leaks in.
TEST(PartWriterReaders, OnlyTheSelectedRowsAreWrittenInTheGivenOrder) {
  TempDir dir;
  const SampleTable table = MixedTable(200, 3);
  const std::vector<uint32_t> rows = {150, 3, 3, 199, 0, 42, 43, 44, 45, 46};
  const auto path = dir / "selected.parquet";
  ASSERT_TRUE(WriteParquet(table, rows, WriterOptions{}, path).ok());
  EXPECT_TRUE(SameRows(table, rows, ReadWithDuckDb(table.schema(), path)));
  EXPECT_TRUE(SameRows(table, rows, ReadWith("parquet-wasm", path)));
}

// What DuckDB reports about the file: logical types, field ids, created_by, key/value metadata,
// ZSTD and statistics on every chunk. A wrong annotation silently changes column types.
TEST(PartWriterReaders, DuckDbSeesTypesFieldIdsCreatedByMetadataAndZstdEverywhere) {
  TempDir dir;
  const SampleTable table = MixedTable(1000, 8);
  const auto path = dir / "meta.parquet";
  WriterOptions options;
  options.row_group_rows = 300;
  options.created_by = "sinkd version 1.2.3 (build abc123)";
  ASSERT_TRUE(WriteParquet(table, table.AllRows(), options, path,
                           {{"sinkd.table", "ledger"}, {"sinkd.empty", ""}})
                  .ok());
  const std::string file = SqlQuote(path.string());
  const testing::QueryResult schema = DuckDb(
      "SELECT name, duckdb_type, field_id FROM parquet_schema(" + file + ") WHERE type IS NOT NULL");
  ASSERT_TRUE(schema.ok) << schema.error;
  EXPECT_EQ(schema.rows, (std::vector<std::vector<std::string>>{
                             {"id", "VARCHAR", "1"},
                             {"tenant", "VARCHAR", "2"},
                             {"note", "VARCHAR", "3"},
                             {"count", "INTEGER", "4"},
                             {"amount", "BIGINT", "5"},
                             {"cost", "DOUBLE", "6"},
                             {"flag", "BOOLEAN", "7"},
                             {"ts", "TIMESTAMP WITH TIME ZONE", "8"}}));
  const testing::QueryResult file_meta = DuckDb(
      "SELECT created_by, num_rows, num_row_groups, format_version FROM parquet_file_metadata(" +
      file + ")");
  ASSERT_TRUE(file_meta.ok) << file_meta.error;
  EXPECT_EQ(file_meta.rows, (std::vector<std::vector<std::string>>{
                                {"sinkd version 1.2.3 (build abc123)", "1000", "4", "1"}}));
  const testing::QueryResult kv = DuckDb("SELECT decode(key), decode(value) FROM parquet_kv_metadata(" +
                                         file + ")");
  ASSERT_TRUE(kv.ok) << kv.error;
  EXPECT_EQ(kv.rows, (std::vector<std::vector<std::string>>{{"sinkd.table", "ledger"},
                                                             {"sinkd.empty", ""}}));
  const testing::QueryResult chunks = DuckDb(
      "SELECT count(*), count(*) FILTER (compression = 'ZSTD'), count(stats_null_count), "
      "count(*) FILTER (stats_min_value IS NOT NULL OR path_in_schema = 'cost') FROM "
      "parquet_metadata(" + file + ")");
  ASSERT_TRUE(chunks.ok) << chunks.error;
  EXPECT_EQ(chunks.rows, (std::vector<std::vector<std::string>>{{"32", "32", "32", "32"}}))
      << "4 row groups × 8 columns, every chunk ZSTD with statistics (DuckDB shows no double "
         "bounds when they are infinite)";
}

// DuckDB prunes row groups by min/max. Proof by sabotage: the timestamp pages of row groups 1-9
// are overwritten with garbage, so a query succeeds only if DuckDB never reads them; a query that
// needs them must fail, showing the garbage is noticed when read.
TEST(PartWriterReaders, DuckDbSkipsRowGroupsOnASelectiveTimestampFilter) {
  TempDir dir;
  const SampleTable table = MixedTable(20000, 4);  // ts ascends
  WriterOptions options;
  options.row_group_rows = 2000;
  Result<std::string> bytes = EncodeParquet(table, table.AllRows(), options);
  ASSERT_TRUE(bytes.ok());
  std::string file = *bytes;
  const ThriftValue footer = DecodeFooter(file);
  ASSERT_EQ(footer.List(4).size(), 10u) << "premise: ten row groups";
  for (size_t g = 1; g < 10; ++g) {
    const ThriftValue ts = footer.List(4)[g].List(1)[7][3];
    for (const PageInFile& page : ChunkPages(file, ts)) {
      file.replace(page.payload_offset, page.compressed_bytes, page.compressed_bytes, 'U');
    }
  }
  const auto path = dir / "sabotaged.parquet";
  testing::WriteFile(path, file);
  const std::string scan = "SELECT count(*) FROM read_parquet(" + SqlQuote(path.string()) + ")";
  const std::string bound = "make_timestamp(" + table.Text(7, 10) + ")::TIMESTAMPTZ";
  const testing::QueryResult pruned = DuckDb(scan + " WHERE ts <= " + bound);
  ASSERT_TRUE(pruned.ok) << "DuckDB read a row group its statistics exclude: " << pruned.error;
  EXPECT_EQ(pruned.rows[0][0], "11");
  const testing::QueryResult unpruned = DuckDb(scan + " WHERE ts > " + bound);
  EXPECT_FALSE(unpruned.ok) << "premise: reading a sabotaged row group must fail";
}

// DuckDB's own Bloom probe: every written value may be present; most absent values are excluded.
TEST(PartWriterReaders, DuckDbBloomProbesFindEveryValueAndExcludeMostOthers) {
  TempDir dir;
  const SampleTable table = MixedTable(4000, 6);  // Bloom filters on id and amount
  const auto path = dir / "bloom.parquet";
  WriterOptions options;
  options.row_group_rows = 4000;
  ASSERT_TRUE(WriteParquet(table, table.AllRows(), options, path).ok());
  const std::string file = SqlQuote(path.string());
  std::string present, absent;
  for (size_t r = 0; r < 4000; r += 20) {
    const std::string union_all = present.empty() ? "" : " UNION ALL ";
    present += union_all + "SELECT * FROM parquet_bloom_probe(" + file + ", 'id', " +
               SqlQuote(table.Text(0, r)) + ")";
    present += " UNION ALL SELECT * FROM parquet_bloom_probe(" + file + ", 'amount', " +
               table.Text(4, r) + ")";
    absent += union_all + "SELECT * FROM parquet_bloom_probe(" + file + ", 'id', " +
              SqlQuote(Numbered("no-such-id-", r)) + ")";
  }
  const testing::QueryResult hits =
      DuckDb("SELECT count(*), count(*) FILTER (bloom_filter_excludes) FROM (" + present + ")");
  ASSERT_TRUE(hits.ok) << hits.error;
  EXPECT_EQ(hits.rows[0][0], "400") << "premise: every probe returned a row";
  EXPECT_EQ(hits.rows[0][1], "0") << "a written value was excluded: a false negative";
  const testing::QueryResult misses =
      DuckDb("SELECT count(*) FILTER (bloom_filter_excludes) FROM (" + absent + ")");
  ASSERT_TRUE(misses.ok) << misses.error;
  EXPECT_GE(std::stoi(misses.rows[0][0]), 190) << "fpp 1%: almost every absent id is excluded";
}

// Hive layout, as the lake writes it: DuckDB adds the partition columns from the path.
TEST(PartWriterReaders, DuckDbReadsPartsInAHiveLayout) {
  TempDir dir;
  const SampleTable table = MixedTable(100, 12);
  for (const char* app : {"alpha", "beta"}) {
    const auto path = dir / "date=2026-01-01" / (std::string("app=") + app) / "part-0.parquet";
    std::filesystem::create_directories(path.parent_path());
    ASSERT_TRUE(WriteParquet(table, table.AllRows(), WriterOptions{}, path).ok());
  }
  const testing::QueryResult q = DuckDb(
      "SELECT app, date, count(*), sum(count) FROM read_parquet(" +
      SqlQuote((dir.path() / "*" / "*" / "*.parquet").string()) +
      ", hive_partitioning = true) GROUP BY ALL ORDER BY app");
  ASSERT_TRUE(q.ok) << q.error;
  ASSERT_EQ(q.rows.size(), 2u);
  EXPECT_EQ(q.rows[0][0], "alpha");
  EXPECT_EQ(q.rows[0][1], "2026-01-01");
  EXPECT_EQ(q.rows[0][2], "100");
  EXPECT_EQ(q.rows[1][3], q.rows[0][3]);
}

// The size target: no larger than DuckDB's own `COPY … (FORMAT parquet, COMPRESSION zstd)` of the
// same rows (DuckDB adds Bloom filters to its dictionary columns; ours has none here).
TEST(PartWriterReaders, ALedgerLikeTableIsNoLargerThanDuckDbsOwnZstdCopy) {
  TempDir dir;
  const SampleTable table = LedgerLikeTable(100'000, 7);
  const auto ours = dir / "ours.parquet";
  const auto theirs = dir / "duckdb.parquet";
  ASSERT_TRUE(WriteParquet(table, table.AllRows(), WriterOptions{}, ours).ok());
  const testing::QueryResult copy =
      DuckDb("COPY (FROM read_parquet(" + SqlQuote(ours.string()) + ")) TO " +
             SqlQuote(theirs.string()) + " (FORMAT parquet, COMPRESSION zstd)");
  ASSERT_TRUE(copy.ok) << copy.error;
  const auto our_size = std::filesystem::file_size(ours);
  const auto their_size = std::filesystem::file_size(theirs);
  EXPECT_GT(their_size, 1'000'000u) << "premise: DuckDB wrote the whole table";
  EXPECT_LE(our_size, their_size) << "sinkd " << our_size << " B, DuckDB " << their_size << " B";
  RecordProperty("sinkd_bytes", std::to_string(our_size));
  RecordProperty("duckdb_bytes", std::to_string(their_size));
}

}  // namespace
}  // namespace sinkd::parquet
