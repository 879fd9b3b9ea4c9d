#include "base/result.h"
#include "base/status.h"

#include <gtest/gtest.h>

namespace sinkd {
namespace {

// An OK status must cost nothing and say nothing; an error must keep its code through context.
TEST(Status, AnErrorKeepsItsCodeWhenContextIsAdded) {
  Status s = Status::Redeliver("disk full").WithContext("place ledger/x.parquet");
  EXPECT_TRUE(s.IsRedeliver()) << "context must not change the settle decision";
  EXPECT_EQ(s.message(), "place ledger/x.parquet: disk full");
  EXPECT_TRUE(Status::OK().WithContext("ignored").ok());
  EXPECT_EQ(Status::OK().ToString(), "OK");
}

TEST(Status, ResultHoldsAValueOrAnErrorNeverBoth) {
  Result<int> good = 7;
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, 7);
  Result<int> bad = Status::Refuse("no destination");
  ASSERT_FALSE(bad.ok());
  EXPECT_TRUE(bad.status().IsRefuse());
}

}  // namespace
}  // namespace sinkd
