// RowBudget: merges running at once share a bound on decoded rows; one merge larger than the
// bound still runs, alone.
#include "compact/row_budget.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace sinkd::compact {
namespace {

TEST(RowBudget, LeasesThatFitTogetherAreHeldAtOnce) {
  RowBudget budget(100);
  RowBudget::Lease a = budget.Acquire(40);
  RowBudget::Lease b = budget.Acquire(60);
  EXPECT_EQ(a.rows(), 40u);
  EXPECT_EQ(b.rows(), 60u);
  EXPECT_EQ(budget.peak_leases(), 2u);
  EXPECT_EQ(budget.peak_rows(), 100u);
}

TEST(RowBudget, ARequestLargerThanTheBudgetIsCutToItAndDoesNotWaitAlone) {
  RowBudget budget(100);
  RowBudget::Lease big = budget.Acquire(1'000'000);
  EXPECT_EQ(big.rows(), 100u);
  big.Release();
  RowBudget::Lease again = budget.Acquire(100);
  EXPECT_EQ(again.rows(), 100u);
  EXPECT_EQ(budget.peak_leases(), 1u);
}

TEST(RowBudget, ALeaseThatDoesNotFitWaitsUntilTheOneHeldIsReleased) {
  RowBudget budget(100);
  RowBudget::Lease first = budget.Acquire(70);
  std::atomic<bool> second_held{false};
  std::thread other([&] {
    RowBudget::Lease second = budget.Acquire(50);
    second_held = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_FALSE(second_held.load()) << "70 + 50 rows were held at once in a budget of 100";
  first.Release();
  other.join();
  EXPECT_TRUE(second_held.load());
  EXPECT_EQ(budget.peak_leases(), 1u);
  EXPECT_EQ(budget.peak_rows(), 70u);
}

TEST(RowBudget, AMovedLeaseIsReleasedOnce) {
  RowBudget budget(100);
  {
    RowBudget::Lease a = budget.Acquire(100);
    RowBudget::Lease b = std::move(a);
    EXPECT_EQ(a.rows(), 0u);  // NOLINT(bugprone-use-after-move): moved-from is empty
    EXPECT_EQ(b.rows(), 100u);
  }
  RowBudget::Lease c = budget.Acquire(100);  // would wait forever had the budget leaked
  EXPECT_EQ(c.rows(), 100u);
}

}  // namespace
}  // namespace sinkd::compact
