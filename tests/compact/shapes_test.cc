// Parts of other shapes merge where every column keeps its meaning: a Part without
// execution_subject gives NULL (never ''), DuckDB's Parts of the Go sink's lake (TIMESTAMP without
// time zone, OPTIONAL columns, no `app` inside, unsorted) become our shape with every row equal.
#include <gtest/gtest.h>

#include "compact/compact_test_util.h"
#include "compact/compactor.h"

namespace sinkd::compact {
namespace {

using namespace testutil;  // NOLINT
using sinkd::testing::DuckDb;
using sinkd::testing::SqlQuote;
using sinkd::testing::TempDir;

std::string Quoted(const fs::path& p) { return SqlQuote(p.string()); }

TEST(CompactShapes, APartWithoutExecutionSubjectContributesNullNeverEmpty) {
  TempDir dir, scratch;
  auto lake = DirLake(dir.path());
  Flush(*lake, {{"new-1", kDayMicros + 1}, {"new-2", kDayMicros + 2}}, 1);
  auto other = DirLake(scratch.path());
  Flush(*other, {{"old-1", kDayMicros + 3}, {"old-2", kDayMicros + 4}, {"new-1", kDayMicros}}, 50,
        "old");
  const auto old_parts = Files(scratch.path());
  ASSERT_EQ(old_parts.size(), 1u);
  const fs::path old_key = dir / "ledger/date=2026-09-22/app=svc/part-old-50-52-0.parquet";
  auto copied = DuckDb("COPY (SELECT * EXCLUDE (execution_subject) FROM read_parquet(" +
                       Quoted(scratch / old_parts[0]) + ", hive_partitioning=false)) TO " + Quoted(old_key) +
                       " (FORMAT parquet, COMPRESSION zstd)");
  ASSERT_TRUE(copied.ok) << copied.error;

  int64_t now = kDayMs + 26 * kHourMs;
  Compactor compactor(*lake, Options([&] { return now; }));
  auto pass = compactor.RunPass({});
  ASSERT_TRUE(pass.ok()) << pass.status().ToString();
  ASSERT_EQ(pass->outputs, 1u);
  const fs::path output = dir / Outputs(dir.path()).at(0);
  auto rows = DuckDb("SELECT event_id, coalesce(execution_subject, '<null>') FROM read_parquet(" +
                     Quoted(output) + ") ORDER BY event_id");
  ASSERT_TRUE(rows.ok) << rows.error;
  ASSERT_EQ(rows.rows.size(), 4u);
  // new-1 came from both: the old Part's row is earlier, so it is the one kept, with its NULL.
  EXPECT_EQ(rows.rows[0], (std::vector<std::string>{"new-1", "<null>"}));
  EXPECT_EQ(rows.rows[1], (std::vector<std::string>{"new-2", ""}));
  EXPECT_EQ(rows.rows[2], (std::vector<std::string>{"old-1", "<null>"}));
  EXPECT_EQ(rows.rows[3], (std::vector<std::string>{"old-2", "<null>"}));
  auto schema = DuckDb("SELECT name, repetition_type FROM parquet_schema(" + Quoted(output) +
                       ") WHERE name IN ('execution_subject', 'tenant') ORDER BY name");
  ASSERT_TRUE(schema.ok) << schema.error;
  EXPECT_EQ(schema.rows[0], (std::vector<std::string>{"execution_subject", "OPTIONAL"}));
  EXPECT_EQ(schema.rows[1], (std::vector<std::string>{"tenant", "REQUIRED"}))
      << "a column every input fills stays REQUIRED, DuckDB's OPTIONAL notwithstanding";
}

// The Go sink's DDL: the ledger's columns with DuckDB types, TIMESTAMP without time zone, and
// `date` for the partitioning. `with_subject` false is a pre-v0.7.0 lake.
std::string GoTable(bool with_subject) {
  std::string ddl = "CREATE TABLE ev (";
  for (const row::ColumnSpec& c : row::kLedgerColumns.columns) {
    if (c.name == "execution_subject" && !with_subject) continue;
    ddl += std::string(c.name) + " ";
    switch (c.type) {
      case row::ColumnType::kString: ddl += "VARCHAR, "; break;
      case row::ColumnType::kTimestamp: ddl += "TIMESTAMP, "; break;
      case row::ColumnType::kInt64: ddl += "BIGINT, "; break;
      case row::ColumnType::kInt32: ddl += "INTEGER, "; break;
      case row::ColumnType::kDouble: ddl += "DOUBLE, "; break;
      case row::ColumnType::kBool: ddl += "BOOLEAN, "; break;
    }
  }
  return ddl + "date DATE)";
}

// Rows i in [from, to) as the Go sink writes them, in a shuffled order; ids repeat every
// `repeat` rows one minute later (a redelivery).
std::string GoInsert(int from, int to, int repeat, bool with_subject) {
  std::string select = "INSERT INTO ev SELECT ";
  for (const row::ColumnSpec& c : row::kLedgerColumns.columns) {
    const std::string n(c.name);
    if (n == "execution_subject" && !with_subject) continue;
    if (n == "event_id") {
      select += "'go-' || (i % " + std::to_string(repeat) + "), ";
    } else if (n == "time") {
      select += "TIMESTAMP '2026-09-22 00:00:00' + to_seconds((i % " + std::to_string(repeat) +
                ") * 7 + (i // " + std::to_string(repeat) + ") * 60), ";
    } else if (n == "app") {
      // An event's app is the event's: the same id lands in the same partition.
      select += "CASE WHEN (i % " + std::to_string(repeat) + ") % 3 = 0 THEN 'svc' ELSE 'web b' END, ";
    } else if (n == "tags_json") {
      select += "'{\"k\":\"' || i || '\"}', ";
    } else {
      switch (c.type) {
        case row::ColumnType::kString: select += "'" + n + "-' || i, "; break;
        case row::ColumnType::kTimestamp: select += "NULL, "; break;
        case row::ColumnType::kInt64: select += "i::BIGINT * 3, "; break;
        case row::ColumnType::kInt32: select += "(i % 7)::INTEGER, "; break;
        case row::ColumnType::kDouble: select += "i * 0.125, "; break;
        case row::ColumnType::kBool: select += "i % 2 = 0, "; break;
      }
    }
  }
  return select + "DATE '2026-09-22' FROM range(" + std::to_string(from) + ", " +
         std::to_string(to) + ") t(i) ORDER BY hash(i)";
}

// Writes one Go flush with DuckDB and moves its files into `lake` under the Go sink's names.
void WriteGoFlush(const fs::path& lake, const fs::path& scratch, int from, int to, int repeat,
                  bool with_subject, int flush) {
  const fs::path out = scratch / ("flush-" + std::to_string(flush));
  auto r = DuckDb({GoTable(with_subject), GoInsert(from, to, repeat, with_subject),
                   "COPY (SELECT * FROM ev) TO " + Quoted(out) +
                       " (FORMAT PARQUET, COMPRESSION ZSTD, PARTITION_BY (date, app), "
                       "OVERWRITE_OR_IGNORE)"});
  ASSERT_TRUE(r.ok) << r.error;
  int n = 0;
  for (const std::string& f : Files(out)) {
    const fs::path to_path = lake / "ledger" / fs::path(f).parent_path() /
                             ("part-go-" + std::to_string(from) + "-" + std::to_string(to) + "-" +
                              std::to_string(n++) + ".parquet");
    fs::create_directories(to_path.parent_path());
    fs::rename(out / f, to_path);
  }
}

std::string Columns(bool epoch) {
  std::string out;
  for (const row::ColumnSpec& c : row::kLedgerColumns.columns) {
    if (!out.empty()) out += ", ";
    out += c.name == "time" && epoch ? std::string("epoch_us(time) AS time") : std::string(c.name);
  }
  return out + ", date";
}

TEST(CompactShapes, TheGoSinksLakeCompactsIntoOurShapeWithEveryRowEqual) {
  TempDir dir, scratch, original;
  WriteGoFlush(dir.path(), scratch.path(), 0, 300, 200, /*with_subject=*/false, 0);
  WriteGoFlush(dir.path(), scratch.path(), 300, 700, 250, /*with_subject=*/true, 1);
  fs::copy(dir.path(), original.path(), fs::copy_options::recursive |
                                            fs::copy_options::overwrite_existing);
  ASSERT_EQ(Files(dir.path()).size(), 4u) << "premise: two flushes over two apps";
  auto lake = DirLake(dir.path());
  int64_t now = kDayMs + 26 * kHourMs;
  Compactor compactor(*lake, Options([&] { return now; }));
  auto pass = compactor.RunPass({});
  ASSERT_TRUE(pass.ok()) << pass.status().ToString();
  EXPECT_EQ(pass->outputs, 2u);
  EXPECT_GT(pass->duplicates_dropped, 0u);

  const std::string go = "read_parquet(" + Quoted(original / "ledger/**/*.parquet") +
                         ", hive_partitioning=true, union_by_name=true)";
  const std::string ours = "read_parquet(" + Quoted(dir / "ledger/**/compact-*.parquet") +
                           ", hive_partitioning=true)";
  const std::string deduped = "(SELECT " + Columns(true) + " FROM " + go +
                              " QUALIFY row_number() OVER (PARTITION BY event_id ORDER BY time) = 1)";
  const std::string compacted = "(SELECT " + Columns(true) + " FROM " + ours + ")";
  auto q = DuckDb("SELECT (SELECT count(*) FROM " + deduped + "), (SELECT count(*) FROM " +
                  compacted + "), (SELECT count(*) FROM (SELECT * FROM " + deduped +
                  " EXCEPT ALL SELECT * FROM " + compacted + ")), (SELECT count(*) FROM (SELECT * FROM " +
                  compacted + " EXCEPT ALL SELECT * FROM " + deduped + "))");
  ASSERT_TRUE(q.ok) << q.error;
  EXPECT_EQ(q.rows[0][0], "250") << "premise: 250 distinct ids";
  EXPECT_EQ(q.rows[0][1], "250");
  EXPECT_EQ(q.rows[0][2], "0") << "rows the dedupe query keeps that the compacted lake lacks";
  EXPECT_EQ(q.rows[0][3], "0") << "rows the compacted lake holds that the dedupe query does not";

  // Our shape: UTC timestamps, `app` inside the file, REQUIRED where every row has a value.
  const fs::path output = dir / Outputs(dir.path()).at(0);
  auto schema = DuckDb("SELECT name, repetition_type, logical_type::VARCHAR, field_id FROM "
                       "parquet_schema(" + Quoted(output) + ") WHERE name IN ('time', 'app', "
                       "'execution_subject') ORDER BY name");
  ASSERT_TRUE(schema.ok) << schema.error;
  ASSERT_EQ(schema.rows.size(), 3u);
  EXPECT_EQ(schema.rows[0][0], "app");
  EXPECT_EQ(schema.rows[0][1], "REQUIRED");
  EXPECT_EQ(schema.rows[1][0], "execution_subject");
  EXPECT_EQ(schema.rows[1][1], "OPTIONAL") << "pre-v0.7.0 rows: NULL";
  EXPECT_EQ(schema.rows[2][0], "time");
  EXPECT_NE(schema.rows[2][2].find("isAdjustedToUTC=1"), std::string::npos) << schema.rows[2][2];
  EXPECT_EQ(schema.rows[2][3], "2");
}

}  // namespace
}  // namespace sinkd::compact
