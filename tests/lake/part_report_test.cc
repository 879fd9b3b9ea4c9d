// A flush's report describes each Part as a table commit needs it — rows, the exact partition,
// the footer's statistics — whether the Part was encoded ahead in memory, streamed row group by
// row group, or found in place by a redelivery: an Iceberg manifest entry is built from it and
// the Part is never read again.
#include <gtest/gtest.h>

#include <cstring>

#include "lake/dir_destination.h"
#include "lake/lake_writer.h"
#include "support/ledger_rows.h"
#include "support/support.h"

namespace sinkd::lake {
namespace {

// The Part's rows as DuckDB reads them: count, its app, its date, the time column's min and max.
std::vector<std::string> PartAsDuckDbReadsIt(const std::filesystem::path& file) {
  const testing::QueryResult r = testing::DuckDb(
      "SELECT count(*), min(app), max(app), strftime(min(time), '%Y-%m-%d'), "
      "epoch_us(min(time)), epoch_us(max(time)) FROM read_parquet(" +
      testing::SqlQuote(file.string()) + ", hive_partitioning=false)");
  EXPECT_TRUE(r.ok) << r.error;
  return r.ok && !r.rows.empty() ? r.rows[0] : std::vector<std::string>{};
}

int64_t Int64Bound(const std::optional<std::string>& bytes) {
  int64_t v = 0;
  EXPECT_TRUE(bytes && bytes->size() == 8);
  if (bytes && bytes->size() == 8) std::memcpy(&v, bytes->data(), 8);
  return v;
}

TEST(PartReport, EveryPartCarriesItsPartitionAndTheWritersStatisticsAheadStreamedOrInPlace) {
  testing::TempDir tmp;
  auto made = DirDestination::Make(tmp.path().string());
  ASSERT_TRUE(made.ok());
  ASSERT_TRUE((*made)->Ensure().ok());
  LakeWriterOptions options;
  options.key_prefix = "ledger";
  options.instance = "box-1";
  options.parquet.row_group_rows = 40;  // the large Part streams, the small ones go ahead
  LakeWriter writer(**made, options);

  row::RowBuffer rows(row::kLedgerColumns);
  const int time = row::ColumnIndex(row::kLedgerColumns, "time");
  for (int i = 0; i < 130; ++i) {
    std::string app = "big";
    if (i >= 100) app = "small-" + std::to_string(i % 3);
    testing::AddLedgerRow(rows, "evt-" + std::to_string(i),
                          1'767'225'600'000'000 + int64_t{1'000'000} * i,
                          app);  // 2026-01-01
  }
  for (int round = 0; round < 2; ++round) {  // the second finds every Part in place
    Result<FlushReport> report = writer.Flush(rows, {"GARM_LEDGER", 1, 130});
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    ASSERT_EQ(report->parts.size(), 4u);
    for (const PartReport& p : report->parts) {
      EXPECT_EQ(p.found_in_place, round == 1) << p.key;
      const std::vector<std::string> duck = PartAsDuckDbReadsIt(tmp.path() / p.key);
      ASSERT_EQ(duck.size(), 6u);
      EXPECT_EQ(std::to_string(p.rows), duck[0]) << p.key;
      EXPECT_EQ(p.statistics.rows, p.rows) << p.key;
      ASSERT_EQ(p.values.size(), 1u);
      EXPECT_EQ(p.values[0], duck[1]) << p.key;
      EXPECT_EQ(p.date, duck[3]) << p.key;
      ASSERT_EQ(p.statistics.columns.size(), row::kLedgerColumns.columns.size()) << p.key;
      const parquet::ColumnSummary& t = p.statistics.columns[time];
      EXPECT_EQ(t.field_id, time + 1);
      EXPECT_EQ(std::to_string(Int64Bound(t.min)), duck[4]) << p.key;
      EXPECT_EQ(std::to_string(Int64Bound(t.max)), duck[5]) << p.key;
      EXPECT_EQ(p.statistics.row_group_offsets.size(), (p.rows + 39) / 40) << p.key;
    }
  }
}

}  // namespace
}  // namespace sinkd::lake
