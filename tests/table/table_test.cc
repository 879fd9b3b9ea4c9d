// The catalogue: every table sinkd writes, its columns and its partition spec.
#include <gtest/gtest.h>

#include "row/ledger_columns.h"
#include "row/outbox_columns.h"
#include "table/table.h"

namespace sinkd::table {
namespace {

TEST(Table, TheCatalogueNamesEveryTableWithItsColumnsAndWriter) {
  EXPECT_EQ(TableNames(), (std::vector<std::string>{"ledger", "audit", "outbox_events",
                                                    "outbox_audit"}));
  EXPECT_EQ(TableNames(Writer::kStream), (std::vector<std::string>{"ledger", "audit"}));
  EXPECT_EQ(TableNames(Writer::kOutbox),
            (std::vector<std::string>{"outbox_events", "outbox_audit"}));
  ASSERT_NE(FindTable("audit"), nullptr);
  EXPECT_EQ(FindTable("audit")->columns, &row::kLedgerColumns);
  EXPECT_EQ(FindTable("outbox_events")->columns, &row::kOutboxEventColumns);
  EXPECT_EQ(FindTable("outbox_audit")->columns, &row::kOutboxAuditColumns);
  EXPECT_EQ(FindTable("ledgers"), nullptr);
}

// The spec is the key's segments in order: the day of `time` as `date`, then each partition
// column as it is.
TEST(Table, APartitionSpecIsTheDayOfTimeThenEachPartitionColumn) {
  auto ledger = PartitionSpec(row::kLedgerColumns);
  ASSERT_EQ(ledger.size(), 2u);
  EXPECT_EQ(ledger[0].name, "date");
  EXPECT_EQ(ledger[0].source_column, row::kLedgerColumns.time_column);
  EXPECT_EQ(ledger[0].transform, Transform::kDay);
  EXPECT_EQ(ledger[1].name, "app");
  EXPECT_EQ(ledger[1].source_column, row::ColumnIndex(row::kLedgerColumns, "app"));
  EXPECT_EQ(ledger[1].transform, Transform::kIdentity);
  auto events = PartitionSpec(row::kOutboxEventColumns);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1].name, "type");
  auto audit = PartitionSpec(row::kOutboxAuditColumns);
  ASSERT_EQ(audit.size(), 1u);
  EXPECT_EQ(audit[0].source_column, row::kOutboxAuditColumns.time_column);
}

}  // namespace
}  // namespace sinkd::table
