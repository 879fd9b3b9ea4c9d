// The tiered policy: small Parts merge at min_parts, outputs wait for the date to close, full
// objects stay, a closed date gathers everything below full.
#include "compact/policy.h"

#include <gtest/gtest.h>

namespace sinkd::compact {
namespace {

constexpr uint64_t kTarget = 256ull << 20;

std::vector<Candidate> Parts(int n, uint64_t size, const std::string& prefix = "part-") {
  std::vector<Candidate> out;
  for (int i = 0; i < n; ++i) {
    out.push_back(Candidate{prefix + std::to_string(100 + i) + ".parquet", size,
                            prefix.rfind("compact-", 0) == 0});
  }
  return out;
}

TEST(Policy, SmallPartsOfAnOpenDateWaitForMinParts) {
  EXPECT_TRUE(PlanMerges(Parts(7, 1 << 20), {kTarget, 8, false}).empty());
  auto plan = PlanMerges(Parts(8, 1 << 20), {kTarget, 8, false});
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_EQ(plan[0].size(), 8u);
}

TEST(Policy, AClosedDateMergesItsSmallPartsWhateverTheirNumber) {
  auto plan = PlanMerges(Parts(2, 1 << 20), {kTarget, 8, true});
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_EQ(plan[0].size(), 2u);
  // A lone Part of a closed date is still planned: Merge decides whether it holds anything to
  // deduplicate or reshape (compactor_test's demo-shaped lake), or is left as it is.
  EXPECT_EQ(PlanMerges(Parts(1, 1 << 20), {kTarget, 8, true}).size(), 1u);
}

TEST(Policy, OutputsAtTheTargetSizeStay) {
  auto live = Parts(3, kTarget, "compact-");
  EXPECT_TRUE(PlanMerges(live, {kTarget, 8, true}).empty());
  EXPECT_TRUE(PlanMerges(live, {kTarget, 2, false}).empty());
}

TEST(Policy, OutputsBelowTargetWaitForTheDateToClose) {
  auto live = Parts(7, 8 << 20, "compact-");
  EXPECT_TRUE(PlanMerges(live, {kTarget, 8, false}).empty());
  auto plan = PlanMerges(live, {kTarget, 8, true});
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_EQ(plan[0].size(), 7u);
  // A single output below target on a closed date has nothing to merge with.
  EXPECT_TRUE(PlanMerges(Parts(1, 8 << 20, "compact-"), {kTarget, 8, true}).empty());
}

TEST(Policy, LatePartsOfAClosedDateMergeWithTheOutputsBelowTargetButNotWithFullOnes) {
  std::vector<Candidate> live = {{"compact-a.parquet", kTarget, true},
                                 {"compact-b.parquet", 10 << 20, true},
                                 {"part-late.parquet", 1 << 20, false}};
  auto plan = PlanMerges(live, {kTarget, 8, true});
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_EQ(plan[0], (std::vector<size_t>{1, 2}));
}

TEST(Policy, AnOpenDatesOutputsMergeOnlyAsABacklogOfMinPartsSquared) {
  EXPECT_TRUE(PlanMerges(Parts(15, 1 << 16, "compact-"), {kTarget, 4, false}).empty());
  EXPECT_FALSE(PlanMerges(Parts(16, 1 << 16, "compact-"), {kTarget, 4, false}).empty());
}

TEST(Policy, ABacklogBecomesSeveralMergesWithinTheReadBudget) {
  auto plan = PlanMerges(Parts(20, 50 << 20), {kTarget, 8, true});
  ASSERT_GE(plan.size(), 2u);
  size_t total = 0;
  for (const auto& merge : plan) {
    EXPECT_GE(merge.size(), 2u);
    total += merge.size();
  }
  EXPECT_EQ(total, 20u);
}

TEST(Policy, AMergeReadsAtMostTwiceTheTargetSoItsIdSetStaysBounded) {
  const uint64_t target = 20ull << 20;
  auto plan = PlanMerges(Parts(12, 9ull << 20), {target, 8, true});
  ASSERT_EQ(plan.size(), 3u);
  for (const auto& merge : plan) EXPECT_LE(merge.size() * (9ull << 20), 2 * target);
}

}  // namespace
}  // namespace sinkd::compact
