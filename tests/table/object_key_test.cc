// Keys read back into partitions: only the table's partition directories are objects; dead
// letters, temporary files and foreign layouts never are.
#include <gtest/gtest.h>

#include "row/ledger_columns.h"
#include "row/outbox_columns.h"
#include "table/key.h"

namespace sinkd::table {
namespace {

TEST(ObjectKey, APartKeyReadsBackIntoItsPartition) {
  auto k = ParseObjectKey(row::kLedgerColumns, "ledger",
                          "ledger/date=2026-09-22/app=svc%2Fa/part-box-1-2-0.parquet");
  ASSERT_TRUE(k);
  EXPECT_EQ(k->partition, "ledger/date=2026-09-22/app=svc%2Fa");
  EXPECT_EQ(k->date, "2026-09-22");
  EXPECT_EQ(k->values, (std::vector<std::string>{"svc/a"}));
  EXPECT_TRUE(k->exact);
  EXPECT_FALSE(k->output);
  auto o = ParseObjectKey(row::kLedgerColumns, "ledger",
                          "ledger/date=2026-09-22/app=a/compact-0123456789abcdef0123456789abcdef.parquet");
  ASSERT_TRUE(o);
  EXPECT_TRUE(o->output);
}

TEST(ObjectKey, WhatIsNotAPartitionObjectIsNotTheCompactorsToTouch) {
  for (const char* key : {"dead-letters/ledger/dead-x-1-2.jsonl",
                          "ledger/date=2026-09-22/app=a/part-1.parquet.incomplete",
                          "ledger/date=2026-09-22/part-1.parquet",
                          "ledger/date=2026-09-22/app=a/extra/part-1.parquet",
                          "ledger/date=2026-13-01/app=a/part-1.parquet",
                          "ledger/date=2026-02-30/app=a/part-1.parquet",
                          "ledger/date=2026-09-22/tenant=a/part-1.parquet",
                          "ledger/date=2026-09-22/app=a/.hidden.parquet",
                          "ledger/date=2026-09-22/app=a/notes.txt",
                          "ledgers/date=2026-09-22/app=a/part-1.parquet"}) {
    EXPECT_FALSE(ParseObjectKey(row::kLedgerColumns, "ledger", key)) << key;
  }
  EXPECT_TRUE(ParseObjectKey(row::kOutboxEventColumns, "outbox",
                             "outbox/date=2026-09-22/type=a.b/part-1.parquet"));
  EXPECT_TRUE(ParseObjectKey(row::kOutboxAuditColumns, "audit",
                             "audit/date=2026-09-22/part-1.parquet"));
}

TEST(ObjectKey, AShortenedSegmentIsMarkedInexact) {
  const std::string segment = PartitionSegment("app", std::string(300, 'x'));
  auto k = ParseObjectKey(row::kLedgerColumns, "ledger",
                          "ledger/date=2026-09-22/" + segment + "/part-1.parquet");
  ASSERT_TRUE(k);
  EXPECT_FALSE(k->exact);
}

TEST(ObjectKey, ADatesEndIsMidnightUtcOfTheNextDay) {
  EXPECT_EQ(DateEndUnixMs("1970-01-01"), 86'400'000);
  EXPECT_EQ(DateEndUnixMs("2026-09-22"), int64_t{1790121600000});
  EXPECT_FALSE(DateEndUnixMs("2026-9-22"));
}

}  // namespace
}  // namespace sinkd::table
