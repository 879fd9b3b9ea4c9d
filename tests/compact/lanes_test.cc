// Merge lanes (CompactOptions::merge_lanes): partitions merged at once, each through a
// Destination of its own, write the bytes one lane writes, and merges larger than the lanes'
// row budget run alone.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "compact/compact_test_util.h"
#include "compact/compactor.h"
#include "support/wrapped_destination.h"

namespace sinkd::compact {
namespace {

using namespace testutil;  // NOLINT
using sinkd::testing::ReadFile;
using sinkd::testing::TempDir;

// Lanes' meeting point: how many are placing an output now, and whether `want` ever were.
struct Meeting {
  std::atomic<int> placing{0};
  std::atomic<bool> met{false};
};

// A lane's lake whose placements wait (at most `patience`) until `want` lanes are placing at
// once, until that happened once: merges that ran one after the other would each wait it out.
class MeetingLake : public sinkd::testing::WrappedDestination {
 public:
  MeetingLake(std::unique_ptr<lake::DirDestination> inner, Meeting& meeting, int want,
              std::chrono::milliseconds patience)
      : WrappedDestination(*inner),
        inner_(std::move(inner)),
        meeting_(meeting),
        want_(want),
        patience_(patience) {}
  Result<std::unique_ptr<lake::PartUpload>> Begin(const std::string& key) override {
    if (++meeting_.placing >= want_) meeting_.met = true;
    const auto until = std::chrono::steady_clock::now() + patience_;
    while (!meeting_.met.load() && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    auto upload = WrappedDestination::Begin(key);
    --meeting_.placing;
    return upload;
  }

 private:
  std::unique_ptr<lake::DirDestination> inner_;
  Meeting& meeting_;
  const int want_;
  const std::chrono::milliseconds patience_;
};

// `apps` partitions of kDay, each three flushes of `rows` rows, the last two ids of a flush
// again in the next.
void WriteApps(lake::Destination& lake, int apps, int rows) {
  for (int a = 0; a < apps; ++a) {
    const std::string app = "app-" + std::to_string(a);
    for (int f = 0; f < 3; ++f) {
      std::vector<TestRow> batch;
      for (int i = f * rows - (f > 0 ? 2 : 0); i < (f + 1) * rows; ++i) {
        batch.push_back({app + "-e" + std::to_string(i), kDayMicros + i * 1'000'000LL, app});
      }
      Flush(lake, batch, 1 + static_cast<uint64_t>(a * 10 + f) * 1000);
    }
  }
}

CompactOptions LaneOptions(const fs::path& root, size_t lanes, Meeting& meeting, int want,
                           std::chrono::milliseconds patience) {
  CompactOptions o = Options([] { return kDayMs + 3 * 24 * kHourMs; });
  o.min_parts = 2;
  o.grace_ms = 0;
  o.merge_lanes = lanes;
  o.open_destination = [root, &meeting, want,
                        patience]() -> Result<std::unique_ptr<lake::Destination>> {
    return std::unique_ptr<lake::Destination>(
        std::make_unique<MeetingLake>(DirLake(root), meeting, want, patience));
  };
  return o;
}

TEST(Lanes, TwoLanesMergeTwoPartitionsAtOnceIntoTheBytesOneLaneWrites) {
  TempDir one, two;
  auto lake_one = DirLake(one.path());
  auto lake_two = DirLake(two.path());
  WriteApps(*lake_one, 6, 200);
  fs::copy(one.path() / "ledger", two.path() / "ledger", fs::copy_options::recursive);
  // The same objects: an input's version (its mtime here) is in the output's name and footer.
  for (const auto& f : Files(one.path())) {
    fs::last_write_time(two.path() / f, fs::last_write_time(one.path() / f));
  }

  Meeting meeting;
  Compactor single(*lake_one, Options([] { return kDayMs + 3 * 24 * kHourMs; }));
  CompactOptions o = LaneOptions(two.path(), 2, meeting, 2, std::chrono::seconds(5));
  Compactor lanes(*lake_two, o);
  auto a = single.RunPass({});
  auto b = lanes.RunPass({});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  ASSERT_TRUE(b.ok()) << b.status().ToString();

  EXPECT_TRUE(meeting.met.load());
  EXPECT_EQ(b->merges_at_once, 2u);
  EXPECT_EQ(a->merges_at_once, 0u);  // one lane: no budget shared
  EXPECT_EQ(b->outputs, 6u);
  EXPECT_EQ(b->outputs, a->outputs);
  EXPECT_EQ(b->rows_in, a->rows_in);
  EXPECT_EQ(b->rows_out, a->rows_out);
  EXPECT_EQ(b->duplicates_dropped, 6u * 4u);
  ASSERT_EQ(Outputs(two.path()), Outputs(one.path()));
  for (const std::string& out : Outputs(one.path())) {
    EXPECT_EQ(ReadFile(two.path() / out), ReadFile(one.path() / out)) << out;
  }
}

TEST(Lanes, MergesLargerThanTheLanesRowBudgetRunOneAtATime) {
  TempDir dir;
  auto lake = DirLake(dir.path());
  WriteApps(*lake, 3, 200);  // about 600 rows a partition
  Meeting meeting;
  CompactOptions o = LaneOptions(dir.path(), 2, meeting, 2, std::chrono::milliseconds(300));
  o.lane_rows = 500;  // every merge takes the whole budget
  Compactor lanes(*lake, o);
  auto report = lanes.RunPass({});
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->outputs, 3u);
  EXPECT_EQ(report->merges_at_once, 1u);
  EXPECT_FALSE(meeting.met.load());
}

TEST(Lanes, MoreThanOneLaneWithoutAWayToOpenDestinationsIsRefused) {
  CompactOptions o = Options([] { return kDayMs; });
  o.merge_lanes = 2;
  Status s = o.Validate();
  EXPECT_TRUE(s.IsRefuse());
  EXPECT_NE(s.message().find("open_destination"), std::string::npos) << s.message();
  o.merge_lanes = 17;
  o.open_destination = [] { return Result<std::unique_ptr<lake::Destination>>(nullptr); };
  EXPECT_NE(o.Validate().message().find("merge_lanes 17: must be 1 to 16"), std::string::npos);
}

}  // namespace
}  // namespace sinkd::compact
