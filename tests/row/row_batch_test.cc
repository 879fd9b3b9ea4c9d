// A string column's offsets are 32-bit: a column filled to kMaxColumnBytes keeps every value, and
// one pushed past it never wraps (a wrapped offset would hand later rows another row's bytes).
// The column really is driven to 4 GiB - 1 here, with a few hundred large values: the test needs
// ~4 GiB of memory and a few seconds.
#include "row/row_batch.h"

#include <gtest/gtest.h>

namespace sinkd::row {
namespace {

TEST(RowBatch, AStringColumnFillsToItsOffsetLimitAndAValuePastItNeverWraps) {
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

}  // namespace
}  // namespace sinkd::row
