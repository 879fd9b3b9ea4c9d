// PartitionCap counts what PartitionRows would make Parts of (the day, then each partition column)
// as rows come, and has room for exactly `max` of them.
#include "partition/partition_cap.h"

#include <gtest/gtest.h>

#include <string>

#include "partition/civil_date.h"
#include "partition/partitioner.h"
#include "row/ledger_columns.h"
#include "support/ledger_rows.h"

namespace sinkd::partition {
namespace {

// The day is a partition as much as the app (a publisher controls both): one app over three days
// is three partitions, and with room for two the third day is refused while rows of the first
// two still fit. Rolled back, the partitions counted since are forgotten, so the refused day
// fits again.
TEST(PartitionCap, DaysAndAppsBothCountAndTheCapHasRoomForExactlyMax) {
  constexpr int64_t kNoon = 20725 * kMicrosPerDay + kMicrosPerDay / 2;
  row::RowBuffer batch(row::kLedgerColumns);
  PartitionCap cap(row::kLedgerColumns, 2);
  testing::AddLedgerRow(batch, "e", kNoon, "svc");
  testing::AddLedgerRow(batch, "e", kNoon + kMicrosPerDay, "svc");
  testing::AddLedgerRow(batch, "e", kNoon + 2 * kMicrosPerDay, "svc");
  testing::AddLedgerRow(batch, "e", kNoon + 1, "svc");
  testing::AddLedgerRow(batch, "e", kNoon, "other");
  EXPECT_TRUE(cap.Take(batch, 0));
  EXPECT_TRUE(cap.Take(batch, 1));
  EXPECT_TRUE(cap.full());
  EXPECT_FALSE(cap.Take(batch, 2)) << "a third day is a third partition";
  EXPECT_TRUE(cap.Take(batch, 3)) << "the first day again: no new partition";
  EXPECT_FALSE(cap.Take(batch, 4)) << "another app on the first day is a new partition";
  EXPECT_EQ(cap.partitions(), 2u);
  EXPECT_EQ(PartitionRows(batch).size(), 4u) << "what the cap counts is what PartitionRows makes";
  cap.RollBack(1);
  EXPECT_EQ(cap.partitions(), 1u);
  EXPECT_TRUE(cap.Take(batch, 2)) << "room again for one more";
  EXPECT_FALSE(cap.Take(batch, 1));
  cap.Clear();
  EXPECT_EQ(cap.partitions(), 0u);
  PartitionCap none(row::kLedgerColumns, 0);
  for (size_t r = 0; r < batch.rows(); ++r) EXPECT_TRUE(none.Take(batch, r)) << "0: no cap";
  EXPECT_EQ(none.partitions(), 0u);
}

}  // namespace
}  // namespace sinkd::partition
