// Write amplification over a simulated day of five-minute flushes (288 Parts per partition),
// with a pass after every flush as `sinkd compact --follow --every 5m` runs, on the clock seam:
// every byte is written at most about three times (its flush, a tier-1 output, the closed
// date's output), and the closed day ends as one file per partition with every id once.
#include <cstdio>

#include <gtest/gtest.h>

#include "compact/compact_test_util.h"
#include "compact/compactor.h"

namespace sinkd::compact {
namespace {

using namespace testutil;  // NOLINT
using sinkd::testing::DuckDb;
using sinkd::testing::TempDir;

TEST(CompactAmplification, ADayOfFiveMinuteFlushesIsWrittenAtMostThreeTimes) {
  TempDir dir;
  auto lake = DirLake(dir.path());
  std::set<std::string> seen;
  int64_t now = kDayMs;
  auto options = Options([&] { return now; });
  Compactor compactor(*lake, options);
  constexpr int64_t kStepMs = 5 * 60 * 1000;
  constexpr int kRowsPerApp = 500;
  uint64_t flushed = 0, compacted = 0, ids = 0, duplicates = 0;
  uint64_t sequence = 1;
  auto pass = [&] {
    auto report = compactor.RunPass({});
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    compacted += report->bytes_written;
    StampNewFiles(dir.path(), now, seen);
  };
  std::vector<TestRow> previous;
  for (int step = 0; step < 288; ++step) {
    std::vector<TestRow> rows;
    for (const char* app : {"svc", "web"}) {
      for (int i = 0; i < kRowsPerApp; ++i) {
        const int64_t at = kDayMicros + step * kStepMs * 1000 + i * (kStepMs * 1000 / kRowsPerApp);
        rows.push_back({std::string(app) + "-" + std::to_string(step) + "-" + std::to_string(i), at, app});
        ++ids;
      }
    }
    // 3% of the rows come again in the next flush (redelivered), one second later.
    for (size_t i = 0; i < previous.size(); i += 33) {
      TestRow again = previous[i];
      again.time_micros += 1'000'000;
      rows.push_back(again);
      ++duplicates;
    }
    previous = rows;
    now = kDayMs + (step + 1) * kStepMs;
    flushed += Flush(*lake, rows, sequence);
    sequence += rows.size();
    StampNewFiles(dir.path(), now, seen);
    pass();
  }
  // The next day: passes go on every five minutes until the day closed, settled and the grace
  // of its last outputs passed.
  while (now < kDayMs + 24 * kHourMs + options.settle_ms + options.grace_ms + 2 * kHourMs) {
    now += kStepMs;
    pass();
  }
  const double amplification = static_cast<double>(flushed + compacted) / flushed;
  std::printf("flushed %llu bytes, compaction wrote %llu: amplification %.3f (compaction alone "
              "%.3f)\n",
              static_cast<unsigned long long>(flushed), static_cast<unsigned long long>(compacted),
              amplification, static_cast<double>(compacted) / flushed);
  EXPECT_LE(amplification, 3.0);
  const auto files = Files(dir.path());
  std::string listing;
  for (const auto& f : files) listing += f + " " + std::to_string(fs::file_size(dir / f)) + "\n";
  ASSERT_EQ(files.size(), 2u) << "one file per partition once the day closed:\n" << listing;
  auto q = DuckDb("SELECT count(*), count(DISTINCT event_id) FROM " + Glob(dir.path()));
  ASSERT_TRUE(q.ok) << q.error;
  EXPECT_EQ(q.rows[0][0], std::to_string(ids));
  EXPECT_EQ(q.rows[0][1], std::to_string(ids));
  EXPECT_GT(duplicates, 0u);
}

}  // namespace
}  // namespace sinkd::compact
