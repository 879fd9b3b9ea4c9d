// End to end through the binary: wire messages → `sinkd import` → a hive lake on disk → DuckDB.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <random>
#include <regex>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "contract/delimited.h"
#include "garm/ledger/v1/event.pb.h"
#include "support/lake_files.h"
#include "support/support.h"
#include "traffic/traffic_generator.h"

namespace sinkd {
namespace {

namespace fs = std::filesystem;
using garm::ledger::v1::Batch;
using garm::ledger::v1::Event;
using testing::DuckDb;
using testing::RunCommand;
using testing::SinkdBinary;
using testing::SqlQuote;
using testing::TempDir;

constexpr int64_t k2026_09_29 = 1'790'640'000;  // seconds

Event MakeEvent(const std::string& id, const std::string& app, int64_t seconds, int32_t nanos = 0) {
  Event e;
  e.set_event_id(id);
  e.mutable_time()->set_seconds(seconds);
  e.mutable_time()->set_nanos(nanos);
  e.set_tenant("acme");
  e.set_app(app);
  e.set_outcome("ok");
  return e;
}

std::string LedgerFile(const std::vector<std::vector<Event>>& messages) {
  std::string out;
  for (const auto& events : messages) {
    Batch batch;
    for (const Event& e : events) *batch.add_events() = e;
    contract::AppendDelimited(out, batch.SerializeAsString());
  }
  return out;
}

testing::CommandResult Import(const fs::path& lake, const fs::path& input,
                              std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {SinkdBinary().string(), "import",     "ledger", "--lake-dir",
                                   lake.string(),          "--instance-id", "box-77"};
  args.insert(args.end(), extra.begin(), extra.end());
  args.push_back(input.string());
  return RunCommand(args);
}

using testing::LakeFiles;  // safe beside a running import

std::string LakeGlob(const fs::path& lake) { return SqlQuote((lake / "ledger/**/*.parquet").string()); }

// The whole path, with realistic traffic and bad records mixed in: every good event becomes exactly
// one row, every bad record exactly one dead letter, and DuckDB reads it without being told
// anything but hive_partitioning.
TEST(Import, RecordedTrafficBecomesAQueryableLakeWithEveryBadRecordDeadLettered) {
  TempDir tmp;
  traffic::TrafficOptions options;
  options.seed = 42;
  options.bad_share = 0.01;
  options.events_per_batch = 50;
  options.expected_events = 4000;
  traffic::TrafficGenerator generator(options);
  ASSERT_TRUE(traffic::WriteDelimitedFile(generator, traffic::StreamKind::kLedger, 80,
                                          (tmp / "in.bin").string())
                  .ok());
  const traffic::TrafficStats& stats = generator.stats();
  ASSERT_GT(stats.bad_records(), 0) << "premise: the input must contain bad records";

  auto r = Import(tmp / "lake", tmp / "in.bin");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string glob = LakeGlob(tmp / "lake");
  auto q = DuckDb("SELECT count(*), count(DISTINCT event_id), count(DISTINCT app) > 3, "
                  "min(date)::VARCHAR, max(date)::VARCHAR FROM read_parquet(" + glob +
                  ", hive_partitioning=true)");
  ASSERT_TRUE(q.ok) << q.error;
  EXPECT_EQ(q.rows[0][0], std::to_string(stats.good_events)) << "every good event is one row";
  EXPECT_EQ(q.rows[0][1], std::to_string(stats.good_events)) << "event ids are unique";
  EXPECT_EQ(q.rows[0][2], "true") << "several app partitions";
  EXPECT_EQ(q.rows[0][3], "2026-09-29");

  auto dead = DuckDb("SELECT count(*) FROM read_json(" +
                     SqlQuote((tmp / "lake/dead-letters/**/*.jsonl").string()) + ")");
  ASSERT_TRUE(dead.ok) << dead.error;
  EXPECT_EQ(dead.rows[0][0], std::to_string(stats.bad_records()))
      << "every bad record must be kept as a dead letter, none dropped";
  // One batch, one line for its unreadable records however many there are (one per record
  // before), naming their count.
  size_t errors = 0;
  for (size_t at = r.err.find("\"level\":\"ERROR\""); at != std::string::npos;
       at = r.err.find("\"level\":\"ERROR\"", at + 1)) {
    ++errors;
  }
  EXPECT_EQ(errors, 1u) << r.err;
  EXPECT_NE(r.err.find("\"msg\":\"unreadable records in this batch; dead-lettering them\""),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(",\"records\":" + std::to_string(stats.bad_records()) + ","),
            std::string::npos)
      << r.err;

  const std::regex key(R"(.*/ledger/date=\d{4}-\d\d-\d\d/app=[A-Za-z0-9._~%-]*/part-box-77-1-80-\d+\.parquet)");
  const auto parts = LakeFiles(tmp / "lake", ".parquet");
  ASSERT_FALSE(parts.empty());
  for (const auto& p : parts) EXPECT_TRUE(std::regex_match(p.string(), key)) << p;
  EXPECT_TRUE(LakeFiles(tmp / "lake", ".incomplete").empty());

  auto meta = DuckDb("SELECT DISTINCT compression FROM parquet_metadata(" + glob + ")");
  ASSERT_TRUE(meta.ok) << meta.error;
  ASSERT_EQ(meta.rows.size(), 1u);
  EXPECT_EQ(meta.rows[0][0], "ZSTD") << "every column chunk must be ZSTD";
}

// Sentinel values in every field must come back in the right column, with the right type:
// a swapped pair of columns would pass any count-based test.
TEST(Import, EveryFieldLandsInItsOwnColumn) {
  TempDir tmp;
  Event e = MakeEvent("evt-1", "svc-b", k2026_09_29 + 36000, 123456789);
  e.set_tenant("t1");
  e.set_feature("f1");
  e.set_run_id("r1");
  e.set_correlation_id("c1");
  e.set_causation_id("ca1");
  e.set_budget_id("b1");
  (*e.mutable_tags())["z"] = "<&>";
  (*e.mutable_tags())["a"] = "1";
  e.set_prompt_name("p1");
  e.set_prompt_hash("h1");
  e.set_alias("al1");
  e.set_resolved_model("m1");
  e.set_model_overridden(true);
  e.mutable_usage()->set_input_tokens(11);
  e.mutable_usage()->set_output_tokens(12);
  e.mutable_usage()->set_cached_tokens(13);
  e.mutable_usage()->set_reasoning_tokens(14);
  e.set_cost_usd(1.5);
  e.set_cost_source("computed");
  e.set_latency_ms(-7);
  e.set_provider_request_id("pr1");
  e.set_fallback_used(true);
  e.set_outcome("error");
  e.set_error_kind("ek1");
  e.set_policy_mode("pm1");
  e.add_policy_violations("dlp:ssn");
  e.set_tool("tool1");
  e.set_principal_subject("ps1");
  e.set_principal_actor("pa1");
  e.set_principal_kind("PRINCIPAL_KIND_AGENT");
  e.set_chain_depth(3);
  e.set_clearance_effective("CLEARANCE_INTERNAL");
  e.add_compartments_effective("financial");
  e.add_compartments_effective("pii-contact");
  e.set_redaction_plan("rp1");
  e.set_redaction_count(21);
  e.set_disclosed_count(22);
  e.set_error_detail("line1\nline2 \"quoted\" caf\xC3\xA9");
  e.set_execution_subject("runner-1");
  testing::WriteFile(tmp / "in.bin", LedgerFile({{e}}));
  auto r = Import(tmp / "lake", tmp / "in.bin");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto q = DuckDb("SELECT * FROM read_parquet(" + LakeGlob(tmp / "lake") +
                  ", hive_partitioning=true)");
  ASSERT_TRUE(q.ok) << q.error;
  ASSERT_EQ(q.rows.size(), 1u);
  const std::vector<std::pair<std::string, std::string>> want = {
      {"event_id", "evt-1"}, {"time", "2026-09-29 10:00:00.123456+00"}, {"tenant", "t1"},
      {"feature", "f1"}, {"run_id", "r1"}, {"correlation_id", "c1"}, {"causation_id", "ca1"},
      {"budget_id", "b1"}, {"tags_json", "{\"a\":\"1\",\"z\":\"\\u003c\\u0026\\u003e\"}"},
      {"prompt_name", "p1"}, {"prompt_hash", "h1"}, {"alias", "al1"}, {"resolved_model", "m1"},
      {"model_overridden", "true"}, {"input_tokens", "11"}, {"output_tokens", "12"},
      {"cached_tokens", "13"}, {"reasoning_tokens", "14"}, {"cost_usd", "1.5"},
      {"cost_source", "computed"}, {"latency_ms", "-7"}, {"provider_request_id", "pr1"},
      {"fallback_used", "true"}, {"outcome", "error"}, {"error_kind", "ek1"},
      {"policy_mode", "pm1"}, {"policy_violations", "[\"dlp:ssn\"]"}, {"tool", "tool1"},
      {"principal_subject", "ps1"}, {"principal_actor", "pa1"},
      {"principal_kind", "PRINCIPAL_KIND_AGENT"}, {"chain_depth", "3"},
      {"clearance_effective", "CLEARANCE_INTERNAL"},
      {"compartments_effective", "[\"financial\",\"pii-contact\"]"}, {"redaction_plan", "rp1"},
      {"redaction_count", "21"}, {"disclosed_count", "22"},
      {"error_detail", "line1\nline2 \"quoted\" caf\xC3\xA9"}, {"execution_subject", "runner-1"},
      {"date", "2026-09-29"}, {"app", "svc-b"}};
  ASSERT_EQ(q.columns.size(), want.size()) << "39 file columns + date + app";
  for (const auto& [name, value] : want) {
    auto it = std::find(q.columns.begin(), q.columns.end(), name);
    ASSERT_NE(it, q.columns.end()) << "missing column " << name;
    EXPECT_EQ(q.rows[0][it - q.columns.begin()], value) << "column " << name;
  }
  auto types = DuckDb("SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet(" +
                      LakeGlob(tmp / "lake") + ", hive_partitioning=true)) WHERE column_name IN "
                      "('time','chain_depth','input_tokens','cost_usd','fallback_used','date') "
                      "ORDER BY 1");
  ASSERT_TRUE(types.ok) << types.error;
  std::string joined;
  for (const auto& row : types.rows) joined += row[0] + "=" + row[1] + ";";
  EXPECT_EQ(joined, "chain_depth=INTEGER;cost_usd=DOUBLE;date=DATE;fallback_used=BOOLEAN;"
                    "input_tokens=BIGINT;time=TIMESTAMP WITH TIME ZONE;");
}

// Partition values are untrusted: each must stay in its own directory and read back exactly.
TEST(Import, UntrustedAppNamesStayInTheirPartitionAndReadBackExactly) {
  TempDir tmp;
  const std::vector<std::string> apps = {"",    " ",     "a/b",  "../../etc", "a=b",
                                         "%41", "caf\xC3\xA9", "12345"};
  std::vector<Event> events;
  for (size_t i = 0; i < apps.size(); ++i) {
    events.push_back(MakeEvent("e" + std::to_string(i), apps[i], k2026_09_29 + 60 * i));
  }
  const std::string long_app(300, 'x');
  events.push_back(MakeEvent("long", long_app, k2026_09_29));
  testing::WriteFile(tmp / "in.bin", LedgerFile({events}));
  auto r = Import(tmp / "lake", tmp / "in.bin");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& p : LakeFiles(tmp / "lake", ".parquet")) {
    EXPECT_EQ(fs::relative(p, tmp / "lake").begin()->string(), "ledger")
        << "a Part escaped the lake: " << p;
  }
  auto q = DuckDb("SELECT event_id, app FROM read_parquet(" + LakeGlob(tmp / "lake") +
                  ", hive_partitioning=true, hive_types={'app': 'VARCHAR'}) ORDER BY event_id");
  ASSERT_TRUE(q.ok) << q.error;
  ASSERT_EQ(q.rows.size(), apps.size() + 1);
  for (size_t i = 0; i < apps.size(); ++i) {
    EXPECT_EQ(q.rows[i][0], "e" + std::to_string(i));
    EXPECT_EQ(q.rows[i][1], apps[i]) << "app of e" << i << " did not read back exactly";
  }
  // A name too long for a directory (`app=` + 300 > 255) is shortened in the path, which hive
  // reading prefers; the Part itself holds it exactly.
  EXPECT_EQ(q.rows.back()[0], "long");
  EXPECT_EQ(q.rows.back()[1].substr(0, 100), long_app.substr(0, 100));
  EXPECT_NE(q.rows.back()[1], long_app);
  auto exact = DuckDb("SELECT app FROM read_parquet(" + LakeGlob(tmp / "lake") +
                      ", hive_partitioning=false) WHERE event_id = 'long'");
  ASSERT_TRUE(exact.ok) << exact.error;
  ASSERT_EQ(exact.rows.size(), 1u);
  EXPECT_EQ(exact.rows[0][0], long_app);
}

// The same messages must give byte-identical Parts, so a redelivered batch rewrites the same file
// and duplicate rows are byte-identical whichever instance wrote them.
TEST(Import, TheSameMessagesGiveByteIdenticalParts) {
  TempDir tmp;
  traffic::TrafficOptions options;
  options.seed = 9;
  options.events_per_batch = 100;
  options.expected_events = 3000;
  traffic::TrafficGenerator generator(options);
  ASSERT_TRUE(traffic::WriteDelimitedFile(generator, traffic::StreamKind::kLedger, 30,
                                          (tmp / "in.bin").string())
                  .ok());
  ASSERT_EQ(Import(tmp / "a", tmp / "in.bin").exit_code, 0);
  ASSERT_EQ(Import(tmp / "b", tmp / "in.bin").exit_code, 0);
  const auto a = LakeFiles(tmp / "a", ".parquet"), b = LakeFiles(tmp / "b", ".parquet");
  ASSERT_EQ(a.size(), b.size());
  ASSERT_FALSE(a.empty());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(fs::relative(a[i], tmp / "a"), fs::relative(b[i], tmp / "b"));
    EXPECT_TRUE(testing::ReadFile(a[i]) == testing::ReadFile(b[i])) << a[i] << " differs";
  }
}

// A Part is acked only when the directory entries leading to it are durable: its directory and
// every one above it up to the lake root are fsync'd, also when another process made them (this
// test makes the tree; `sinkd import` only puts Parts in it), and each ancestor only once per
// process. strace shows which directories the binary really fsync'd.
TEST(Import, EveryDirectoryUpToTheLakeRootIsSyncedOnceWhoeverMadeIt) {
  TempDir tmp;
  const fs::path lake = tmp / "lake";
  fs::create_directories(lake / "ledger/date=2026-09-29/app=a");
  fs::create_directories(lake / "ledger/date=2026-09-29/app=b");
  const fs::path root = fs::canonical(lake);
  std::vector<std::vector<Event>> messages;
  for (int m = 0; m < 4; ++m) {
    messages.push_back({MakeEvent("a" + std::to_string(m), "a", k2026_09_29 + 60 * m),
                        MakeEvent("b" + std::to_string(m), "b", k2026_09_29 + 60 * m)});
  }
  testing::WriteFile(tmp / "in.bin", LedgerFile(messages));
  auto run = RunCommand({"strace", "-f", "-qq", "-y", "-e", "trace=fsync", "-o",
                         (tmp / "trace.txt").string(), SinkdBinary().string(), "import", "ledger",
                         "--lake-dir", lake.string(), "--instance-id", "box-77",
                         "--batch-max-rows", "2", (tmp / "in.bin").string()},
                        "", std::chrono::seconds(120),
                        // LeakSanitizer cannot run under ptrace: in the ASan build it would end
                        // the traced binary with an error of its own.
                        {"ASAN_OPTIONS=detect_leaks=0:abort_on_error=1"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  ASSERT_EQ(LakeFiles(lake, ".parquet").size(), 8u) << "the premise: four flushes of two Parts";
  std::map<std::string, int> synced;
  const std::regex line(R"(fsync\(\d+<([^>]*)>\) = 0)");
  const std::string trace = testing::ReadFile(tmp / "trace.txt");
  for (auto it = std::sregex_iterator(trace.begin(), trace.end(), line);
       it != std::sregex_iterator(); ++it) {
    ++synced[(*it)[1].str()];
  }
  for (const char* dir : {"", "/ledger", "/ledger/date=2026-09-29"}) {
    EXPECT_EQ(synced[root.string() + dir], 1) << "once per process: " << root.string() + dir;
  }
  for (const char* dir : {"/ledger/date=2026-09-29/app=a", "/ledger/date=2026-09-29/app=b"}) {
    EXPECT_EQ(synced[root.string() + dir], 4) << "after each flush's Part: " << dir;
  }
}

// Rows, not messages: with 50-event messages and a 120-row limit, a batch closes after the third
// message. Counting messages would make million-row files out of batched ledgers.
TEST(Import, TheBatchLimitCountsRowsNotMessages) {
  TempDir tmp;
  std::vector<std::vector<Event>> messages;
  for (int m = 0; m < 5; ++m) {
    std::vector<Event> events;
    for (int i = 0; i < 50; ++i) {
      // Appended, not "m" + std::to_string(m): gcc 12 warns on that (-Wstringop-overflow, a false
      // positive) once this file is inlined into the folder's unity translation unit.
      std::string id = "m";
      id.append(std::to_string(m)).append("-").append(std::to_string(i));
      events.push_back(MakeEvent(id, "svc", k2026_09_29 + m * 100 + i));
    }
    messages.push_back(events);
  }
  testing::WriteFile(tmp / "in.bin", LedgerFile(messages));
  auto r = Import(tmp / "lake", tmp / "in.bin", {"--batch-max-rows", "120"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> names;
  for (const auto& p : LakeFiles(tmp / "lake", ".parquet")) names.push_back(p.filename().string());
  EXPECT_EQ(names, (std::vector<std::string>{"part-box-77-1-3-0.parquet",
                                             "part-box-77-4-5-0.parquet"}));
}

// Bytes close a batch too: 400 KB messages (and as much of their rows) against a 1 MiB limit
// close one after the second message, long before the row limit. A limit past 2 GiB is refused: a string column's offsets
// are 32-bit, and a batch overshoots its limit by up to one message.
TEST(Import, TheBatchByteLimitClosesABatchAndIsCappedAtTwoGiB) {
  TempDir tmp;
  std::vector<std::vector<Event>> messages;
  for (int m = 0; m < 5; ++m) {
    std::vector<Event> events;
    for (int i = 0; i < 50; ++i) {
      std::string id = "m";  // appended: gcc 12 warns falsely on "m" + std::to_string(m)
      id.append(std::to_string(m)).append("-").append(std::to_string(i));
      events.push_back(MakeEvent(id, "svc", k2026_09_29 + m * 100 + i));
      events.back().set_error_detail(std::string(8000, 'd'));
    }
    messages.push_back(events);
  }
  testing::WriteFile(tmp / "in.bin", LedgerFile(messages));
  auto r = Import(tmp / "lake", tmp / "in.bin", {"--batch-max-bytes", "1048576"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> names;
  for (const auto& p : LakeFiles(tmp / "lake", ".parquet")) names.push_back(p.filename().string());
  // About 400 KB of message and as much again of decoded rows each: the batch holds both, as a
  // drain's does, so it passes 1 MiB at its second message.
  EXPECT_EQ(names, (std::vector<std::string>{"part-box-77-1-2-0.parquet",
                                             "part-box-77-3-4-0.parquet",
                                             "part-box-77-5-5-0.parquet"}));
  for (const char* bad : {"2147483649", "1000"}) {
    auto refused = Import(tmp / "other", tmp / "in.bin", {"--batch-max-bytes", bad});
    EXPECT_EQ(refused.exit_code, 2) << bad;
    EXPECT_NE(refused.err.find(std::string("--batch-max-bytes ") + bad +
                               ": must be between 1048576 (1 MiB) and 2147483648 (2 GiB)"),
              std::string::npos)
        << refused.err;
    EXPECT_FALSE(fs::exists(tmp / "other")) << "refused before anything is written";
  }
}

// A message with no readable event must not create an empty Part: zero rows write no file.
TEST(Import, ZeroRowsWriteNoPartButKeepTheDeadLetters) {
  TempDir tmp;
  std::string in;
  contract::AppendDelimited(in, "{\"event_id\":\"x\"}");
  Event no_time = MakeEvent("e1", "svc", k2026_09_29);
  no_time.clear_time();
  Batch batch;
  *batch.add_events() = no_time;
  contract::AppendDelimited(in, batch.SerializeAsString());
  contract::AppendDelimited(in, Batch().SerializeAsString());  // empty: neither rows nor rejects
  testing::WriteFile(tmp / "in.bin", in);
  auto r = Import(tmp / "lake", tmp / "in.bin");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(LakeFiles(tmp / "lake", ".parquet").empty());
  auto dead = DuckDb("SELECT reason, error, sequence, event_index FROM read_json(" +
                     SqlQuote((tmp / "lake/dead-letters/**/*.jsonl").string()) + ") ORDER BY sequence");
  ASSERT_TRUE(dead.ok) << dead.error;
  ASSERT_EQ(dead.rows.size(), 2u);
  EXPECT_EQ(dead.rows[0][0], "unmarshal");
  EXPECT_NE(dead.rows[0][1].find("the payload looks like JSON"), std::string::npos);
  EXPECT_EQ(dead.rows[0][3], "-1");
  EXPECT_EQ(dead.rows[1][0], "missing_time");
  EXPECT_EQ(dead.rows[1][1], "time is unset");
  EXPECT_EQ(dead.rows[1][3], "0");
}

// kill -9 at arbitrary moments must never leave a Part a reader would open and fail on: only
// whole Parts and `.incomplete` leftovers. A rerun then lands every event (with duplicates).
TEST(Import, AKilledImportLeavesOnlyWholePartsAndIncompleteLeftovers) {
  TempDir tmp;
  traffic::TrafficOptions options;
  options.seed = 5;
  options.events_per_batch = 500;
  options.expected_events = 100'000;
  traffic::TrafficGenerator generator(options);
  ASSERT_TRUE(traffic::WriteDelimitedFile(generator, traffic::StreamKind::kLedger, 200,
                                          (tmp / "in.bin").string())
                  .ok());
  // Kill moments are set by progress, not by the clock. Attempt a waits until the lake holds a
  // random number of new Parts from the a-th eighth of a whole run's; then an even attempt waits a
  // random pause of up to a twentieth of a whole run and an odd one waits for a Part of its own to
  // be in the middle of its writing (a new `.incomplete`). Fractions of one timed run failed on a
  // loaded CI machine, where the timed run and the killed ones can differ 2x in speed: too fast and
  // runs finish before their kill, too slow and every kill lands before the first Part. A Part
  // here goes to disk in one write(2), so the moment a Part would be torn if it were written at
  // its key is microseconds wide: DirDestination's own test pins that no bytes appear at the key
  // before Commit; this one, that what kills leave is readable and a rerun completes the lake.
  const auto timed_start = std::chrono::steady_clock::now();
  auto timed = Import(tmp / "timed-lake", tmp / "in.bin", {"--batch-max-rows", "10000"});
  ASSERT_EQ(timed.exit_code, 0) << timed.err;
  const auto whole_run = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - timed_start);
  const long parts_per_run = static_cast<long>(LakeFiles(tmp / "timed-lake", ".parquet").size());
  ASSERT_GE(parts_per_run, 16) << "premise: a run writes Parts throughout, not all at once";
  constexpr int kAttempts = 8;
  std::mt19937 rng(1234);
  int killed_mid_run = 0;
  std::string outcomes;  // one line per attempt, printed if a premise fails
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    const size_t parts_before = LakeFiles(tmp / "lake", ".parquet").size();
    const std::vector<fs::path> incomplete_before = LakeFiles(tmp / "lake", ".incomplete");
    const long wait_for_parts = std::uniform_int_distribution<long>(
        attempt * parts_per_run / kAttempts, (attempt + 1) * parts_per_run / kAttempts - 1)(rng);
    const bool mid_part = attempt % 2 == 1;
    const auto pause = std::chrono::milliseconds(
        mid_part ? 0 : std::uniform_int_distribution<long>(0, whole_run.count() / 20)(rng));
    pid_t pid = fork();
    if (pid == 0) {
      int devnull = open("/dev/null", O_WRONLY);
      dup2(devnull, 1);
      dup2(devnull, 2);
      execl(SinkdBinary().c_str(), "sinkd", "import", "ledger", "--lake-dir",
            (tmp / "lake").c_str(), "--instance-id", ("run" + std::to_string(attempt)).c_str(),
            "--batch-max-rows", "10000", (tmp / "in.bin").c_str(), nullptr);
      _exit(127);
    }
    // Bounded: a run that never gets so far is killed at the deadline (still a kill mid-run).
    const auto deadline = std::chrono::steady_clock::now() +
                          std::max(std::chrono::milliseconds(60'000), whole_run * 10);
    auto reached = [&] {
      if (static_cast<long>(LakeFiles(tmp / "lake", ".parquet").size() - parts_before) <
          wait_for_parts) {
        return false;
      }
      if (!mid_part) return true;
      const std::vector<fs::path> incomplete = LakeFiles(tmp / "lake", ".incomplete");
      // A new `.incomplete`: one not among those left before this attempt (both sorted).
      return !std::includes(incomplete_before.begin(), incomplete_before.end(),
                            incomplete.begin(), incomplete.end());
    };
    int status = 0;
    bool exited = false;
    while (!reached() && std::chrono::steady_clock::now() < deadline) {
      if (waitpid(pid, &status, WNOHANG) == pid) {
        exited = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(mid_part ? 0 : 2));
    }
    if (!exited) {
      std::this_thread::sleep_for(pause);
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
    }
    if (WIFSIGNALED(status)) ++killed_mid_run;
    const size_t parts_after = LakeFiles(tmp / "lake", ".parquet").size();
    const size_t incomplete_after = LakeFiles(tmp / "lake", ".incomplete").size();
    outcomes += "attempt " + std::to_string(attempt) + ": kill after " +
                std::to_string(wait_for_parts) + " new Parts and " +
                (mid_part ? std::string("a Part begun") : std::to_string(pause.count()) + " ms") +
                ": " + (WIFSIGNALED(status) ? "killed" : "finished first") + ", " +
                std::to_string(parts_after - parts_before) + " new Parts, " +
                std::to_string(incomplete_after - incomplete_before.size()) + " new .incomplete\n";
  }
  ASSERT_GT(killed_mid_run, kAttempts / 2)
      << "premise: most runs must have been killed mid-way (a whole run: " << whole_run.count()
      << " ms, " << parts_per_run << " Parts)\n" << outcomes;
  ASSERT_FALSE(LakeFiles(tmp / "lake", ".parquet").empty())
      << "premise: some killed runs got as far as whole Parts\n" << outcomes;
  ASSERT_FALSE(LakeFiles(tmp / "lake", ".incomplete").empty())
      << "premise: some kills landed while a Part was being written\n" << outcomes;
  auto partial = DuckDb("SELECT count(*) FROM read_parquet(" + LakeGlob(tmp / "lake") +
                        ", hive_partitioning=true)");
  ASSERT_TRUE(partial.ok) << "a Part left by a killed import is unreadable: " << partial.error;
  auto r = Import(tmp / "lake", tmp / "in.bin");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto q = DuckDb("SELECT count(DISTINCT event_id) FROM read_parquet(" + LakeGlob(tmp / "lake") +
                  ", hive_partitioning=true)");
  ASSERT_TRUE(q.ok) << q.error;
  EXPECT_EQ(q.rows[0][0], std::to_string(generator.stats().good_events));
  for (const auto& p : LakeFiles(tmp / "lake", ".incomplete")) {
    EXPECT_NE(p.string().find(".parquet."), std::string::npos) << p;
  }
}

}  // namespace
}  // namespace sinkd

namespace sinkd {
namespace {

// import's flush stamps: each run numbers its messages from 1 (scope "run", meaningful with the
// instance), and a flush acknowledges every message it read, the unreadable and the empty ones
// included, so verify does not take them for a gap.
TEST(Import, EveryPartNamesItsFlushAndEveryMessageItReadUnreadableOnesIncluded) {
  TempDir tmp;
  std::string input = LedgerFile({{MakeEvent("a1", "svc", k2026_09_29)}});
  contract::AppendDelimited(input, "\xff\xff not a Batch");      // 2: dead-lettered whole
  input += LedgerFile({{}});                                      // 3: no event
  input += LedgerFile({{MakeEvent("a4", "web", k2026_09_29 + 1)}});  // 4
  testing::WriteFile(tmp / "in.bin", input);
  auto r = Import(tmp / "lake", tmp / "in.bin");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto values = testing::FooterValues((tmp / "lake/ledger/**/*.parquet").string(),
                                            "sinkd.stamps");
  ASSERT_EQ(LakeFiles(tmp / "lake", ".jsonl").size(), 1u) << "the premise: message 2 is dead-lettered";
  ASSERT_EQ(values.size(), 2u) << "svc and web";
  for (const auto& [file, value] : values) {
    const auto stamps = nlohmann::json::parse(value);
    ASSERT_EQ(stamps.size(), 1u);
    EXPECT_EQ(stamps[0]["source"], "import");
    EXPECT_EQ(stamps[0]["scope"], "run");
    EXPECT_EQ(stamps[0]["instance"], "box-77");
    EXPECT_EQ(stamps[0]["acked"], nlohmann::json::parse("[[1,4]]"));
    EXPECT_EQ(stamps[0]["parts"], 2);
    EXPECT_EQ(stamps[0]["rows"], 2);
    EXPECT_EQ(stamps[0]["part_rows"], 1);
    EXPECT_EQ(fs::path(file), tmp / "lake" / stamps[0]["key"].get<std::string>());
  }
}

}  // namespace
}  // namespace sinkd
