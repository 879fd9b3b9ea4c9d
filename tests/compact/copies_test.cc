// What compaction treats as copies of one record: rows of one event_id in the ledger, rows of one
// outbox position (`sequence`) in the outbox tables, whose ids are the producer's: audit rows
// with an empty or a repeated id are distinct records and all of them stay.
#include <gtest/gtest.h>

#include "compact/compact_test_util.h"
#include "compact/compactor.h"
#include "compact/merge.h"
#include "row/outbox_columns.h"

namespace sinkd::compact {
namespace {

using namespace testutil;  // NOLINT
using sinkd::testing::DuckDb;
using sinkd::testing::SqlQuote;
using sinkd::testing::TempDir;

struct AuditRow {
  std::string id;
  int64_t seq = 0;  // the position is "7:<seq>"
};

// One flush of the outbox audit lake sink's shape: every column filled from the position, so two
// rows of one position are byte-identical, as a redelivery's are.
void FlushAudit(lake::Destination& lake, const std::vector<AuditRow>& rows, uint64_t first) {
  const row::ColumnTable& table = row::kOutboxAuditColumns;
  row::RowBuffer batch(table);
  for (const AuditRow& r : rows) {
    const std::string position = "7:" + std::to_string(r.seq);
    for (size_t c = 0; c < table.columns.size(); ++c) {
      row::ColumnBuffer& col = batch.column(static_cast<int>(c));
      const std::string_view name = table.columns[c].name;
      if (table.columns[c].type == row::ColumnType::kTimestamp) {
        col.int64s.push_back(kDayMicros + r.seq % 3);
      } else if (name == "event_id") {
        col.strings.push_back(r.id);
      } else if (name == "sequence") {
        col.strings.push_back(position);
      } else {
        col.strings.push_back(std::string(name) + "@" + position);
      }
    }
    batch.CommitRow();
  }
  lake::LakeWriterOptions options;
  options.key_prefix = "outbox_audit";
  options.instance = "box-1";
  options.parquet.created_by = "sinkd version 0.0.0 (build test)";
  lake::LakeWriter writer(lake, options);
  lake::Provenance provenance{"outbox", first, first + rows.size() - 1};
  provenance.scope = "outbox";
  auto report = writer.Flush(batch, provenance);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
}

// Five distinct audit records (three with id '', two sharing "aud_x") in two flushes, the
// second redelivering positions 2 and 4.
void WriteAuditLake(lake::Destination& lake) {
  FlushAudit(lake, {{"", 1}, {"", 2}, {"aud_x", 3}}, 1);
  FlushAudit(lake, {{"", 2}, {"aud_x", 3}, {"", 4}, {"aud_x", 5}}, 2);
}

std::string AuditGlob(const fs::path& root, const std::string& name = "*.parquet") {
  return "read_parquet(" + SqlQuote((root / "outbox_audit/**" / name).string()) +
         ", hive_partitioning=false)";
}

TEST(CompactCopies, OutboxAuditRowsWithAnEmptyOrSharedIdAllStayAndOnlyCopiesOfAPositionGo) {
  TempDir dir;
  auto lake = DirLake(dir.path());
  WriteAuditLake(*lake);
  int64_t now = kDayMs + 26 * kHourMs;  // the date closed
  CompactOptions options = Options([&] { return now; });
  options.table = &row::kOutboxAuditColumns;
  options.prefix = "outbox_audit";
  options.grace_ms = 0;
  Compactor compactor(*lake, options);
  auto first = compactor.RunPass({});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->outputs, 1u);
  EXPECT_EQ(first->rows_in, 7u);
  EXPECT_EQ(first->rows_out, 5u);
  EXPECT_EQ(first->duplicates_dropped, 2u);
  now = RealNowMs() + 1000;
  auto second = compactor.RunPass({});
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(second->inputs_deleted, 2u);
  ASSERT_EQ(Files(dir.path()).size(), 1u);
  auto rows = DuckDb("SELECT string_agg(sequence || '=' || event_id, ',' ORDER BY sequence) FROM " +
                     AuditGlob(dir.path()));
  ASSERT_TRUE(rows.ok) << rows.error;
  EXPECT_EQ(rows.rows[0][0], "7:1=,7:2=,7:3=aud_x,7:4=,7:5=aud_x");
}

TEST(CompactCopies, ASplitOutboxMergeCountsItsRowsByPositionSoNoneIsCutOff) {
  TempDir dir;
  auto lake = DirLake(dir.path());
  // Many positions, few ids: a count of distinct ids would give the outputs room for 3 rows.
  for (int k = 0; k < 4; ++k) {
    std::vector<AuditRow> rows;
    for (int i = 0; i < 2000; ++i) rows.push_back({i % 3 == 0 ? "" : "aud_" + std::to_string(i % 2),
                                                   k * 2000 + i + 1});
    FlushAudit(*lake, rows, static_cast<uint64_t>(k) * 2000 + 1);
  }
  FlushAudit(*lake, {{"", 1}, {"", 8000}}, 9000);  // two copies
  MergeSpec spec;
  spec.table = &row::kOutboxAuditColumns;
  spec.partition = "outbox_audit/date=2026-09-22";
  auto listed = lake->List(spec.partition + "/");
  ASSERT_TRUE(listed.ok());
  uint64_t total = 0;
  for (const auto& o : *listed) {
    spec.inputs.push_back({o.key, o.size, o.version});
    total += o.size;
  }
  spec.target_bytes = total / 3;
  spec.parquet = lake::LakePartOptions();
  auto merged = Merge(*lake, spec, nullptr);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  ASSERT_GE(merged->outputs.size(), 2u);
  EXPECT_EQ(merged->counts.rows_out, 8000u);
  auto q = DuckDb("SELECT count(*), count(DISTINCT sequence) FROM " +
                  AuditGlob(dir.path(), "compact-*.parquet"));
  ASSERT_TRUE(q.ok) << q.error;
  EXPECT_EQ(q.rows[0][0], "8000");
  EXPECT_EQ(q.rows[0][1], "8000");
}

}  // namespace
}  // namespace sinkd::compact
