#include "partition/partitioner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <tuple>

#include "partition/civil_date.h"
#include "partition/part_schema.h"
#include "row/ledger_columns.h"
#include "support/ledger_rows.h"

namespace sinkd::partition {
namespace {

constexpr int64_t kDay = kMicrosPerDay;
constexpr int64_t k2026_09_29 = 20725 * kDay;  // 2026-09-29T00:00:00Z

// "e<n>", appended piece by piece: gcc 12 warns (-Wrestrict, a false positive) on "e" + string.
std::string EventId(int n) {
  std::string id = "e";
  id += std::to_string(n);
  return id;
}

TEST(CivilDate, DaysFormatAsUtcCalendarDates) {
  EXPECT_EQ(FormatDay(0), "1970-01-01");
  EXPECT_EQ(FormatDay(20725), "2026-09-29");
  EXPECT_EQ(FormatDay(-1), "1969-12-31");
  EXPECT_EQ(FormatDay(11016), "2000-02-29");
  EXPECT_EQ(FormatDay(-719162), "0001-01-01");
  EXPECT_EQ(FormatDay(2932896), "9999-12-31");
  // The last microsecond of a day still belongs to it; an instant before 1970 floors backwards.
  EXPECT_EQ(DayOf(kDay - 1), 0);
  EXPECT_EQ(DayOf(-1), -1);
  EXPECT_EQ(DayOf(-kDay), -1);
  EXPECT_EQ(DayOf(-kDay - 1), -2);
}

// A row dated by ingest time, or by local time, would land in the wrong partition and be missed
// by every date-filtered query.
TEST(Partitioner, RowsAreSplitByUtcDateAndAppAndSortedByTimeThenId) {
  row::RowBuffer batch(row::kLedgerColumns);
  testing::AddLedgerRow(batch, "e3", k2026_09_29 + 30, "svc-b");
  testing::AddLedgerRow(batch, "e2", k2026_09_29 + 20, "svc-a");
  testing::AddLedgerRow(batch, "e1", k2026_09_29 + 20, "svc-a");
  testing::AddLedgerRow(batch, "e4", k2026_09_29 + kDay, "svc-a");  // next UTC day
  testing::AddLedgerRow(batch, "e0", k2026_09_29 - 1, "svc-a");     // the day before
  std::vector<Partition> parts = PartitionRows(batch);
  ASSERT_EQ(parts.size(), 4u);
  EXPECT_EQ(parts[0].date, "2026-09-28");
  EXPECT_EQ(parts[1].date, "2026-09-29");
  EXPECT_EQ(parts[1].values, std::vector<std::string>{"svc-a"});
  EXPECT_EQ(parts[1].rows, (std::vector<uint32_t>{2, 1})) << "same time: sorted by event_id";
  EXPECT_EQ(parts[2].values, std::vector<std::string>{"svc-b"});
  EXPECT_EQ(parts[3].date, "2026-09-30");
  size_t total = 0;
  for (const auto& p : parts) total += p.rows.size();
  EXPECT_EQ(total, batch.rows()) << "every row must land in exactly one partition";
}

// Hundreds of partitions, first seen in no particular order (the numbering grows its table several
// times on the way): they still come out in key order, (date, app) bytewise, each with exactly its
// own rows, as Part numbers and keys depend on that order.
TEST(Partitioner, ManyPartitionsFirstSeenInAnyOrderComeOutInKeyOrderWithTheirOwnRows) {
  row::RowBuffer batch(row::kLedgerColumns);
  constexpr int kDays = 12, kApps = 40, kRounds = 3;
  for (int round = 0; round < kRounds; ++round) {
    for (int i = 0; i < kDays * kApps; ++i) {
      const int k = (i * 7919 + round * 131) % (kDays * kApps);  // a permutation of the keys
      const int day = k / kApps, app = k % kApps;
      testing::AddLedgerRow(batch, EventId(round * 1000 + k), k2026_09_29 + day * kDay + round,
                            "app-" + std::to_string(app));
    }
  }
  std::vector<Partition> parts = PartitionRows(batch);
  ASSERT_EQ(parts.size(), size_t{kDays * kApps});
  const auto& apps = batch.column(3).strings;  // `app`
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) {
      EXPECT_TRUE(std::tie(parts[i - 1].date, parts[i - 1].values) <
                  std::tie(parts[i].date, parts[i].values))
          << "partition " << i << " is out of key order";
    }
    ASSERT_EQ(parts[i].rows.size(), size_t{kRounds}) << parts[i].date << " " << parts[i].values[0];
    for (uint32_t r : parts[i].rows) {
      EXPECT_EQ(FormatDay(DayOf(batch.TimeMicros(r))), parts[i].date);
      EXPECT_EQ(apps.at(r), parts[i].values[0]);
    }
  }
}

// Rows arrive nearly in time order (a few late ones), in order, backwards, or shuffled: each
// partition comes out sorted by (time, event_id), rows equal in both in arrival order. The first
// two sort by insertion, the last two give up on it for a general sort; all must agree with a
// stable sort of the arrival order.
TEST(Partitioner, RowsInAnyArrivalOrderComeOutSortedByTimeThenIdThenArrival) {
  constexpr int kRows = 3000;
  const auto shapes = {"late", "in order", "backwards", "shuffled"};
  for (const std::string shape : shapes) {
    std::vector<int> at(kRows);  // arrival i carries time slot at[i]
    for (int i = 0; i < kRows; ++i) at[i] = i;
    if (shape == "late") {
      for (int i = 7; i + 5 < kRows; i += 11) std::swap(at[i], at[i + 5]);
    } else if (shape == "backwards") {
      std::reverse(at.begin(), at.end());
    } else if (shape == "shuffled") {
      for (int i = kRows - 1; i > 0; --i) std::swap(at[i], at[(i * 7919 + 13) % (i + 1)]);
    }
    row::RowBuffer batch(row::kLedgerColumns);
    for (int i = 0; i < kRows; ++i) {
      // Three rows a microsecond, ids repeating every fourth slot: ties on time and on both.
      testing::AddLedgerRow(batch, EventId(at[i] % 4), k2026_09_29 + at[i] / 3, "svc");
    }
    std::vector<uint32_t> expected(kRows);
    for (uint32_t r = 0; r < kRows; ++r) expected[r] = r;
    const auto& ids = batch.column(0).strings;  // `event_id`
    std::stable_sort(expected.begin(), expected.end(), [&](uint32_t a, uint32_t b) {
      return std::tuple(batch.TimeMicros(a), ids.at(a)) <
             std::tuple(batch.TimeMicros(b), ids.at(b));
    });
    std::vector<Partition> parts = PartitionRows(batch);
    ASSERT_EQ(parts.size(), 1u) << shape;
    EXPECT_EQ(parts[0].rows, expected) << shape;
  }
}

// A flush reorders its batch so that each Part reads its rows in order; the Parts must not notice:
// the same rows, in the same partitions, in the same (time, id) order, and partitioning the
// reordered batch again (a retried flush) must give the same partitions.
TEST(Partitioner, OrderingByPartitionPutsEachPartitionsRowsTogetherAndChangesNoPartition) {
  row::RowBuffer batch(row::kLedgerColumns);
  const char* apps[] = {"svc-c", "svc-a", "svc-b"};
  for (int i = 0; i < 300; ++i) {
    // Arrival order interleaves the apps and runs time backwards within each.
    std::string id = "e";
    id += std::to_string(i);  // not "e" + …: gcc 12 warns falsely (-Wstringop-overflow) on it
    testing::AddLedgerRow(batch, id, k2026_09_29 + (300 - i) * 1000 + (i % 5) * kDay, apps[i % 3]);
  }
  std::vector<Partition> parts = PartitionRows(batch);
  // The ids each partition lists, in its order, before the batch moves.
  std::vector<std::vector<std::string>> ids_before;
  for (const Partition& p : parts) {
    ids_before.emplace_back();
    for (uint32_t r : p.rows) ids_before.back().emplace_back(batch.Id(r));
  }
  WorkPool pool(2);
  ASSERT_TRUE(OrderByPartition(batch, parts, pool));
  uint32_t next = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    ASSERT_EQ(parts[i].rows.size(), ids_before[i].size());
    for (size_t k = 0; k < parts[i].rows.size(); ++k) {
      EXPECT_EQ(parts[i].rows[k], next++) << "partition " << i << " is one run, in order";
      EXPECT_EQ(batch.Id(parts[i].rows[k]), ids_before[i][k]) << "partition " << i << " row " << k;
    }
  }
  EXPECT_EQ(next, batch.rows());
  const std::vector<Partition> again = PartitionRows(batch);
  ASSERT_EQ(again.size(), parts.size());
  for (size_t i = 0; i < parts.size(); ++i) {
    EXPECT_EQ(again[i].date, parts[i].date);
    EXPECT_EQ(again[i].values, parts[i].values);
    EXPECT_EQ(again[i].rows, parts[i].rows);
  }
}

// The file carries every column, the partition one included (its key segment may be shortened;
// the file keeps the exact value), in table order with field ids by position, and the dedupe key
// carries the Bloom filter.
TEST(PartSchema, TheFileHoldsEveryColumnThePartitionOnesIncluded) {
  parquet::Schema schema = FileSchema(row::kLedgerColumns);
  ASSERT_EQ(schema.size(), row::kLedgerColumns.columns.size());
  EXPECT_EQ(schema.front().name, "event_id");
  EXPECT_TRUE(schema.front().bloom_filter);
  EXPECT_EQ(schema[1].annotation, parquet::Annotation::kTimestampMicrosUtc);
  EXPECT_EQ(schema[3].name, "app");
  EXPECT_EQ(schema[3].field_id, 4);
  EXPECT_EQ(schema[3].annotation, parquet::Annotation::kString);
  EXPECT_EQ(schema.back().name, "execution_subject");
  EXPECT_EQ(schema.back().field_id, 40);
  for (const auto& f : schema) EXPECT_NE(f.name, "date") << "time gives the date";
  row::RowBuffer batch(row::kLedgerColumns);
  testing::AddLedgerRow(batch, "e", 0, "a");
  const parquet::TableView view = FileView(batch);
  ASSERT_EQ(view.columns.size(), schema.size());
  EXPECT_EQ(std::get<parquet::StringArray>(view.columns[3]).at(0), "a");
}

}  // namespace
}  // namespace sinkd::partition
