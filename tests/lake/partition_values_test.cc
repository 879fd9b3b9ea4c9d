// Partition values must never be lost: a value whose key segment fits a directory name is in the
// key exactly, one past it is shortened there, and every Part holds the exact value as a column.
// Read back with DuckDB, as users read the lake.
#include <gtest/gtest.h>

#include "lake/dir_destination.h"
#include "lake/lake_writer.h"
#include "row/ledger_columns.h"
#include "support/ledger_rows.h"
#include "support/support.h"
#include "table/key.h"

namespace sinkd::lake {
namespace {

using sinkd::testing::DuckDb;
using sinkd::testing::SqlQuote;
using sinkd::testing::TempDir;

constexpr int64_t k2026_09_29 = int64_t{20725} * 86'400'000'000;

std::string Glob(const TempDir& tmp) {
  return SqlQuote((tmp.path() / "ledger" / "**" / "*.parquet").string());
}

// Writes e1 (app = 251 bytes: `app=` + 251 is exactly 255), e2 (300 bytes, past it) and e3 ("a/b").
void WriteThree(const TempDir& tmp, const std::string& exact, const std::string& past) {
  auto dest = DirDestination::Make(tmp.path().string());
  ASSERT_TRUE(dest.ok()) << dest.status().ToString();
  ASSERT_TRUE((*dest)->Ensure().ok());
  LakeWriterOptions options;
  options.key_prefix = "ledger";
  options.instance = "box-1";
  LakeWriter writer(**dest, options);
  row::RowBuffer batch(row::kLedgerColumns);
  testing::AddLedgerRow(batch, "e1", k2026_09_29, exact);
  testing::AddLedgerRow(batch, "e2", k2026_09_29, past);
  testing::AddLedgerRow(batch, "e3", k2026_09_29, "a/b");
  auto report = writer.Flush(batch, Provenance{"test", 1, 3});
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_EQ(report->parts.size(), 3u);
}

TEST(PartitionValues, AValueThatFitsADirectoryNameReadsBackExactlyThroughThePath) {
  TempDir tmp;
  const std::string exact(251, 'n'), past(300, 'p');
  WriteThree(tmp, exact, past);
  auto read = DuckDb("SELECT event_id, app FROM read_parquet(" + Glob(tmp) +
                     ", hive_partitioning=true, hive_types={'app': 'VARCHAR'}) ORDER BY event_id");
  ASSERT_TRUE(read.ok) << read.error;
  ASSERT_EQ(read.rows.size(), 3u);
  EXPECT_EQ(read.rows[0][1], exact) << "a 251-byte app must not be shortened";
  EXPECT_NE(read.rows[1][1], past) << "300 bytes do not fit a directory name: the path is shortened";
  EXPECT_EQ(read.rows[1][1].size(), table::kMaxSegmentBytes - 4);
  EXPECT_EQ(read.rows[2][1], "a/b");
}

TEST(PartitionValues, EveryPartHoldsTheExactValueEvenWhenItsPathIsShortened) {
  TempDir tmp;
  const std::string exact(251, 'n'), past(300, 'p');
  WriteThree(tmp, exact, past);
  auto read = DuckDb("SELECT event_id, app FROM read_parquet(" + Glob(tmp) +
                     ", hive_partitioning=false) ORDER BY event_id");
  ASSERT_TRUE(read.ok) << read.error;
  ASSERT_EQ(read.rows.size(), 3u);
  EXPECT_EQ(read.rows[0][1], exact);
  EXPECT_EQ(read.rows[1][1], past) << "the file must keep what the key could not";
  EXPECT_EQ(read.rows[2][1], "a/b");
  auto meta = DuckDb("SELECT DISTINCT value FROM parquet_kv_metadata(" + Glob(tmp) +
                     ") WHERE key = 'sinkd.schema_version'");
  ASSERT_TRUE(meta.ok) << meta.error;
  ASSERT_EQ(meta.rows.size(), 1u);
  EXPECT_EQ(meta.rows[0][0], "2");
}

// Parts written before `app` was inside the file (schema version 1) read side by side with newer
// ones under the README's query: union_by_name, and the path gives both their app.
TEST(PartitionValues, OlderPartsWithoutThePartitionColumnReadAlongsideNewOnes) {
  TempDir tmp;
  const std::string exact(251, 'n'), past(300, 'p');
  WriteThree(tmp, exact, past);
  const std::string old_dir = (tmp.path() / "ledger/date=2026-09-29/app=old").string();
  std::filesystem::create_directories(old_dir);
  const std::string from = (tmp.path() / "ledger/date=2026-09-29/app=a%2Fb/*.parquet").string();
  auto copy = DuckDb("COPY (SELECT * EXCLUDE (app) REPLACE ('e0' AS event_id) FROM read_parquet(" +
                     SqlQuote(from) + ", hive_partitioning=false)) TO " +
                     SqlQuote(old_dir + "/part-old-1-1-0.parquet") + " (FORMAT parquet)");
  ASSERT_TRUE(copy.ok) << copy.error;
  auto read = DuckDb("SELECT event_id, app FROM read_parquet(" + Glob(tmp) +
                     ", hive_partitioning=true, union_by_name=true) ORDER BY event_id");
  ASSERT_TRUE(read.ok) << read.error;
  ASSERT_EQ(read.rows.size(), 4u);
  EXPECT_EQ(read.rows[0], (std::vector<std::string>{"e0", "old"}));
  EXPECT_EQ(read.rows[1], (std::vector<std::string>{"e1", exact}));
  EXPECT_EQ(read.rows[3], (std::vector<std::string>{"e3", "a/b"}));
}

}  // namespace
}  // namespace sinkd::lake
