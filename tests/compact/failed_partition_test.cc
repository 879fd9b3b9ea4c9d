// A partition whose merge or delete fails (here: its directory cannot be written) is reported,
// counted and skipped; every other partition is compacted in the same pass, and the pass ends
// with an error naming the failed partition.
#include <gtest/gtest.h>

#include "compact/compact_test_util.h"
#include "compact/compactor.h"

namespace sinkd::compact {
namespace {

using namespace testutil;  // NOLINT
using sinkd::testing::TempDir;
using sinkd::testing::UnwritableDir;

constexpr char kA[] = "ledger/date=2026-09-22/app=a";
constexpr char kB[] = "ledger/date=2026-09-22/app=b";
constexpr char kC[] = "ledger/date=2026-09-22/app=c";

// Three flushes into `app`, each repeating one id of the one before.
void ThreeFlushes(lake::Destination& lake, const std::string& app, uint64_t first) {
  for (int k = 0; k < 3; ++k) {
    const std::string n = std::to_string(k);
    Flush(lake, {{app + "-" + n, kDayMicros + k, app}, {app + "-x", kDayMicros + 10, app}},
          first + static_cast<uint64_t>(k) * 10);
  }
}

size_t FilesIn(const fs::path& root, const std::string& partition) {
  size_t n = 0;
  for (const std::string& f : Files(root)) n += f.rfind(partition + "/", 0) == 0;
  return n;
}

TEST(CompactFailedPartition, AMergeThatCannotBePlacedFailsItsPartitionAndTheNextOneIsCompacted) {
  TempDir dir;
  auto lake = DirLake(dir.path());
  ThreeFlushes(*lake, "a", 1);
  ThreeFlushes(*lake, "b", 100);
  const int64_t now = kDayMs + 26 * kHourMs;  // closed: both partitions merge
  Compactor compactor(*lake, Options([&] { return now; }));
  PassReport report;
  {
    UnwritableDir locked(dir / kA);  // app=a comes first in key order
    auto pass = compactor.RunPass({}, &report);
    ASSERT_FALSE(pass.ok());
    EXPECT_TRUE(pass.status().IsRedeliver()) << pass.status().ToString();
    EXPECT_NE(pass.status().message().find("1 partition(s) failed"), std::string::npos)
        << pass.status().message();
    EXPECT_NE(pass.status().message().find(kA), std::string::npos) << pass.status().message();
  }
  ASSERT_EQ(report.failed.size(), 1u);
  EXPECT_EQ(report.failed[0].rfind(std::string(kA) + ": ", 0), 0u) << report.failed[0];
  EXPECT_EQ(report.partitions_failed, 1u);
  EXPECT_TRUE(report.completed);
  EXPECT_EQ(report.outputs, 1u) << "app=b merged after app=a failed";
  EXPECT_EQ(report.partitions_merged, 1u);
  EXPECT_EQ(report.partitions_pending, 1u) << "app=a is still to merge";
  ASSERT_EQ(Outputs(dir.path()).size(), 1u);
  EXPECT_EQ(Outputs(dir.path())[0].rfind(std::string(kB) + "/", 0), 0u);
  EXPECT_EQ(FilesIn(dir.path(), kA), 3u) << "app=a's Parts untouched";
  EXPECT_TRUE(Files(dir.path(), ".incomplete").empty());

  auto again = compactor.RunPass({}, &report);  // writable again: app=a merges now
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->outputs, 1u);
  EXPECT_EQ(again->partitions_failed, 0u);
}

TEST(CompactFailedPartition, ADeleteThatFailsSkipsItsPartitionAndTheOthersAreStillCompacted) {
  TempDir dir;
  auto lake = DirLake(dir.path());
  ThreeFlushes(*lake, "a", 1);
  ThreeFlushes(*lake, "b", 100);
  int64_t now = kDayMs + 26 * kHourMs;
  CompactOptions options = Options([&] { return now; });
  options.grace_ms = 0;
  Compactor compactor(*lake, options);
  auto first = compactor.RunPass({});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_EQ(first->outputs, 2u);
  ThreeFlushes(*lake, "c", 200);  // late Parts of a third partition, to merge in the next pass
  now = RealNowMs() + 1000;        // the outputs' grace (0) is over
  PassReport report;
  {
    UnwritableDir locked(dir / kA);
    auto pass = compactor.RunPass({}, &report);
    ASSERT_FALSE(pass.ok());
    EXPECT_NE(pass.status().message().find(std::string(kA) + ": delete "), std::string::npos)
        << pass.status().message();
  }
  EXPECT_EQ(report.partitions_failed, 1u);
  EXPECT_EQ(report.inputs_deleted, 3u) << "app=b's inputs deleted";
  EXPECT_EQ(FilesIn(dir.path(), kB), 1u);
  EXPECT_EQ(FilesIn(dir.path(), kA), 4u) << "app=a keeps its inputs and its output";
  EXPECT_EQ(report.outputs, 1u) << "app=c merged after app=a's delete failed";
  EXPECT_EQ(FilesIn(dir.path(), kC), 4u);
}

}  // namespace
}  // namespace sinkd::compact
