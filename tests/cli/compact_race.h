// Two `sinkd compact` processes doing the same merge of one directory lake at once (issue 25
// §1.1): an output's key depends on its inputs alone, so both write the same key. The first runs
// at --zstd-level 19 (a slow write), the second at level 1 starts the moment the first one's
// temporary file appears, so both write at once, with different bytes. Optionally the first is
// kill -9'd mid-write once the second has finished. Then two passes past a zero grace. What must
// hold: every .parquet file opens on its own in DuckDB (every column of every row read), every
// event_id survives, one row each; a killed writer leaves only its own temporary file, which
// `sinkd sweep` keeps while young and removes when told it is stale. When both wrote through one
// shared temporary file, the second truncated the first's and both wrote into one inode: the
// renamed output was a mix with a valid footer, and its inputs were deleted.
// Used by tests/cli (a lake small enough for the default suite) and tests/cli/slow (200k events).
#pragma once

#include <gtest/gtest.h>
#include <signal.h>

#include <set>
#include <string>
#include <vector>

#include "outbox/process.h"
#include "support/lake_files.h"
#include "support/support.h"
#include "traffic/traffic_generator.h"

namespace sinkd::testing {

// The files under `lake` whose name ends in `suffix`, relative to it.
inline std::set<std::string> LakeFilesEndingIn(const std::filesystem::path& lake,
                                               const std::string& suffix) {
  return LakeKeys(lake, suffix);
}

inline CommandResult RunSinkd(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {SinkdBinary().string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv, "", std::chrono::seconds(300),
                    {"LAKE_DIR=", "AWS_ENDPOINT_URL=", "S3_BUCKET="});
}

// Every .parquet file of the lake read whole by DuckDB on its own (a torn file fails here even
// when a glob over the lake would stop at another); "" when all open, else what failed.
inline std::string FilesDuckDbCannotRead(const std::filesystem::path& lake) {
  std::string failed;
  for (const std::string& file : LakeFilesEndingIn(lake, ".parquet")) {
    const QueryResult q = DuckDb("SELECT count(*), sum(hash(t)) FROM read_parquet(" +
                                 SqlQuote((lake / file).string()) + ") t");
    if (!q.ok) failed += file + ": " + q.error + "\n";
  }
  return failed;
}

inline void ExpectTwoCompactorsOfOneMergeLoseNothing(int64_t events, bool kill_first_mid_write) {
  using namespace std::chrono_literals;
  using outbox::testing::Background;
  TempDir dir;
  const std::filesystem::path lake = dir / "lake";
  // One app on one date: every Part is in one partition, so the pass is one merge of them all.
  traffic::TrafficOptions options;
  options.seed = 25;
  options.apps = 1;
  options.events_per_batch = 50;
  options.span_micros = 6LL * 3600 * 1'000'000;
  options.expected_events = events;
  traffic::TrafficGenerator generator(options);
  const std::string wire = (dir / "ledger.bin").string();
  ASSERT_TRUE(traffic::WriteDelimitedFile(generator, traffic::StreamKind::kLedger,
                                          events / options.events_per_batch, wire)
                  .ok());
  auto imported = RunSinkd({"import", "ledger", "--lake-dir", lake.string(), "--instance-id",
                            "imp", "--batch-max-rows", "2000", wire});
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  const std::set<std::string> inputs = LakeFilesEndingIn(lake, ".parquet");
  ASSERT_GE(inputs.size(), 5u) << "the premise: many small Parts";
  std::set<std::string> partitions;
  for (const std::string& part : inputs) {
    partitions.insert(std::filesystem::path(part).parent_path().string());
  }
  ASSERT_EQ(partitions.size(), 1u) << "the premise: one merge";

  auto compact = [&](const char* id, const char* level) {
    return std::make_unique<Background>(
        std::vector<std::string>{SinkdBinary().string(), "compact", "ledger", "--lake-dir",
                                 lake.string(), "--min-parts", "2", "--settle", "0s", "--grace",
                                 "1h", "--instance-id", id, "--zstd-level", level,
                                 // Row groups of 2,000 rows: the output reaches the disk in
                                 // pieces all through the merge, not in one write at its end.
                                 "--row-group-rows", "2000"},
        dir / (std::string(id) + ".log"));
  };
  auto first = compact("c1", "19");
  ASSERT_TRUE(WaitUntil([&] { return !LakeFilesEndingIn(lake, ".incomplete").empty(); }, 60s,
                        std::chrono::milliseconds(2)))
      << first->Log();
  auto second = compact("c2", "1");
  const int second_exit = second->Wait(300s);
  EXPECT_EQ(second_exit, 0) << second->Log();
  if (kill_first_mid_write) {
    // Killed once it has written more since the second finished (into whichever file it writes:
    // its own temporary one, or, through a shared one, the second's renamed output).
    const auto second_done = std::filesystem::file_time_type::clock::now();
    const std::filesystem::path partition = lake / *partitions.begin();
    ASSERT_TRUE(WaitUntil(
        [&] {
          std::error_code ec;
          for (const auto& e : std::filesystem::directory_iterator(partition, ec)) {
            if (e.last_write_time(ec) > second_done && !ec) return true;
          }
          return false;
        },
        60s, std::chrono::milliseconds(5)));
    ASSERT_EQ(first->Wait(0ms), -1) << "the premise: the first was still writing\n"
                                     << first->Log();
    first->Signal(SIGKILL);
    EXPECT_EQ(first->Wait(10s), 128 + SIGKILL);
  } else {
    // Meeting the other's output at the key is no failure: that merge is done.
    EXPECT_EQ(first->Wait(300s), 0) << first->Log();
  }
  EXPECT_EQ(FilesDuckDbCannotRead(lake), "") << "a reader opened a torn file";

  if (kill_first_mid_write) {
    // The killed writer's temporary file, and nothing else, is what sweep finds.
    const std::set<std::string> left = LakeFilesEndingIn(lake, ".incomplete");
    EXPECT_EQ(left.size(), 1u) << "the killed compactor's temporary file";
    for (const std::string& temp : left) {
      EXPECT_GT(std::filesystem::file_size(lake / temp), 0u) << "the premise: killed mid-write";
    }
    auto young = RunSinkd({"sweep", "--lake-dir", lake.string()});
    EXPECT_EQ(young.exit_code, 0) << young.err;
    EXPECT_EQ(LakeFilesEndingIn(lake, ".incomplete"), left) << "a young one may be in flight";
    const std::set<std::string> parts = LakeFilesEndingIn(lake, ".parquet");
    auto stale = RunSinkd({"sweep", "--lake-dir", lake.string(), "--older-than", "0s"});
    EXPECT_EQ(stale.exit_code, 0) << stale.err;
    EXPECT_TRUE(LakeFilesEndingIn(lake, ".incomplete").empty()) << stale.out;
    EXPECT_EQ(LakeFilesEndingIn(lake, ".parquet"), parts) << "sweep removed a Part";
  }

  for (int pass = 0; pass < 2; ++pass) {
    auto r = RunSinkd({"compact", "ledger", "--lake-dir", lake.string(), "--min-parts", "2",
                       "--settle", "0s", "--grace", "0s"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
  EXPECT_EQ(FilesDuckDbCannotRead(lake), "");
  const QueryResult all =
      DuckDb("SELECT count(*), count(DISTINCT event_id) FROM read_parquet(" +
             SqlQuote((lake / "ledger/**/*.parquet").string()) + ")");
  ASSERT_TRUE(all.ok) << all.error;
  EXPECT_EQ(all.rows[0][1], std::to_string(events)) << "an event_id went missing";
  EXPECT_EQ(all.rows[0][0], all.rows[0][1]) << "duplicates left past the grace";
  for (const std::string& input : inputs) {
    EXPECT_FALSE(std::filesystem::exists(lake / input)) << input << " outlived its grace";
  }
}

}  // namespace sinkd::testing
