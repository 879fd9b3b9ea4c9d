// `sinkd compact` as a process beside a real `sinkd drain` writing the same directory lake (a real
// nats-server feeding it): kill -9 at random moments of a following compactor, then two
// compactors at once. What must hold, checked with DuckDB and the footers: every published
// event_id is in the lake at every moment and at the end; no Part is gone before its grace (with
// a grace of an hour, no file that ever existed disappears while the compactors run); once the
// grace is 0 a last pair of passes leaves one row per event_id; every output's footer says
// `sinkd.source` = compact and names what it supersedes; `sinkd lake verify` finds no gap and no
// incomplete flush before and after the last passes.
#include <gtest/gtest.h>
#include <signal.h>

#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "outbox/process.h"
#include "support/lake_files.h"
#include "support/nats_server.h"
#include "support/support.h"

namespace sinkd {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using sinkd::outbox::testing::Background;
using testing::DuckDb;
using testing::RunCommand;
using testing::SinkdBinary;
using testing::SqlQuote;
using testing::TempDir;
using testing::WaitUntil;

testing::CommandResult Sinkd(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {SinkdBinary().string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv, "", 120s, {"LAKE_DIR=", "AWS_ENDPOINT_URL=", "S3_BUCKET="});
}

// The .parquet files under the lake's ledger prefix (never the dead letters).
// A drain writing small Parts from a real nats-server, fed in two halves.
struct DrainedLake {
  testing::NatsServer server;
  TempDir dir;
  fs::path lake = dir / "lake";
  uint64_t expected = 0;
  std::unique_ptr<Background> drain;

  bool Publish(const std::string& name, int seed) {
    const std::string wire = (dir / name).string();
    auto g = Sinkd({"generate", "ledger", "--messages", "120", "--events-per-batch", "50", "--seed",
                    std::to_string(seed), "--bad-share", "0", "-o", wire});
    if (g.exit_code != 0) {
      ADD_FAILURE() << g.err;
      return false;
    }
    expected += 6000;
    auto p = Sinkd({"publish", "ledger", "--nats-url", server.url(), wire});
    if (p.exit_code != 0) {
      ADD_FAILURE() << p.err;
      return false;
    }
    return true;
  }
  bool Start() {
    if (!server.ok()) {
      ADD_FAILURE() << server.error();
      return false;
    }
    auto p = Sinkd({"provision", "--nats-url", server.url()});
    if (p.exit_code != 0) {
      ADD_FAILURE() << p.err;
      return false;
    }
    if (!Publish("first.bin", 21)) return false;
    // At most 40 messages (2,000 rows) a fetch: each publish reaches every partition in several
    // Parts whatever the timing. With a fetch of 512, a drain that started late on a busy machine
    // took everything in one flush, one Part a partition, which compaction leaves alone.
    drain = std::make_unique<Background>(
        std::vector<std::string>{SinkdBinary().string(), "drain", "ledger", "--nats-url",
                                 server.url(), "--lake-dir", lake.string(), "--instance-id", "d1",
                                 "--batch-max-rows", "400", "--batch-interval", "200ms",
                                 "--fetch-max", "40"},
        dir / "drain.log");
    return true;
  }
  std::string Glob() const { return SqlQuote((lake / "ledger/**/*.parquet").string()); }
  // count(DISTINCT event_id), or -1 when DuckDB failed (a file vanished under it: a finding).
  int64_t Distinct(std::string* error = nullptr) const {
    if (testing::TableKeys(lake, "ledger").empty()) return 0;
    auto q = DuckDb("SELECT count(DISTINCT event_id) FROM read_parquet(" + Glob() + ")");
    if (!q.ok) {
      if (error) *error = q.error;
      return -1;
    }
    return std::stoll(q.rows[0][0]);
  }
  bool AllFlushed() {
    return WaitUntil([&] { return Distinct() == static_cast<int64_t>(expected); }, 120s, 500ms);
  }
};

// `sinkd lake verify` (branch stamps) from the footers alone: no gap, no incomplete flush, every
// object stamped (a compaction output carries its inputs' stamps).
void ExpectVerifyClean(const DrainedLake& l, const char* when) {
  auto r = Sinkd({"lake", "verify", "ledger", "--lake-dir", l.lake.string(), "--json"});
  EXPECT_EQ(r.exit_code, 0) << when << "\n" << r.out << r.err;
  const auto j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << when << "\n" << r.out;
  EXPECT_EQ(j.value("ok", false), true) << when << "\n" << r.out;
  EXPECT_GT(j.value("flushes", 0), 0) << when << "\n" << r.out;
  EXPECT_EQ(j.value("unstamped_parts", -1), 0) << when << "\n" << r.out;
}

// The end state: verify clean with outputs and inputs side by side, two passes past a zero grace,
// then one row per event_id, every id there, verify clean again, and each output's footer saying
// what it is.
void ExpectCompactedAndWhole(DrainedLake& l) {
  ExpectVerifyClean(l, "before the last passes");
  for (int i = 0; i < 2; ++i) {
    auto r = Sinkd({"compact", "ledger", "--lake-dir", l.lake.string(), "--min-parts", "2",
                    "--settle", "0s", "--grace", "0s"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  auto q = DuckDb("SELECT count(*), count(DISTINCT event_id) FROM read_parquet(" + l.Glob() + ")");
  ASSERT_TRUE(q.ok) << q.error;
  EXPECT_EQ(q.rows[0][1], std::to_string(l.expected)) << "an event_id is missing";
  EXPECT_EQ(q.rows[0][0], q.rows[0][1]) << "duplicates left after passes past the grace";
  ExpectVerifyClean(l, "after the last passes");
  auto footers =
      DuckDb("SELECT file_name, decode(key) AS k, decode(value) AS v FROM parquet_kv_metadata(" +
             SqlQuote((l.lake / "ledger/**/compact-*.parquet").string()) +
             ") WHERE decode(key) IN ('sinkd.source', 'sinkd.supersedes')");
  ASSERT_TRUE(footers.ok) << footers.error;
  ASSERT_FALSE(footers.rows.empty()) << "no compaction output in the lake";
  for (const auto& row : footers.rows) {
    if (row[1] == "sinkd.source") {
      EXPECT_EQ(row[2], "compact") << row[0];
    } else {
      // Each input as {key, size, version}: the grace deleter deletes that object, not the key.
      const auto inputs = nlohmann::json::parse(row[2], nullptr, false);
      ASSERT_TRUE(inputs.is_array() && !inputs.empty()) << row[0] << ": " << row[2];
      for (const auto& input : inputs) {
        EXPECT_EQ(input.value("key", "").rfind("ledger/", 0), 0u) << row[0] << ": " << row[2];
        EXPECT_GT(input.value("size", 0), 0) << row[0] << ": " << row[2];
        EXPECT_NE(input.value("version", ""), "") << row[0] << ": " << row[2];
      }
    }
  }
}

TEST(CompactProcess, KillNineAtRandomMomentsOfAFollowingCompactorBesideADrainLosesNoRow) {
  DrainedLake l;
  ASSERT_TRUE(l.Start());
  std::mt19937 random(7);
  std::set<std::string> seen;
  int64_t lowest_seen = 0;
  int outputs_before_a_kill = 0;
  for (int round = 0; round < 8; ++round) {
    if (round == 3) {
      ASSERT_TRUE(l.Publish("second.bin", 22));
    }
    // A grace of an hour: nothing may be deleted during the test, whatever a kill interrupts.
    Background compact({SinkdBinary().string(), "compact", "ledger", "--lake-dir", l.lake.string(),
                        "--follow", "--every", "1s", "--min-parts", "2", "--settle", "0s",
                        "--grace", "1h", "--target-bytes", "1MiB"},
                       l.dir / ("compact" + std::to_string(round) + ".log"));
    std::this_thread::sleep_for(std::chrono::milliseconds(200 + random() % 2300));
    compact.Signal(SIGKILL);
    EXPECT_EQ(compact.Wait(10s), 128 + SIGKILL);
    outputs_before_a_kill +=
        compact.Log().find("\"msg\":\"compaction output\"") != std::string::npos;
    const std::set<std::string> now = testing::TableKeys(l.lake, "ledger");
    for (const std::string& part : seen) {
      EXPECT_TRUE(now.count(part))
          << part << " was deleted before its grace (round " << round << ")";
    }
    seen.insert(now.begin(), now.end());
    std::string error;
    const int64_t distinct = l.Distinct(&error);
    EXPECT_GE(distinct, lowest_seen) << "rows went missing after round " << round << ": " << error;
    lowest_seen = std::max(lowest_seen, distinct);
  }
  // The premise: the kills interrupted compactors that were getting work done.
  EXPECT_GE(outputs_before_a_kill, 2);
  ASSERT_TRUE(l.AllFlushed()) << l.Distinct() << " of " << l.expected << "\n" << l.drain->Log();
  l.drain.reset();
  ExpectCompactedAndWhole(l);
}

// The log lines of `processes` naming the file a DuckDB error names (its base name), so a
// vanished file's failure says who wrote, merged and deleted it.
std::string LinesNaming(const std::string& error, const std::vector<Background*>& processes) {
  const size_t quote = error.find("file \"");
  if (quote == std::string::npos) return "";
  const size_t end = error.find('"', quote + 6);
  const std::string name = fs::path(error.substr(quote + 6, end - quote - 6)).stem().string();
  std::string lines;
  for (Background* p : processes) {
    std::istringstream in(p->Log());
    for (std::string line; std::getline(in, line);) {
      if (line.find(name) != std::string::npos) lines += line.substr(0, 2000) + "\n";
    }
  }
  return lines;
}

TEST(CompactProcess, TwoCompactorsAndADrainAtOnceOnADirectoryLoseNoRow) {
  DrainedLake l;
  ASSERT_TRUE(l.Start());
  std::vector<std::unique_ptr<Background>> compactors;
  for (const char* id : {"c1", "c2"}) {
    compactors.push_back(std::make_unique<Background>(
        std::vector<std::string>{SinkdBinary().string(), "compact", "ledger", "--lake-dir",
                                 l.lake.string(), "--follow", "--every", "1s", "--min-parts", "2",
                                 "--settle", "0s", "--grace", "10s", "--instance-id", id},
        l.dir / (std::string(id) + ".log")));
  }
  ASSERT_TRUE(l.Publish("second.bin", 23));
  // Every id visible at every look while both merge and delete, and no look meets a torn file: any
  // DuckDB error but one is a finding, never a look to skip. The one: a glob lists a superseded
  // input a moment before a compactor deletes it, its grace over, and the open finds it gone
  // ("No such file"). The grace protects a reader that listed the input before its output
  // existed; one that lists it just before its deletion also lists the output, and its next look
  // reads it (KNOWN-GAPS). Such looks are counted and shown; enough looks must succeed for the
  // test to say anything. A deletion before the grace would lose ids at a later look: the rows
  // check below catches it. Deletions begin 10 s in; the looks go on to 30 s.
  int64_t lowest_seen = 0;
  int looks_succeeded = 0;
  std::string raced_looks;
  const auto until = std::chrono::steady_clock::now() + 30s;
  while (std::chrono::steady_clock::now() < until) {
    std::string error;
    const int64_t d = l.Distinct(&error);
    if (d >= 0) {
      ++looks_succeeded;
      EXPECT_GE(d, lowest_seen) << "rows went missing";
      lowest_seen = std::max(lowest_seen, d);
    } else if (error.find("No such file or directory") != std::string::npos &&
               error.find("Cannot open file") != std::string::npos) {
      raced_looks += error + "\n";
    } else {
      ADD_FAILURE() << "DuckDB failed on the lake while two compactors ran: " << error
                    << "\nwhat the drain and the compactors said of that file:\n"
                    << LinesNaming(error, {l.drain.get(), compactors[0].get(),
                                           compactors[1].get()});
    }
    std::this_thread::sleep_for(500ms);
  }
  EXPECT_GE(looks_succeeded, 5) << "premise: looks that read the lake; those that met a deleted "
                                   "input:\n" << raced_looks;
  ASSERT_TRUE(l.AllFlushed()) << l.Distinct() << " of " << l.expected;
  for (auto& c : compactors) {
    c->Signal(SIGTERM);
    EXPECT_EQ(c->Wait(60s), 0) << c->Log();
  }
  const std::string logs = compactors[0]->Log() + compactors[1]->Log();
  EXPECT_NE(logs.find("\"msg\":\"compaction output\""), std::string::npos) << logs;
  l.drain.reset();
  ExpectCompactedAndWhole(l);
}

}  // namespace
}  // namespace sinkd
