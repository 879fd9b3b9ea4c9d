// ReadFooter: what a Part's footer says (schema, row groups, statistics, metadata), in how many
// reads, and the refusals of files it cannot trust or does not support.
#include <gtest/gtest.h>

#include <cstring>

#include "parquet/part_reader.h"
#include "reader_check.h"
#include "support/support.h"

namespace sinkd::parquet {
namespace {

struct CountingFile {
  std::string bytes;
  int reads = 0;
  ReadAt Reader() {
    return [this](uint64_t offset, uint64_t length) -> Result<std::string> {
      ++reads;
      if (offset > bytes.size()) return std::string();
      return bytes.substr(offset, length);
    };
  }
};

Result<FileFooter> FooterOf(const std::string& bytes, std::string_view name = "t/part.parquet") {
  CountingFile file{bytes};
  return ReadFooter(file.Reader(), bytes.size(), name);
}

TEST(ReadFooter, DescribesAPartSinkdWroteColumnByColumn) {
  const SampleTable t = MixedTable(3000, 7);
  WriterOptions options;
  options.row_group_rows = 1000;
  Result<std::string> bytes =
      EncodeParquet(t, t.AllRows(), options, {{"sinkd.table", "ledger"}, {"k2", "v2"}});
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  Result<FileFooter> footer = FooterOf(*bytes);
  ASSERT_TRUE(footer.ok()) << footer.status().ToString();
  ASSERT_EQ(footer->columns.size(), t.schema().size());
  for (size_t c = 0; c < t.schema().size(); ++c) {
    const Field& f = t.schema()[c];
    EXPECT_EQ(footer->columns[c].name, f.name);
    EXPECT_EQ(footer->columns[c].physical, f.physical) << f.name;
    EXPECT_EQ(footer->columns[c].annotation, f.annotation) << f.name;
    EXPECT_EQ(footer->columns[c].field_id, f.field_id) << f.name;
    EXPECT_FALSE(footer->columns[c].optional) << f.name;
  }
  EXPECT_EQ(footer->rows, 3000u);
  ASSERT_EQ(footer->row_groups.size(), 3u);
  uint64_t compressed = 0;
  for (const RowGroupInfo& g : footer->row_groups) {
    EXPECT_EQ(g.rows, 1000u);
    ASSERT_EQ(g.columns.size(), t.schema().size());
    for (const ColumnChunkInfo& c : g.columns) {
      EXPECT_EQ(c.values, 1000u);
      EXPECT_EQ(c.null_count, 0u);
      EXPECT_GT(c.compressed_bytes, 0u);
      EXPECT_TRUE(c.min && c.max);
    }
    compressed += g.compressed_bytes;
  }
  EXPECT_GT(compressed, 0u);
  EXPECT_LT(compressed, bytes->size());
  // int32 `count` of the first row group: min/max are PLAIN little-endian int32s.
  int32_t lo, hi, want_lo = INT32_MAX, want_hi = INT32_MIN;
  ASSERT_EQ(footer->row_groups[0].columns[3].min->size(), 4u);
  std::memcpy(&lo, footer->row_groups[0].columns[3].min->data(), 4);
  std::memcpy(&hi, footer->row_groups[0].columns[3].max->data(), 4);
  for (size_t r = 0; r < 1000; ++r) {
    const int32_t v = std::stoi(t.Text(3, r));
    want_lo = std::min(want_lo, v);
    want_hi = std::max(want_hi, v);
  }
  EXPECT_EQ(lo, want_lo);
  EXPECT_EQ(hi, want_hi);
  ASSERT_EQ(footer->metadata.size(), 2u);
  EXPECT_EQ(footer->metadata[0], (KeyValue{"sinkd.table", "ledger"}));
  EXPECT_EQ(footer->metadata[1], (KeyValue{"k2", "v2"}));
  EXPECT_EQ(footer->Find("k2"), std::optional<std::string_view>("v2"));
  EXPECT_EQ(footer->Find("absent"), std::nullopt);
  EXPECT_NE(footer->created_by.find("sinkd"), std::string::npos) << footer->created_by;
}

TEST(ReadFooter, TakesOneReadWhenTheFooterIsInTheLast64KiBAndTwoOtherwise) {
  const SampleTable t = MixedTable(200, 1);
  Result<std::string> small = EncodeParquet(t, t.AllRows(), {});
  ASSERT_TRUE(small.ok());
  CountingFile a{*small};
  ASSERT_TRUE(ReadFooter(a.Reader(), a.bytes.size(), "a").ok());
  EXPECT_EQ(a.reads, 1);

  Result<std::string> big = EncodeParquet(t, t.AllRows(), {}, {{"big", std::string(100'000, 'b')}});
  ASSERT_TRUE(big.ok());
  CountingFile b{*big};
  Result<FileFooter> footer = ReadFooter(b.Reader(), b.bytes.size(), "b");
  ASSERT_TRUE(footer.ok()) << footer.status().ToString();
  EXPECT_EQ(b.reads, 2);
  EXPECT_EQ(footer->Find("big")->size(), 100'000u);
}

TEST(ReadFooter, ReadsAZeroRowPart) {
  const SampleTable t = MixedTable(0, 1);
  Result<FileFooter> footer = FooterOf(EncodeAll(t));
  ASSERT_TRUE(footer.ok()) << footer.status().ToString();
  EXPECT_EQ(footer->rows, 0u);
  EXPECT_EQ(footer->columns.size(), t.schema().size());
}

TEST(ReadFooter, DescribesDuckDbsOptionalColumnsAndTimestampWithoutTimeZone) {
  testing::TempDir dir;
  const std::string file = (dir / "duck.parquet").string();
  const testing::QueryResult q = testing::DuckDb(
      {"CREATE TABLE ev AS SELECT 'e' || i AS event_id, TIMESTAMP '2026-01-01' + INTERVAL (i) "
       "SECOND AS time, CAST(i AS BIGINT) AS input_tokens, CAST(i AS INTEGER) AS chain_depth, "
       "i % 2 = 0 AS flag, (i * 0.5)::DOUBLE AS cost, CASE WHEN i % 3 = 0 THEN NULL ELSE 'x' END AS note "
       "FROM range(1000) t(i)",
       "COPY ev TO " + testing::SqlQuote(file) + " (FORMAT parquet, COMPRESSION zstd)",
       "SELECT 1"});
  ASSERT_TRUE(q.ok) << q.error;
  Result<FileFooter> footer = FooterOf(testing::ReadFile(file));
  ASSERT_TRUE(footer.ok()) << footer.status().ToString();
  ASSERT_EQ(footer->columns.size(), 7u);
  const ColumnInfo& time = footer->columns[1];
  EXPECT_EQ(time.name, "time");
  EXPECT_EQ(time.physical, PhysicalType::kInt64);
  EXPECT_EQ(time.annotation, Annotation::kTimestampMicrosNaive);
  EXPECT_EQ(footer->columns[0].annotation, Annotation::kString);
  EXPECT_EQ(footer->columns[2].annotation, Annotation::kNone);
  EXPECT_EQ(footer->columns[3].physical, PhysicalType::kInt32);
  EXPECT_EQ(footer->columns[4].physical, PhysicalType::kBoolean);
  EXPECT_EQ(footer->columns[5].physical, PhysicalType::kDouble);
  for (const ColumnInfo& c : footer->columns) EXPECT_TRUE(c.optional) << c.name;
  EXPECT_EQ(footer->rows, 1000u);
  EXPECT_EQ(footer->row_groups[0].columns[6].null_count, 334u);
  EXPECT_NE(footer->created_by.find("DuckDB"), std::string::npos);
}

TEST(ReadFooter, RefusesDuckDbColumnsOfTypesItDoesNotRead) {
  testing::TempDir dir;
  const struct {
    const char* select;
    const char* says;
  } cases[] = {
      {"SELECT 1.5::FLOAT AS f", "column f: physical type FLOAT is not supported"},
      {"SELECT {'a': 1} AS s", "column s: nested columns are not supported"},
      {"SELECT [1, 2] AS l", "nested columns are not supported"},
      {"SELECT DATE '2026-01-01' AS d", "column d: DATE on INT32 is not supported"},
      {"SELECT 1::SMALLINT AS i", "column i: INT_16 on INT32 is not supported"},
      {"SELECT 1::UBIGINT AS u", "column u: UINT_64 on INT64 is not supported"},
      {"SELECT 1.25::DECIMAL(10,2) AS m", "column m:"},
      {"SELECT TIMESTAMP_NS '2026-01-01' AS n", "column n: TIMESTAMP in NANOS is not supported"},
  };
  for (const auto& c : cases) {
    const std::string file = (dir / "f.parquet").string();
    const testing::QueryResult q = testing::DuckDb(
        {std::string("COPY (") + c.select + ") TO " + testing::SqlQuote(file) +
             " (FORMAT parquet, COMPRESSION zstd)",
         "SELECT 1"});
    ASSERT_TRUE(q.ok) << q.error;
    Result<FileFooter> footer = FooterOf(testing::ReadFile(file), "lake/f.parquet");
    ASSERT_FALSE(footer.ok()) << c.select;
    EXPECT_TRUE(footer.status().IsRefuse()) << footer.status().ToString();
    EXPECT_NE(footer.status().message().find("lake/f.parquet: "), std::string::npos)
        << footer.status().message();
    EXPECT_NE(footer.status().message().find(c.says), std::string::npos)
        << c.select << ": " << footer.status().message();
  }
}

TEST(ReadFooter, RefusesEveryTruncationNamingTheFile) {
  const SampleTable t = MixedTable(50, 3);
  const std::string bytes = EncodeAll(t);
  ASSERT_FALSE(bytes.empty());
  for (size_t n = 0; n < bytes.size(); ++n) {
    Result<FileFooter> footer = FooterOf(bytes.substr(0, n), "ledger/part-x.parquet");
    ASSERT_FALSE(footer.ok()) << "cut at " << n;
    EXPECT_TRUE(footer.status().IsRefuse()) << footer.status().ToString();
    EXPECT_EQ(footer.status().message().rfind("ledger/part-x.parquet: ", 0), 0u)
        << footer.status().message();
  }
}

TEST(ReadFooter, SaysWhereTheFooterLengthPointsWhenItPointsPastTheFile) {
  std::string bytes = EncodeAll(MixedTable(10, 3));
  const uint32_t length = static_cast<uint32_t>(bytes.size() + 400);
  std::memcpy(bytes.data() + bytes.size() - 8, &length, 4);
  Result<FileFooter> footer = FooterOf(bytes, "p.parquet");
  ASSERT_FALSE(footer.ok());
  EXPECT_EQ(footer.status().message(),
            "p.parquet: truncated: footer length " + std::to_string(length) +
                " past the file's " + std::to_string(bytes.size()) + " bytes");
}

TEST(ReadFooter, RefusesEveryCorruptedFooterByteOrReadsItConsistently) {
  // Flipping any byte of the FileMetaData either gives a refusal or a footer that still checks
  // out (a changed statistic, a name): never a crash. Run under ASan in the sanitizer suite.
  const std::string bytes = EncodeAll(MixedTable(20, 5));
  uint32_t length;
  std::memcpy(&length, bytes.data() + bytes.size() - 8, 4);
  size_t refused = 0;
  for (size_t at = bytes.size() - 8 - length; at < bytes.size(); ++at) {
    for (const uint8_t flip : {0x01, 0x80, 0xFF}) {
      std::string bad = bytes;
      bad[at] = static_cast<char>(bad[at] ^ flip);
      Result<FileFooter> footer = FooterOf(bad);
      if (!footer.ok()) {
        ++refused;
        EXPECT_TRUE(footer.status().IsRefuse()) << footer.status().ToString();
      }
    }
  }
  EXPECT_GT(refused, 0u);
}

TEST(ReadFooter, PassesOnTheReadersOwnErrorWithTheFileName) {
  const ReadAt failing = [](uint64_t, uint64_t) -> Result<std::string> {
    return Status::Retry("s3: 503 Slow Down");
  };
  Result<FileFooter> footer = ReadFooter(failing, 1000, "ledger/a.parquet");
  ASSERT_FALSE(footer.ok());
  EXPECT_TRUE(footer.status().IsRetry());
  EXPECT_EQ(footer.status().message(), "ledger/a.parquet: s3: 503 Slow Down");
}

TEST(ReadFooter, RefusesAFileThatIsNotParquet) {
  Result<FileFooter> footer = FooterOf(std::string(100, 'x'), "x.parquet");
  ASSERT_FALSE(footer.ok());
  EXPECT_EQ(footer.status().message(), "x.parquet: not a Parquet file (no PAR1 at its end)");
}

}  // namespace
}  // namespace sinkd::parquet
