// The grace rule: superseded objects go only once the output naming them is grace old, oldest
// first, and only within the output's own partition.
#include "compact/grace.h"

#include <gtest/gtest.h>

namespace sinkd::compact {
namespace {

using Supersedes = std::map<std::string, std::vector<table::SupersededObject>>;

// An input as merged: size 9, version "v", as the objects below are listed.
table::SupersededObject In(const std::string& key) { return {key, 9, "v"}; }

constexpr char kGraceDir[] = "l/date=2026-01-01/app=a/";

TEST(Grace, NothingIsDueBeforeTheOutputIsGraceOld) {
  const std::string out = std::string(kGraceDir) + "compact-x.parquet";
  const std::string p1 = std::string(kGraceDir) + "part-1.parquet";
  const std::string p2 = std::string(kGraceDir) + "part-2.parquet";
  std::vector<lake::StoredObject> objects = {{out, 9, 5000, "v"}, {p1, 9, 1000, "v"},
                                             {p2, 9, 2000, "v"}};
  Supersedes supersedes = {{out, {In(p1), In(p2)}}};
  GracePlan early = PlanDeletions({&objects, &supersedes, 5000 + 999, 1000});
  EXPECT_TRUE(early.due.empty());
  EXPECT_EQ(early.superseded.size(), 2u);
  GracePlan later = PlanDeletions({&objects, &supersedes, 5000 + 1000, 1000});
  EXPECT_EQ(later.due, (std::vector<std::string>{p1, p2}));
}

TEST(Grace, AnOutputNeverDeletesItselfNorAnotherPartitionsObjects) {
  const std::string out = std::string(kGraceDir) + "compact-x.parquet";
  const std::string other = "l/date=2026-01-01/app=b/part-1.parquet";
  std::vector<lake::StoredObject> objects = {{out, 9, 0, "v"}, {other, 9, 0, "v"}};
  Supersedes supersedes = {{out, {In(out), In(other)}}};
  GracePlan plan = PlanDeletions({&objects, &supersedes, 1'000'000, 0});
  EXPECT_TRUE(plan.due.empty());
  EXPECT_TRUE(plan.superseded.empty());
}

TEST(Grace, AnOutputThatIsGoneSupersedesNothing) {
  std::vector<lake::StoredObject> objects = {{"l/d/part-1.parquet", 9, 0, "v"}};
  Supersedes supersedes = {{"l/d/compact-x.parquet", {In("l/d/part-1.parquet")}}};
  EXPECT_TRUE(PlanDeletions({&objects, &supersedes, 1'000'000, 0}).due.empty());
}

TEST(Grace, ChainedOutputsAreDeletedOldestFirst) {
  // part-1 → compact-a (t=2000) → compact-b (t=3000): part-1 must go before compact-a.
  std::vector<lake::StoredObject> objects = {{"l/d/compact-a.parquet", 9, 2000, "v"},
                                             {"l/d/compact-b.parquet", 9, 3000, "v"},
                                             {"l/d/part-1.parquet", 9, 1000, "v"}};
  Supersedes supersedes = {{"l/d/compact-a.parquet", {In("l/d/part-1.parquet")}},
                           {"l/d/compact-b.parquet", {In("l/d/compact-a.parquet")}}};
  GracePlan plan = PlanDeletions({&objects, &supersedes, 10'000, 100});
  EXPECT_EQ(plan.due, (std::vector<std::string>{"l/d/part-1.parquet", "l/d/compact-a.parquet"}));
}

// A key an output names is superseded only while it holds the object that was merged: one
// re-created since (another version, or another size), or named by an output written before
// versions were recorded, is a live Part: neither superseded nor due, reported as changed.
TEST(Grace, AKeyHoldingAnotherObjectThanTheOneMergedIsALivePart) {
  std::vector<lake::StoredObject> objects = {{"l/d/compact-x.parquet", 9, 2000, "v"},
                                             {"l/d/part-1.parquet", 9, 1000, "v2"},
                                             {"l/d/part-2.parquet", 10, 1000, "v"},
                                             {"l/d/part-3.parquet", 9, 1000, "v"},
                                             {"l/d/part-4.parquet", 9, 1000, "v"}};
  Supersedes supersedes = {{"l/d/compact-x.parquet",
                            {In("l/d/part-1.parquet"), In("l/d/part-2.parquet"),
                             {"l/d/part-3.parquet", 0, ""}, In("l/d/part-4.parquet")}}};
  GracePlan plan = PlanDeletions({&objects, &supersedes, 1'000'000, 0});
  EXPECT_EQ(plan.due, (std::vector<std::string>{"l/d/part-4.parquet"}));
  EXPECT_EQ(plan.superseded, (std::set<std::string>{"l/d/part-4.parquet"}));
  EXPECT_EQ(plan.changed, (std::set<std::string>{"l/d/part-1.parquet", "l/d/part-2.parquet",
                                                 "l/d/part-3.parquet"}));
}

}  // namespace
}  // namespace sinkd::compact
