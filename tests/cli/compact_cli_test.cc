// `sinkd compact` through the binary: exit codes (2 for a wrong command line, 1 for a failed pass,
// 0 after SIGTERM), the [compaction] section of --config (flag > environment > file > default,
// unknown keys refused at file:line:column), the metrics listener of --follow, and, with the
// engine, one pass over an imported lake checked by DuckDB.
#include <gtest/gtest.h>
#include <signal.h>

#include <map>
#include <set>
#include <sstream>

#include "outbox/process.h"
#include "support/support.h"

namespace sinkd {
namespace {

using namespace std::chrono_literals;
using sinkd::outbox::testing::Background;
using testing::RunCommand;
using testing::SinkdBinary;
using testing::TempDir;

testing::CommandResult Compact(const std::vector<std::string>& args,
                               const std::vector<std::string>& env = {
                                   "LAKE_DIR=", "AWS_ENDPOINT_URL=", "S3_BUCKET="}) {
  std::vector<std::string> argv = {SinkdBinary().string(), "compact"};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv, "", 60s, env);
}

TEST(CompactCli, AWrongCommandLineExitsTwoNamingWhatIsWrong) {
  TempDir dir;
  const std::string lake = (dir / "lake").string();
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{}, "compact needs a table"},
      {{"journal", "--lake-dir", lake}, "journal not in {ledger,audit}"},
      {{"--table", "orders", "--lake-dir", lake}, "orders not in"},
      {{"ledger", "--table", "audit", "--lake-dir", lake}, "name the table once"},
      {{"ledger", "--lake-dir", lake, "--grace", "an hour"}, "--grace"},
      {{"ledger", "--lake-dir", lake, "--settle", "5x"}, "--settle"},
      {{"ledger", "--lake-dir", lake, "--min-parts", "1"}, "--min-parts 1: must be at least 2"},
      {{"ledger", "--lake-dir", lake, "--target-bytes", "1000"},
       "--target-bytes 1000: must be at least 1 MiB"},
      {{"ledger", "--lake-dir", lake, "--follow", "--every", "10ms"}, "--every must be at least"},
      {{"ledger", "--lake-dir", lake, "--gracee", "1h"}, "--gracee"},
      {{"ledger"}, "no destination"},
      {{"audit", "--lake-dir", lake, "--s3-endpoint", "127.0.0.1:1", "--s3-bucket", "b"},
       "two different destinations"},
      {{"ledger", "--lake-dir", lake, "--key-prefix", "../up"}, "--key-prefix"},
  };
  for (const auto& [args, message] : cases) {
    const auto r = Compact(args);
    std::string line;
    for (const std::string& a : args) line += a + " ";
    EXPECT_EQ(r.exit_code, 2) << line << "\n" << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << line << "\n" << r.err;
    EXPECT_EQ(r.err.find("compaction pass"), std::string::npos) << "ran a pass: " << line;
  }
}

// The first line of the log says the settings the passes run with.
std::string StartedLine(const std::string& log) {
  const size_t at = log.find("\"msg\":\"sinkd compact started\"");
  if (at == std::string::npos) return "";
  const size_t begin = log.rfind('\n', at);
  return log.substr(begin == std::string::npos ? 0 : begin + 1,
                    log.find('\n', at) - (begin == std::string::npos ? 0 : begin + 1));
}

TEST(CompactCli, TheCompactionSectionSetsTheFlagsAndAFlagOrTheEnvironmentOutranksIt) {
  TempDir dir;
  const std::string file = (dir / "sinkd.toml").string();
  const std::string lake = (dir / "lake").string();
  testing::WriteFile(file,
                     "[lake]\ndir = \"" + lake +
                         "\"\ninstance_id = \"c1\"\n[drain.ledger]\nkey_prefix = \"raw/ledger\"\n"
                         "[compaction]\ntarget_bytes = 33554432\nmin_parts = 4\n"
                         "settle = \"30m\"\ngrace = \"2h\"\n");
  auto r = Compact({"ledger", "--config", file});
  std::string line = StartedLine(r.err);
  ASSERT_FALSE(line.empty()) << r.err;
  for (const char* want : {"\"destination\":\"dir ", "\"key_prefix\":\"raw/ledger\"",
                           "\"instance\":\"c1\"", "\"target_bytes\":33554432", "\"min_parts\":4",
                           "\"settle\":\"30m0s\"", "\"grace\":\"2h0m0s\"", "\"follow\":false"}) {
    EXPECT_NE(line.find(want), std::string::npos) << want << "\n" << line;
  }
  r = Compact(
      {"ledger", "--config", file, "--min-parts", "6", "--grace", "90m", "--key-prefix", "ledger"});
  line = StartedLine(r.err);
  EXPECT_NE(line.find("\"min_parts\":6"), std::string::npos) << line;
  EXPECT_NE(line.find("\"grace\":\"1h30m0s\""), std::string::npos) << line;
  EXPECT_NE(line.find("\"key_prefix\":\"ledger\""), std::string::npos) << line;
  EXPECT_NE(line.find("\"target_bytes\":33554432"), std::string::npos) << line;
  // LAKE_DIR outranks lake.dir; defaults stand where nothing is said.
  const std::string other = (dir / "other").string();
  testing::WriteFile(file, "[lake]\ndir = \"" + lake + "\"\n[compaction]\nmin_parts = 4\n");
  r = Compact({"--table", "outbox_events", "--config", file},
              {"LAKE_DIR=" + other, "AWS_ENDPOINT_URL=", "S3_BUCKET="});
  line = StartedLine(r.err);
  EXPECT_NE(line.find("\"destination\":\"dir " + other + "\""), std::string::npos) << line;
  EXPECT_NE(line.find("\"key_prefix\":\"outbox_events\""), std::string::npos) << line;
  EXPECT_NE(line.find("\"target_bytes\":268435456"), std::string::npos) << line;
  EXPECT_NE(line.find("\"grace\":\"1h0m0s\""), std::string::npos) << line;
  EXPECT_NE(line.find("\"min_parts\":4"), std::string::npos) << line;

  // `config show` prints the section with each value's source.
  testing::WriteFile(file, "[compaction]\nmin_parts = 4\ngrace = \"2h\"\n");
  auto show = RunCommand({SinkdBinary().string(), "config", "show", "--config", file});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("compaction.min_parts = 4  # " + file + ":2:13"), std::string::npos)
      << show.out;
  EXPECT_NE(show.out.find("compaction.grace = \"2h\"  # " + file + ":3:9"), std::string::npos)
      << show.out;
  EXPECT_NE(show.out.find("compaction.target_bytes = \"256MiB\"  # default"), std::string::npos)
      << show.out;
  EXPECT_NE(show.out.find("compaction.every = \"5m\"  # default"), std::string::npos) << show.out;
}

TEST(CompactCli, AnUnknownOrWrongCompactionKeyIsRefusedAtFileLineAndColumn) {
  TempDir dir;
  const std::string file = (dir / "sinkd.toml").string();
  testing::WriteFile(file, "[lake]\ndir = \"/tmp/x\"\n\n[compaction]\nmin_part = 4\n");
  auto r = Compact({"ledger", "--config", file});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(
      r.err.find("INVALID_CONFIG: " + file + ":5:1: unknown key \"min_part\" in [compaction]"),
      std::string::npos)
      << r.err;
  testing::WriteFile(file, "[lake]\ndir = \"/tmp/x\"\n[compaction]\ngrace = 3600\n");
  r = Compact({"ledger", "--config", file});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(file + ":4:9: compaction.grace must be a string"), std::string::npos)
      << r.err;
  testing::WriteFile(file, "[lake]\ndir = \"/tmp/x\"\n[compaction]\ngrace = \"soon\"\n");
  r = Compact({"ledger", "--config", file});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--grace"), std::string::npos) << r.err;
}

// A following compactor between two passes (or in one) stops on SIGTERM and exits 0; its metrics
// page counted the pass, /healthz answers and /readyz is ready once the lake answered.
TEST(CompactCli, SigtermEndsAFollowingCompactorWithExitZeroAndItServesItsMetrics) {
  TempDir dir;
  const int port = sinkd::outbox::testing::FreeLoopbackPort();
  Background compact(
      {SinkdBinary().string(), "compact", "ledger", "--lake-dir", (dir / "lake").string(),
       "--follow", "--every", "1h", "--metrics-listen", "127.0.0.1:" + std::to_string(port)},
      dir / "compact.log");
  ASSERT_TRUE(testing::WaitUntil(
      [&] { return compact.Log().find("\"msg\":\"compaction pass") != std::string::npos; }, 60s))
      << compact.Log();
  const auto metrics = sinkd::outbox::testing::HttpGet(port, "/metrics");
  EXPECT_EQ(metrics.code, 200);
  const bool passed =
      metrics.body.find("sinkd_compact_passes_total{table=\"ledger\"} 1\n") != std::string::npos;
  const bool failed =
      metrics.body.find("sinkd_compact_pass_failures_total{table=\"ledger\"} 1\n") !=
      std::string::npos;
  EXPECT_NE(passed, failed) << metrics.body;
  EXPECT_EQ(sinkd::outbox::testing::HttpGet(port, "/healthz").code, 200);
  EXPECT_EQ(sinkd::outbox::testing::HttpGet(port, "/readyz").code, 200);
  compact.Signal(SIGTERM);
  EXPECT_EQ(compact.Wait(20s), 0) << compact.Log();
  EXPECT_NE(compact.Log().find("sinkd compact stopped"), std::string::npos) << compact.Log();
}

// A lake of small Parts with duplicates: `sinkd import` of one recording twice, by two instances.
struct SmallPartsLake {
  TempDir dir;
  std::string lake = (dir / "lake").string();
  bool Make() {
    const std::string wire = (dir / "ledger.bin").string();
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"generate", "ledger", "--messages", "60", "--events-per-batch", "50", "--seed", "5",
              "-o", wire},
             {"import", "ledger", "--lake-dir", lake, "--instance-id", "a", "--batch-max-rows",
              "150", wire},
             {"import", "ledger", "--lake-dir", lake, "--instance-id", "b", "--batch-max-rows",
              "1000", wire}}) {
      std::vector<std::string> argv = {SinkdBinary().string()};
      argv.insert(argv.end(), args.begin(), args.end());
      const auto r = RunCommand(argv, "", 60s);
      if (r.exit_code != 0) {
        ADD_FAILURE() << args[0] << ": " << r.err;
        return false;
      }
    }
    return true;
  }
  std::string Glob() const { return testing::SqlQuote(lake + "/ledger/**/*.parquet"); }
};

TEST(CompactCli, OnePassMergesTheSmallPartsAndALaterPastTheGraceDeletesThemWithEveryRowKept) {
  SmallPartsLake lake;
  ASSERT_TRUE(lake.Make());
  const std::string counts =
      "SELECT count(*), count(DISTINCT event_id), count(DISTINCT filename) "
      "FROM read_parquet(" +
      lake.Glob() + ", filename=true)";
  const auto before = testing::DuckDb(counts);
  ASSERT_TRUE(before.ok) << before.error;
  auto r = Compact({"ledger", "--lake-dir", lake.lake, "--min-parts", "2", "--grace", "0s"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("compacted ledger: "), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("\"msg\":\"compaction output\""), std::string::npos) << r.err;
  // Outputs are visible before any input is touched: every row is there twice over.
  const auto merged = testing::DuckDb(counts);
  ASSERT_TRUE(merged.ok) << merged.error;
  EXPECT_EQ(merged.rows[0][1], before.rows[0][1]);
  // The next pass deletes the inputs (grace 0) and leaves one row per event_id.
  r = Compact({"ledger", "--lake-dir", lake.lake, "--min-parts", "2", "--grace", "0s"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto after = testing::DuckDb(counts);
  ASSERT_TRUE(after.ok) << after.error;
  EXPECT_EQ(after.rows[0][1], before.rows[0][1]) << "an event_id went missing";
  EXPECT_EQ(after.rows[0][0], after.rows[0][1]) << "duplicates left";
  EXPECT_LT(std::stoll(after.rows[0][2]), std::stoll(before.rows[0][2]));
}

// Every file of the lake with its bytes and its modification time: what a dry run must not change.
std::map<std::string, std::pair<std::string, int64_t>> LakeState(const std::string& lake) {
  std::map<std::string, std::pair<std::string, int64_t>> state;
  for (const auto& e : std::filesystem::recursive_directory_iterator(lake)) {
    if (!e.is_regular_file()) continue;
    state[e.path().lexically_relative(lake).generic_string()] = {
        testing::ReadFile(e.path()), e.last_write_time().time_since_epoch().count()};
  }
  return state;
}

// The keys a dry run's "would merge" lines name after "->", and those its "would delete" lines name.
std::set<std::string> PlannedKeys(const std::string& out, const std::string& verb) {
  std::set<std::string> keys;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(verb, 0) != 0) continue;
    if (verb == "would delete ") {
      keys.insert(line.substr(verb.size(), line.find(' ', verb.size()) - verb.size()));
      continue;
    }
    std::istringstream outputs(line.substr(line.find(" -> ") + 4));
    for (std::string key; outputs >> key;) {
      if (key.front() == '(') break;
      if (key.back() == ',') key.pop_back();
      keys.insert(key);
    }
  }
  return keys;
}

std::set<std::string> CompactOutputs(const std::string& lake) {
  std::set<std::string> keys;
  for (const auto& [key, state] : LakeState(lake)) {
    if (std::filesystem::path(key).filename().string().rfind("compact-", 0) == 0) keys.insert(key);
  }
  return keys;
}

TEST(CompactCli, ADryRunPrintsThePlanChangesNothingAndTheRealPassThenDoesWhatItNamed) {
  SmallPartsLake lake;
  ASSERT_TRUE(lake.Make());
  const auto before = LakeState(lake.lake);
  const std::vector<std::string> flags = {"ledger", "--lake-dir", lake.lake, "--min-parts", "2",
                                          "--grace", "0s"};
  auto with = [&](std::vector<std::string> more) {
    std::vector<std::string> args = flags;
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  auto r = Compact(with({"--dry-run"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(LakeState(lake.lake), before) << "a dry run changed the lake";
  const std::set<std::string> merges = PlannedKeys(r.out, "would merge ");
  ASSERT_FALSE(merges.empty()) << r.out;
  EXPECT_TRUE(PlannedKeys(r.out, "would delete ").empty()) << r.out;
  EXPECT_NE(r.out.find("nothing was changed"), std::string::npos) << r.out;
  // Each merge lists its inputs with their sizes, as the listing has them.
  for (const auto& [key, state] : before) {
    const std::string line = "  " + key + " (" + std::to_string(state.first.size()) + " bytes)";
    EXPECT_NE(r.out.find(line), std::string::npos) << line << "\n" << r.out;
  }
  // The real pass places exactly the outputs the plan named.
  r = Compact(flags);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(CompactOutputs(lake.lake), merges);
  // Past the grace, the plan is to delete the inputs, and the next pass deletes just those.
  const auto merged = LakeState(lake.lake);
  r = Compact(with({"--dry-run"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(LakeState(lake.lake), merged) << "a dry run changed the lake";
  const std::set<std::string> deletions = PlannedKeys(r.out, "would delete ");
  std::set<std::string> inputs;
  for (const auto& [key, state] : before) inputs.insert(key);
  EXPECT_EQ(deletions, inputs) << r.out;
  r = Compact(flags);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::set<std::string> left;
  for (const auto& [key, state] : LakeState(lake.lake)) left.insert(key);
  EXPECT_EQ(left, merges);
  // A lake that is not there is planned as empty and not created; --follow is refused.
  const std::string none = lake.lake + "-none";
  r = Compact({"ledger", "--lake-dir", none, "--dry-run"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(std::filesystem::exists(none));
  r = Compact({"ledger", "--lake-dir", none, "--dry-run", "--follow"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--dry-run"), std::string::npos) << r.err;
}

TEST(CompactCli, APartItCannotReadFailsThePassWithExitOneNamingItAndIsLeftUntouched) {
  SmallPartsLake lake;
  ASSERT_TRUE(lake.Make());
  const std::string bad = lake.lake + "/ledger/date=2026-01-01/app=x/part-broken.parquet";
  std::filesystem::create_directories(std::filesystem::path(bad).parent_path());
  testing::WriteFile(bad, "PAR1 this is not a Parquet file PAR1");
  auto r = Compact({"ledger", "--lake-dir", lake.lake, "--min-parts", "2"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("part-broken.parquet"), std::string::npos) << r.err;
  EXPECT_EQ(testing::ReadFile(bad), "PAR1 this is not a Parquet file PAR1");
}

// A partition whose directory cannot be written fails its merge: the pass goes on with the others,
// exits 1 naming it, and a following compactor counts it in sinkd_compact_partitions_failed_total.
TEST(CompactCli, APartitionThatCannotBeWrittenIsSkippedCountedAndExitsOneAfterTheOthers) {
  SmallPartsLake lake;
  ASSERT_TRUE(lake.Make());
  std::vector<std::filesystem::path> partitions;
  for (const auto& e : std::filesystem::recursive_directory_iterator(lake.lake + "/ledger")) {
    if (e.is_directory() && e.path().filename().string().rfind("app=", 0) == 0) {
      partitions.push_back(e.path());
    }
  }
  std::sort(partitions.begin(), partitions.end());
  ASSERT_GE(partitions.size(), 2u) << "the premise: several partitions";
  const std::string first = std::filesystem::relative(partitions[0], lake.lake).string();
  testing::UnwritableDir locked(partitions[0]);
  auto r = Compact({"ledger", "--lake-dir", lake.lake, "--min-parts", "2", "--grace", "0s"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("1 partition(s) failed and were skipped: " + first + ": "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("\"msg\":\"compaction skipped a failed partition\""), std::string::npos)
      << r.err;
  size_t outputs = 0, locked_outputs = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(lake.lake + "/ledger")) {
    if (e.path().filename().string().rfind("compact-", 0) != 0) continue;
    ++outputs;
    locked_outputs += e.path().parent_path() == partitions[0];
  }
  EXPECT_EQ(outputs, partitions.size() - 1) << "every other partition compacted";
  EXPECT_EQ(locked_outputs, 0u);

  TempDir run;
  const int port = sinkd::outbox::testing::FreeLoopbackPort();
  Background compact({SinkdBinary().string(), "compact", "ledger", "--lake-dir", lake.lake,
                      "--min-parts", "2", "--grace", "0s", "--follow", "--every", "1h",
                      "--metrics-listen", "127.0.0.1:" + std::to_string(port)},
                     run / "compact.log");
  ASSERT_TRUE(testing::WaitUntil(
      [&] { return compact.Log().find("\"msg\":\"compaction pass") != std::string::npos; }, 60s))
      << compact.Log();
  const auto metrics = sinkd::outbox::testing::HttpGet(port, "/metrics");
  EXPECT_NE(metrics.body.find("sinkd_compact_partitions_failed_total{table=\"ledger\"} 1\n"),
            std::string::npos)
      << metrics.body;
  EXPECT_NE(metrics.body.find("sinkd_compact_partitions_pending{table=\"ledger\"} 1\n"),
            std::string::npos)
      << metrics.body;
  compact.Signal(SIGTERM);
  EXPECT_EQ(compact.Wait(20s), 0) << compact.Log();
}

// `sinkd` under a 2 GiB address-space limit (prlimit --as), as a small host or a container runs
// it; without a limit under a sanitizer, whose allocator reserves terabytes of address space.
testing::CommandResult SinkdLimited(const std::vector<std::string>& args) {
  std::vector<std::string> argv;
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  argv = {"prlimit", "--as=2147483648", "--"};
#endif
  argv.push_back(SinkdBinary().string());
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(argv, "", 120s, {"LAKE_DIR=", "AWS_ENDPOINT_URL=", "S3_BUCKET=", "NATS_URL="});
}

// A Part whose footer holds 63 Mi one-byte list elements (a valid footer otherwise: DuckDB skips
// the unknown field) cost ~6 GiB to decode, and compaction and `lake verify` decode every footer
// on every pass: under the limit both died of it (bad_alloc), compacting and verifying nothing.
// Now it is refused by name as too costly, left byte for byte, and both go on with the rest.
TEST(CompactCli, AFooterTooCostlyToDecodeIsRefusedByNameUnderAMemoryLimitAndTheRestGoesOn) {
  SmallPartsLake lake;
  ASSERT_TRUE(lake.Make());
  std::map<std::filesystem::path, std::vector<std::filesystem::path>> by_partition;
  for (const auto& e : std::filesystem::recursive_directory_iterator(lake.lake)) {
    if (e.path().extension() == ".parquet") by_partition[e.path().parent_path()].push_back(e.path());
  }
  std::filesystem::path partition;
  for (const auto& [dir, parts] : by_partition) {
    if (parts.size() >= 2) partition = dir;
  }
  ASSERT_FALSE(partition.empty()) << "the premise: a partition of several Parts to merge";
  const std::string hostile =
      testing::WithLongFooterList(testing::ReadFile(by_partition[partition].front()), 63u << 20);
  ASSERT_FALSE(hostile.empty());
  const std::filesystem::path hostile_path = partition / "part-hostile-1-1-0.parquet";
  testing::WriteFile(hostile_path, hostile);

  auto compacted = SinkdLimited({"compact", "ledger", "--lake-dir", lake.lake, "--min-parts", "2",
                                 "--grace", "1h"});
  EXPECT_EQ(compacted.exit_code, 1) << "a refused Part fails the pass, it does not kill it\n"
                                    << compacted.err;
  EXPECT_NE(compacted.err.find("part-hostile-1-1-0.parquet"), std::string::npos) << compacted.err;
  EXPECT_NE(compacted.err.find("of memory"), std::string::npos) << compacted.err;
  EXPECT_TRUE(testing::ReadFile(hostile_path) == hostile) << "the refused Part was changed";
  bool merged_beside = false;
  for (const auto& e : std::filesystem::directory_iterator(partition)) {
    merged_beside = merged_beside || e.path().filename().string().rfind("compact-", 0) == 0;
  }
  EXPECT_TRUE(merged_beside) << "the hostile Part's neighbours were not merged\n" << compacted.err;
  size_t outputs = 0;
  for (size_t at = compacted.err.find("\"msg\":\"compaction output\""); at != std::string::npos;
       at = compacted.err.find("\"msg\":\"compaction output\"", at + 1)) {
    ++outputs;
  }
  size_t mergeable = 0;
  for (const auto& [dir, parts] : by_partition) mergeable += parts.size() >= 2 ? 1 : 0;
  EXPECT_GE(outputs, mergeable) << "every partition of several Parts should have merged\n"
                                << compacted.err;

  auto verified = SinkdLimited({"lake", "verify", "ledger", "--lake-dir", lake.lake});
  EXPECT_EQ(verified.exit_code, 1) << verified.out << verified.err;
  EXPECT_NE(verified.out.find("unreadable ledger/"), std::string::npos) << verified.out;
  EXPECT_NE(verified.out.find("part-hostile-1-1-0.parquet"), std::string::npos) << verified.out;
  EXPECT_NE(verified.out.find("of memory"), std::string::npos) << verified.out;
  EXPECT_NE(verified.out.find("covered "), std::string::npos) << "the other Parts were verified\n"
                                                              << verified.out;
}

// On a terminal (`script`, a real pseudo-terminal) the pass draws partitions done of total and
// rows/s; with stderr on a pipe it writes only its JSON log lines.
TEST(CompactCli, ProgressIsDrawnOnATerminalOnly) {
  SmallPartsLake lake;
  ASSERT_TRUE(lake.Make());
  std::string cmd;
  for (const std::string& word :
       {SinkdBinary().string(), std::string("compact"), std::string("ledger"),
        std::string("--lake-dir"), lake.lake, std::string("--min-parts"), std::string("2")}) {
    cmd.append(1, '\'').append(word).append("' ");
  }
  cmd.append(">/dev/null");
  auto tty = RunCommand({"script", "-qec", cmd, "/dev/null"}, "", 60s);
  ASSERT_EQ(tty.exit_code, 0) << tty.out;
  EXPECT_NE(tty.out.find("\rcompact ledger: "), std::string::npos) << tty.out;
  EXPECT_NE(tty.out.find(" rows/s, "), std::string::npos) << tty.out;
  EXPECT_NE(tty.out.find(" partitions"), std::string::npos) << tty.out;
  auto pipe = Compact({"ledger", "--lake-dir", lake.lake, "--min-parts", "2"});
  ASSERT_EQ(pipe.exit_code, 0) << pipe.err;
  EXPECT_EQ(pipe.err.find('\r'), std::string::npos) << pipe.err;
  EXPECT_EQ(pipe.err.find("\x1b[K"), std::string::npos) << pipe.err;
  std::istringstream lines(pipe.err);
  for (std::string line; std::getline(lines, line);) {
    EXPECT_EQ(line.rfind("{\"time\":", 0), 0u) << "not a JSON log line: " << line;
  }
}

}  // namespace
}  // namespace sinkd
