// A string column's offsets are 32-bit: a column filled to kMaxColumnBytes keeps every value, and
// one pushed past it never wraps (a wrapped offset would hand later rows another row's bytes).
// The column really is driven to 4 GiB - 1 here, with a few hundred large values: the test needs
// ~4 GiB of memory and a few seconds.
#include "row/row_buffer.h"

#include <gtest/gtest.h>

namespace sinkd::row {
namespace {

TEST(RowBuffer, AStringColumnFillsToItsOffsetLimitAndAValuePastItNeverWraps) {
  const std::string chunk(size_t{16} << 20, 'z');
  StringBuffer column;
  column.bytes.reserve(kMaxColumnBytes + 16);  // one allocation, not a doubling to 8 GiB
  column.push_back("first");
  while (column.bytes.size() + chunk.size() <= kMaxColumnBytes) column.push_back(chunk);
  const size_t left = kMaxColumnBytes - column.bytes.size();
  column.push_back(std::string_view(chunk).substr(0, left));
  const size_t last = column.size() - 1;
  EXPECT_EQ(column.bytes.size(), kMaxColumnBytes);
  EXPECT_EQ(column.offsets.back(), UINT32_MAX) << "exactly at the limit: every value addressed";
  EXPECT_FALSE(column.overflowed());
  EXPECT_EQ(column.at(last).size(), left);
  EXPECT_EQ(column.at(last - 1), chunk);
  column.push_back("past");
  column.push_back("next");
  EXPECT_TRUE(column.overflowed());
  EXPECT_EQ(column.offsets[last + 2], UINT32_MAX) << "the offset must not wrap to 3";
  EXPECT_TRUE(column.at(last + 1).empty());
  EXPECT_TRUE(column.at(last + 2).empty()) << "a value past the limit must not read another's "
                                              "bytes (a wrapped offset reads \"stzz\" here)";
  EXPECT_EQ(column.at(0), "first");
  EXPECT_EQ(column.size(), last + 3);
}

// A table of every column type, so one reorder test covers each buffer kind.
constexpr ColumnSpec kMixedSpecs[] = {
    {.name = "id", .type = ColumnType::kString},
    {.name = "time", .type = ColumnType::kTimestamp},
    {.name = "count", .type = ColumnType::kInt32},
    {.name = "total", .type = ColumnType::kInt64},
    {.name = "cost", .type = ColumnType::kDouble},
    {.name = "flag", .type = ColumnType::kBool},
    {.name = "note", .type = ColumnType::kString},
};
constexpr ColumnTable kMixed{.name = "mixed", .columns = kMixedSpecs, .time_column = 1,
                             .id_column = 0, .schema_version = 1};

void AddMixedRow(RowBuffer& batch, int i) {
  batch.column(0).strings.push_back("id-" + std::string(static_cast<size_t>(i % 7), 'x') +
                                    std::to_string(i));
  batch.column(1).int64s.push_back(1'000'000 + i);
  batch.column(2).int32s.push_back(-i);
  batch.column(3).int64s.push_back(int64_t{i} << 33);
  batch.column(4).doubles.push_back(i + 0.25);
  batch.column(5).bools.push_back(i % 3 == 0);
  batch.column(6).strings.push_back(i % 4 == 0 ? std::string() : std::string(40 + i, 'n'));
  batch.CommitRow();
}

// Every buffer of every column of a kMixed batch, compared value for value.
void ExpectSameColumns(const RowBuffer& batch, const RowBuffer& expected) {
  ASSERT_EQ(batch.rows(), expected.rows());
  for (int c : {0, 6}) {
    EXPECT_EQ(batch.column(c).strings.bytes, expected.column(c).strings.bytes) << "column " << c;
    EXPECT_EQ(batch.column(c).strings.offsets, expected.column(c).strings.offsets) << "column " << c;
  }
  EXPECT_EQ(batch.column(1).int64s, expected.column(1).int64s);
  EXPECT_EQ(batch.column(2).int32s, expected.column(2).int32s);
  EXPECT_EQ(batch.column(3).int64s, expected.column(3).int64s);
  EXPECT_EQ(batch.column(4).doubles, expected.column(4).doubles);
  EXPECT_EQ(batch.column(5).bools, expected.column(5).bools);
}

// Reordering is how a flush puts each Part's rows together; a value left behind or moved with
// another row's neighbours would put it in another row, or another Part.
TEST(RowBuffer, ReorderingEveryColumnMovesEachRowWholeToItsPosition) {
  constexpr int kRows = 1000;
  RowBuffer batch(kMixed);
  RowBuffer expected(kMixed);
  for (int i = 0; i < kRows; ++i) AddMixedRow(batch, i);
  // Row r goes to (r * 337) % 1000, a permutation since 337 and 1000 are coprime.
  std::vector<uint32_t> position(kRows);
  std::vector<int> at(kRows);
  for (int r = 0; r < kRows; ++r) {
    position[r] = static_cast<uint32_t>((r * 337) % kRows);
    at[position[r]] = r;
  }
  for (int p = 0; p < kRows; ++p) AddMixedRow(expected, at[p]);
  ReorderScratch scratch;
  for (size_t c = 0; c < kMixed.columns.size(); ++c) batch.ReorderColumn(c, position, scratch);
  ASSERT_EQ(batch.rows(), expected.rows());
  ExpectSameColumns(batch, expected);
  EXPECT_EQ(batch.bytes(), expected.bytes());
  // The scratch keeps its memory for the next batch, and reordering back restores the original.
  std::vector<uint32_t> back(kRows);
  for (int r = 0; r < kRows; ++r) back[position[r]] = static_cast<uint32_t>(r);
  for (size_t c = 0; c < kMixed.columns.size(); ++c) batch.ReorderColumn(c, back, scratch);
  EXPECT_EQ(batch.Id(0), "id-0");
  EXPECT_EQ(batch.Id(999), "id-xxxxx999");
  EXPECT_EQ(batch.column(6).strings.at(1), std::string(41, 'n'));
}

// The batch's buffers are reused after Clear(); a reorder that handed a column a smaller buffer
// would make the next batch grow it again (a copy and fresh pages for every column). String bytes
// stay in their own buffer; values and offsets may change buffers, never to a smaller one.
TEST(RowBuffer, ReorderingLeavesNoColumnWithLessRoomThanItHad) {
  RowBuffer batch(kMixed);
  for (int i = 0; i < 100; ++i) AddMixedRow(batch, i);
  const char* note = batch.column(6).strings.bytes.data();
  // Elements a column's values and offsets can hold without growing.
  const auto room = [&](size_t c) {
    const ColumnBuffer& b = batch.column(static_cast<int>(c));
    return b.strings.offsets.capacity() + b.int64s.capacity() + b.int32s.capacity() +
           b.doubles.capacity() + b.bools.capacity();
  };
  std::vector<size_t> before;
  for (size_t c = 0; c < kMixed.columns.size(); ++c) before.push_back(room(c));
  std::vector<uint32_t> reversed(100);
  for (uint32_t r = 0; r < 100; ++r) reversed[r] = 99 - r;
  ReorderScratch scratch;  // empty, as a pool slot's is before its first column
  for (size_t c = 0; c < kMixed.columns.size(); ++c) batch.ReorderColumn(c, reversed, scratch);
  EXPECT_EQ(batch.column(6).strings.bytes.data(), note);
  for (size_t c = 0; c < kMixed.columns.size(); ++c) {
    EXPECT_GE(room(c), before[c]) << "column " << c << " came back with less room";
  }
  EXPECT_EQ(batch.Id(0), "id-x99");
}

// A decoder that refuses a message whole after reading part of it takes its rows back; a value
// left behind in any column would shift every later row of that column by one.
TEST(RowBuffer, TruncatingDropsTheLastRowsFromEveryColumnAndLaterRowsFollowTheKeptOnes) {
  RowBuffer batch(kMixed);
  RowBuffer expected(kMixed);
  for (int i = 0; i < 10; ++i) AddMixedRow(batch, i);
  for (int i = 0; i < 6; ++i) AddMixedRow(expected, i);
  batch.TruncateRows(6);
  ASSERT_EQ(batch.rows(), 6u);
  EXPECT_EQ(batch.bytes(), expected.bytes());
  AddMixedRow(batch, 42);
  AddMixedRow(expected, 42);
  ExpectSameColumns(batch, expected);
  EXPECT_EQ(batch.Id(6), "id-42");
  batch.TruncateRows(0);
  EXPECT_TRUE(batch.empty());
  EXPECT_EQ(batch.bytes(), RowBuffer(kMixed).bytes());
}

// A column of empty strings only (a batch where no event set a field) has no bytes at all: its
// reorder must not touch the (absent) buffers. UBSan caught a memcpy from a null pointer here.
TEST(RowBuffer, ReorderingAColumnOfOnlyEmptyStringsLeavesItEmpty) {
  RowBuffer batch(kMixed);
  for (int i = 0; i < 3; ++i) AddMixedRow(batch, i * 4);  // every note is empty
  ASSERT_EQ(batch.column(6).strings.bytes.size(), 0u);
  const std::vector<uint32_t> position = {2, 0, 1};
  ReorderScratch scratch;
  for (size_t c = 0; c < kMixed.columns.size(); ++c) batch.ReorderColumn(c, position, scratch);
  EXPECT_EQ(batch.column(6).strings.offsets, (std::vector<uint32_t>{0, 0, 0, 0}));
  EXPECT_EQ(batch.Id(0), "id-xxxx4");
  EXPECT_EQ(batch.Id(2), "id-0");
}

}  // namespace
}  // namespace sinkd::row
