// The grace rule: superseded objects go only once the output naming them is grace old, oldest
// first, and only within the output's own partition.
#include "compact/grace.h"

#include <gtest/gtest.h>

namespace sinkd::compact {
namespace {

TEST(Grace, NothingIsDueBeforeTheOutputIsGraceOld) {
  std::vector<lake::StoredObject> objects = {{"l/date=2026-01-01/app=a/compact-x.parquet", 9, 5000},
                                             {"l/date=2026-01-01/app=a/part-1.parquet", 9, 1000},
                                             {"l/date=2026-01-01/app=a/part-2.parquet", 9, 2000}};
  std::map<std::string, std::vector<std::string>> supersedes = {
      {"l/date=2026-01-01/app=a/compact-x.parquet",
       {"l/date=2026-01-01/app=a/part-1.parquet", "l/date=2026-01-01/app=a/part-2.parquet"}}};
  GracePlan early = PlanDeletions({&objects, &supersedes, 5000 + 999, 1000});
  EXPECT_TRUE(early.due.empty());
  EXPECT_EQ(early.superseded.size(), 2u);
  GracePlan later = PlanDeletions({&objects, &supersedes, 5000 + 1000, 1000});
  EXPECT_EQ(later.due, (std::vector<std::string>{"l/date=2026-01-01/app=a/part-1.parquet",
                                                 "l/date=2026-01-01/app=a/part-2.parquet"}));
}

TEST(Grace, AnOutputNeverDeletesItselfNorAnotherPartitionsObjects) {
  std::vector<lake::StoredObject> objects = {{"l/date=2026-01-01/app=a/compact-x.parquet", 9, 0},
                                             {"l/date=2026-01-01/app=b/part-1.parquet", 9, 0}};
  std::map<std::string, std::vector<std::string>> supersedes = {
      {"l/date=2026-01-01/app=a/compact-x.parquet",
       {"l/date=2026-01-01/app=a/compact-x.parquet", "l/date=2026-01-01/app=b/part-1.parquet"}}};
  GracePlan plan = PlanDeletions({&objects, &supersedes, 1'000'000, 0});
  EXPECT_TRUE(plan.due.empty());
  EXPECT_TRUE(plan.superseded.empty());
}

TEST(Grace, AnOutputThatIsGoneSupersedesNothing) {
  std::vector<lake::StoredObject> objects = {{"l/d/part-1.parquet", 9, 0}};
  std::map<std::string, std::vector<std::string>> supersedes = {
      {"l/d/compact-x.parquet", {"l/d/part-1.parquet"}}};
  EXPECT_TRUE(PlanDeletions({&objects, &supersedes, 1'000'000, 0}).due.empty());
}

TEST(Grace, ChainedOutputsAreDeletedOldestFirst) {
  // part-1 → compact-a (t=2000) → compact-b (t=3000): part-1 must go before compact-a.
  std::vector<lake::StoredObject> objects = {{"l/d/compact-a.parquet", 9, 2000},
                                             {"l/d/compact-b.parquet", 9, 3000},
                                             {"l/d/part-1.parquet", 9, 1000}};
  std::map<std::string, std::vector<std::string>> supersedes = {
      {"l/d/compact-a.parquet", {"l/d/part-1.parquet"}},
      {"l/d/compact-b.parquet", {"l/d/compact-a.parquet"}}};
  GracePlan plan = PlanDeletions({&objects, &supersedes, 10'000, 100});
  EXPECT_EQ(plan.due, (std::vector<std::string>{"l/d/part-1.parquet", "l/d/compact-a.parquet"}));
}

}  // namespace
}  // namespace sinkd::compact
