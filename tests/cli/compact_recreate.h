// A key deleted by the grace deleter and created again with other rows (issue 25 §1.3): two
// imports with one --instance-id write the same keys, the second after compaction merged the
// first's Parts and deleted them. An output's sinkd.supersedes names those keys; when it named
// keys only, the next pass deleted the second import's Parts unread (their rows lost, `lake
// verify` none the wiser: the output carries stamps of the same flushes). Now an output names
// each input as the object it was (size and version), so the re-created Parts are live: the next
// passes merge them and every row of both imports stays. Run on a directory (tests/cli) and on
// S3 through tools/s3 (tests/s3), through the binary as an operator would.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <string>
#include <vector>

#include "support/support.h"
#include "traffic/traffic_generator.h"

namespace sinkd::testing {

struct RecreateLake {
  std::vector<std::string> flags;  // the destination's flags for import, compact, lake verify
  std::vector<std::string> env;    // the children's environment on top of the test's
  std::function<std::set<std::string>()> parts;  // every object key under ledger/ now
  std::string glob;                              // DuckDB's path to every Part of the ledger
};

inline void ExpectARecreatedKeyKeepsItsRows(const RecreateLake& lake, const TempDir& tmp) {
  constexpr int64_t kEvents = 4000;
  // One app on one date: both imports write one partition, under the same keys
  // (part-imp-<first>-<last>-<n>), with other events (another seed).
  auto wire = [&](uint64_t seed) {
    traffic::TrafficOptions options;
    options.seed = seed;
    options.apps = 1;
    options.events_per_batch = 50;
    options.span_micros = 6LL * 3600 * 1'000'000;
    options.expected_events = kEvents;
    traffic::TrafficGenerator generator(options);
    const std::string path = (tmp / ("ledger-" + std::to_string(seed) + ".bin")).string();
    EXPECT_TRUE(traffic::WriteDelimitedFile(generator, traffic::StreamKind::kLedger,
                                            kEvents / options.events_per_batch, path)
                    .ok());
    return path;
  };
  auto sinkd = [&](std::vector<std::string> args) {
    args.insert(args.begin(), SinkdBinary().string());
    args.insert(args.begin() + 3, lake.flags.begin(), lake.flags.end());
    return RunCommand(args, "", std::chrono::seconds(120), lake.env);
  };
  auto import = [&](const std::string& file) {
    return sinkd({"import", "ledger", "--instance-id", "imp", "--batch-max-rows", "400", file});
  };
  auto compact = [&] {
    return sinkd({"compact", "ledger", "--min-parts", "2", "--settle", "0s", "--grace", "0s"});
  };
  auto distinct_ids = [&] {
    const QueryResult q = DuckDb("SELECT count(DISTINCT event_id) FROM read_parquet(" +
                                 SqlQuote(lake.glob) + ")");
    EXPECT_TRUE(q.ok) << q.error;
    return q.ok ? q.rows[0][0] : std::string();
  };
  const std::string first = wire(25), second = wire(26);

  CommandResult r = import(first);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::set<std::string> inputs = lake.parts();
  ASSERT_GE(inputs.size(), 5u) << "the premise: many small Parts";
  for (int pass = 0; pass < 2; ++pass) {
    r = compact();  // the first merges, the second deletes the inputs (grace 0)
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  std::set<std::string> left = lake.parts();
  for (const std::string& key : inputs) ASSERT_EQ(left.count(key), 0u) << key << " outlived";
  ASSERT_EQ(distinct_ids(), std::to_string(kEvents));

  r = import(second);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::set<std::string> recreated;
  for (const std::string& key : lake.parts()) {
    if (inputs.count(key)) recreated.insert(key);
  }
  ASSERT_EQ(recreated, inputs) << "the premise: the second import re-creates every deleted key";
  ASSERT_EQ(distinct_ids(), std::to_string(2 * kEvents)) << "the premise: other events";

  for (int pass = 0; pass < 2; ++pass) {
    r = compact();
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
  EXPECT_EQ(distinct_ids(), std::to_string(2 * kEvents))
      << "a re-created Part was deleted unread: its key was named by an older output";
  const QueryResult copies = DuckDb("SELECT count(*) FROM read_parquet(" + SqlQuote(lake.glob) +
                                    ")");
  ASSERT_TRUE(copies.ok) << copies.error;
  EXPECT_EQ(copies.rows[0][0], std::to_string(2 * kEvents)) << "one row per event once merged";
  for (const std::string& key : lake.parts()) {
    EXPECT_NE(key.find("/compact-"), std::string::npos) << key << " was left unmerged";
  }
  CommandResult verify = sinkd({"lake", "verify", "ledger"});
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
}

}  // namespace sinkd::testing
