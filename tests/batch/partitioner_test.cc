#include "batch/partitioner.h"

#include <gtest/gtest.h>

#include "batch/civil_date.h"
#include "batch/part_schema.h"
#include "batch/partitioned_rows.h"
#include "row/ledger_columns.h"

namespace sinkd::batch {
namespace {

constexpr int64_t kDay = kMicrosPerDay;
constexpr int64_t k2026_09_29 = 20725 * kDay;  // 2026-09-29T00:00:00Z

// Appends a ledger row with the given id, time and app; every other column gets its zero value.
void AddRow(row::RowBatch& batch, std::string_view id, int64_t micros, std::string_view app) {
  const auto& columns = batch.table().columns;
  for (size_t i = 0; i < columns.size(); ++i) {
    row::ColumnBuffer& c = batch.column(static_cast<int>(i));
    switch (c.type) {
      case row::ColumnType::kString:
        c.strings.push_back(columns[i].name == "event_id" ? id
                            : columns[i].name == "app"    ? app
                                                          : std::string_view());
        break;
      case row::ColumnType::kTimestamp: c.int64s.push_back(micros); break;
      case row::ColumnType::kInt64: c.int64s.push_back(0); break;
      case row::ColumnType::kInt32: c.int32s.push_back(0); break;
      case row::ColumnType::kDouble: c.doubles.push_back(0); break;
      case row::ColumnType::kBool: c.bools.push_back(0); break;
    }
  }
  batch.CommitRow();
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
  row::RowBatch batch(row::kLedgerColumns);
  AddRow(batch, "e3", k2026_09_29 + 30, "svc-b");
  AddRow(batch, "e2", k2026_09_29 + 20, "svc-a");
  AddRow(batch, "e1", k2026_09_29 + 20, "svc-a");
  AddRow(batch, "e4", k2026_09_29 + kDay, "svc-a");  // next UTC day
  AddRow(batch, "e0", k2026_09_29 - 1, "svc-a");     // the day before
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
  row::RowBatch batch(row::kLedgerColumns);
  AddRow(batch, "e", 0, "a");
  const parquet::TableView view = FileView(batch);
  ASSERT_EQ(view.columns.size(), schema.size());
  EXPECT_EQ(std::get<parquet::StringArray>(view.columns[3]).at(0), "a");
}

void Route(PartitionedRows& rows, std::string_view id, int64_t micros, std::string_view app) {
  const std::string_view values[] = {app};
  AddRow(rows.BatchFor(micros, values), id, micros, app);
}

std::vector<std::string> Ids(const row::RowBatch& batch) {
  std::vector<std::string> ids;
  for (size_t r = 0; r < batch.rows(); ++r) ids.emplace_back(batch.Id(r));
  return ids;
}

TEST(PartitionedRows, EachRowGoesToTheBatchOfItsDateAndAppInArrivalOrder) {
  PartitionedRows rows(row::kLedgerColumns);
  Route(rows, "a", k2026_09_29 + 5, "pay");
  Route(rows, "b", k2026_09_29 + 1, "pay");
  Route(rows, "c", k2026_09_29 + kDay, "pay");  // the next day: another partition
  Route(rows, "d", k2026_09_29 + 2, "shop");
  Route(rows, "e", k2026_09_29 - 1, "pay");  // the day before
  Route(rows, "f", k2026_09_29 + 3, "pay");
  ASSERT_EQ(rows.rows(), 6u);
  ASSERT_EQ(rows.partitions(), 4u);
  EXPECT_EQ(rows.day(0), 20725);
  EXPECT_EQ(rows.values(0)[0], "pay");
  EXPECT_EQ(Ids(rows.batch(0)), (std::vector<std::string>{"a", "b", "f"}));
  EXPECT_EQ(rows.day(1), 20726);
  EXPECT_EQ(Ids(rows.batch(1)), (std::vector<std::string>{"c"}));
  EXPECT_EQ(rows.values(2)[0], "shop");
  EXPECT_EQ(rows.day(3), 20724);
  EXPECT_GT(rows.bytes(), 0u);
  rows.Clear();
  EXPECT_TRUE(rows.empty());
  EXPECT_EQ(rows.partitions(), 0u);
  EXPECT_EQ(rows.bytes(), 0u);
}

// What the flush encodes: the same partitions, in the same order, with the same rows in the same
// sorted order as PartitionRows gives for the rows in one batch (ties in arrival order).
TEST(PartitionedRows, PartitionsComeOutOrderedAndSortedAsThoseOfOneBatchOfTheSameRows) {
  row::RowBatch flat(row::kLedgerColumns);
  struct In { const char* id; int64_t micros; const char* app; };
  const In in[] = {
      {"z", k2026_09_29 + 9, "shop"}, {"y", k2026_09_29 + 9, "pay"}, {"x", k2026_09_29 + 1, "pay"},
      {"w", k2026_09_29 + 9, "pay"},  {"w", k2026_09_29 + 9, "pay"}, {"v", k2026_09_29 - 7, "pay"},
      {"u", k2026_09_29 + 1, "auth"}, {"t", k2026_09_29 + 3, "pay"}, {"s", k2026_09_29 + 3, "auth"},
  };
  for (const In& r : in) AddRow(flat, r.id, r.micros, r.app);
  // Routed two ways: row by row as a decoder does, and copied from the flat batch.
  PartitionedRows routed(row::kLedgerColumns), copied(row::kLedgerColumns);
  for (const In& r : in) Route(routed, r.id, r.micros, r.app);
  copied.AppendRows(flat, 0, 4);
  copied.AppendRows(flat, 4, flat.rows() - 4);
  const std::vector<Partition> want = PartitionRows(flat);
  for (const PartitionedRows* rows : {&routed, &copied}) {
    ASSERT_EQ(rows->rows(), flat.rows());
    const std::vector<Partition> got = PartitionRows(*rows);
    ASSERT_EQ(got.size(), want.size());
    for (size_t p = 0; p < want.size(); ++p) {
      EXPECT_EQ(got[p].date, want[p].date) << p;
      EXPECT_EQ(got[p].values, want[p].values) << p;
      const row::RowBatch& batch = rows->batch(got[p].source);
      ASSERT_EQ(got[p].rows.size(), want[p].rows.size()) << p;
      for (size_t i = 0; i < want[p].rows.size(); ++i) {
        EXPECT_EQ(batch.Id(got[p].rows[i]), flat.Id(want[p].rows[i])) << p << " row " << i;
        EXPECT_EQ(batch.TimeMicros(got[p].rows[i]), flat.TimeMicros(want[p].rows[i]));
      }
    }
  }
  EXPECT_EQ(want.front().date, "2026-09-28") << "the premise: partitions out of arrival order";
}

}  // namespace
}  // namespace sinkd::batch
