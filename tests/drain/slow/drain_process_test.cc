// The drain as a process, against a real nats-server, under the failures at-least-once is for:
// kill -9 at random moments, a broker restart, two drains sharing one durable. Slow: label `slow`.
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <random>
#include <regex>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "jetstream/jetstream_test_support.h"
#include "traffic/traffic_generator.h"

namespace sinkd {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using testing::WaitUntil;

// A `sinkd drain ledger` child with its stderr in a file.
class DrainProcess {
 public:
  DrainProcess(const testing::NatsServer& server, const fs::path& lake, const fs::path& log,
               const std::string& instance, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {testing::SinkdBinary().string(),
                                     "drain", "ledger", "--nats-url", server.url(),
                                     "--lake-dir", lake.string(), "--instance-id", instance,
                                     "--batch-interval", "500ms", "--ack-wait", "3s"};
    // A flag given twice is an error; extra flags replace these defaults.
    if (std::find(extra.begin(), extra.end(), "--batch-max-rows") == extra.end()) {
      extra.insert(extra.end(), {"--batch-max-rows", "20000"});
    }
    args.insert(args.end(), extra.begin(), extra.end());
    const pid_t parent = ::getpid();
    pid_ = ::fork();
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (::getppid() != parent) ::_exit(127);
      int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      ::dup2(fd, 2);
      int null = ::open("/dev/null", O_RDWR);
      ::dup2(null, 0);
      ::dup2(null, 1);
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
  }
  ~DrainProcess() { Kill(); }
  void Kill() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
  // SIGTERM and the exit status (-1 if it had to be killed after 60 s). The signal is sent once the
  // child catches it: a SIGTERM that lands between fork and the handler's installation takes the
  // default action (143), which says nothing about how the drain shuts down.
  int Terminate() {
    if (pid_ <= 0) return -1;
    (void)WaitUntil([&] { return CatchesSigterm(); }, 10s);
    ::kill(pid_, SIGTERM);
    int status = 0;
    for (int i = 0; i < 600; ++i) {
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      std::this_thread::sleep_for(100ms);
    }
    Kill();
    return -1;
  }

 private:
  // /proc/<pid>/status lists caught signals as a hex mask; SIGTERM is bit 14.
  bool CatchesSigterm() const {
    std::istringstream status(testing::ReadFile("/proc/" + std::to_string(pid_) + "/status"));
    for (std::string line; std::getline(status, line);) {
      if (line.rfind("SigCgt:", 0) == 0) {
        const uint64_t mask = std::stoull(line.substr(7), nullptr, 16);
        return (mask >> (SIGTERM - 1)) & 1;
      }
    }
    return false;
  }

  pid_t pid_ = -1;
};

struct Published {
  int64_t good_events = 0;
  int64_t bad_records = 0;
};

Published PublishTraffic(jetstream::Connection& c, int messages, double bad_share, uint64_t seed) {
  traffic::TrafficOptions o;
  o.seed = seed;
  o.bad_share = bad_share;
  o.events_per_batch = 500;
  o.expected_events = int64_t{messages} * 500;
  traffic::TrafficGenerator g(o);
  for (int i = 0; i < messages; ++i) testing::Publish(c, "garm.v1.ledger.acme.svc", g.NextLedgerMessage());
  return {g.stats().good_events, g.stats().bad_records()};
}

std::vector<std::string> Counts(const fs::path& lake) {
  auto q = testing::DuckDb("SELECT count(*), count(DISTINCT event_id) FROM read_parquet(" +
                           testing::SqlQuote((lake / "ledger/**/*.parquet").string()) +
                           ", hive_partitioning=true)");
  EXPECT_TRUE(q.ok) << "every Part must be readable: " << q.error;
  return q.ok ? q.rows[0] : std::vector<std::string>{"0", "0"};
}

bool Drained(jetstream::Connection& c) {
  auto s = jetstream::GetConsumerState(c, "GARM_LEDGER", "sink-ledger");
  return s.ok() && s->pending == 0 && s->ack_pending == 0;
}

// The promise at its hardest: 200,000 events, the drain killed with SIGKILL at 20 random moments
// (mid-fetch, mid-write, mid-ack) and restarted each time. Afterwards every event is in the lake
// after dedupe, every Part is readable, nothing but `.incomplete` files is left over, and every
// bad record has exactly one dead letter.
TEST(DrainProcess, KillNineAtTwentyRandomMomentsLosesNothing) {
  testing::NatsServer server;
  ASSERT_TRUE(server.ok()) << server.error();
  auto c = testing::Connect(server);
  testing::ProvisionAll(*c);
  const Published sent = PublishTraffic(*c, 400, 0.0005, 20261130);
  ASSERT_GT(sent.good_events, 199'000);
  testing::TempDir dir;
  const fs::path lake = dir / "lake";
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> delay_ms(150, 1500);
  int killed_mid_run = 0;
  for (int i = 0; i < 20; ++i) {
    DrainProcess drain(server, lake, dir / "drain.log", "crash" + std::to_string(i));
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(rng)));
    if (!Drained(*c)) ++killed_mid_run;
    drain.Kill();
  }
  EXPECT_GE(killed_mid_run, 5) << "premise: most kills must land while work was in flight";
  DrainProcess last(server, lake, dir / "drain.log", "final");
  ASSERT_TRUE(WaitUntil([&] { return Drained(*c); }, 120s))
      << testing::ReadFile(dir / "drain.log").substr(0, 4000);
  EXPECT_EQ(last.Terminate(), 0) << "SIGTERM is a clean exit";

  const auto counts = Counts(lake);
  EXPECT_EQ(counts[1], std::to_string(sent.good_events)) << "an event is missing from the lake";
  EXPECT_GE(std::stoll(counts[0]), sent.good_events);
  for (const auto& e : fs::recursive_directory_iterator(lake)) {
    if (!e.is_regular_file()) continue;
    const std::string name = e.path().filename().string();
    const bool part = name.size() > 8 && name.substr(name.size() - 8) == ".parquet";
    const bool incomplete =
        name.find(".parquet.") != std::string::npos && name.ends_with(".incomplete");
    EXPECT_TRUE(part || incomplete) << "unexpected leftover " << e.path();
  }
  EXPECT_EQ(testing::ReadStream(*c, "GARM_SINK_DEAD").size(), static_cast<size_t>(sent.bad_records))
      << "each bad record is dead-lettered exactly once (Msg-Id), none lost";
}

// A broker restart in the middle of a drain costs some failed fetches and nothing else.
TEST(DrainProcess, ANatsServerRestartInTheMiddleOfADrainLosesNothing) {
  testing::NatsServer server;
  ASSERT_TRUE(server.ok()) << server.error();
  testing::TempDir dir;
  const fs::path lake = dir / "lake";
  Published first, second;
  {
    auto c = testing::Connect(server);
    testing::ProvisionAll(*c);
    first = PublishTraffic(*c, 60, 0, 11);
  }
  DrainProcess drain(server, lake, dir / "drain.log", "restart");
  // Restart only once the drain is running: a drain that cannot reach the broker at start-up
  // exits (its supervisor restarts it), which is not what this test is about.
  ASSERT_TRUE(WaitUntil(
      [&] { return testing::ReadFile(dir / "drain.log").find("sinkd drain started") != std::string::npos; },
      60s))
      << testing::ReadFile(dir / "drain.log");
  std::this_thread::sleep_for(700ms);
  ASSERT_TRUE(server.Restart()) << server.error();
  {
    auto c = testing::Connect(server);
    second = PublishTraffic(*c, 60, 0, 12);
    ASSERT_TRUE(WaitUntil([&] { return Drained(*c); }, 60s))
        << testing::ReadFile(dir / "drain.log").substr(0, 4000);
  }
  EXPECT_EQ(drain.Terminate(), 0);
  EXPECT_EQ(Counts(lake)[1], std::to_string(first.good_events + second.good_events));
}

// Any number of drains can share one durable: each takes its own messages, keys carry the
// instance and the sequence range, so no key is written twice and every event lands.
TEST(DrainProcess, TwoDrainsOnOneDurableLandEveryEventWithNoKeyWrittenTwice) {
  testing::NatsServer server;
  ASSERT_TRUE(server.ok()) << server.error();
  auto c = testing::Connect(server);
  testing::ProvisionAll(*c);
  testing::TempDir dir;
  const fs::path lake = dir / "lake";
  const Published sent = PublishTraffic(*c, 200, 0, 13);
  {
    DrainProcess a(server, lake, dir / "a.log", "drain-a", {"--batch-max-rows", "5000", "--fetch-max", "4"});
    DrainProcess b(server, lake, dir / "b.log", "drain-b", {"--batch-max-rows", "5000", "--fetch-max", "4"});
    ASSERT_TRUE(WaitUntil([&] { return Drained(*c); }, 90s));
    EXPECT_EQ(a.Terminate(), 0);
    EXPECT_EQ(b.Terminate(), 0);
  }
  // Each flush logs how many Parts it wrote; if any key had been written twice, fewer files than
  // that would be on disk.
  const std::regex parts_re(R"("msg":"flushed batch".*"parts":(\d+))");
  size_t logged_parts = 0;
  std::map<std::string, size_t> per_instance;
  for (const char* name : {"a.log", "b.log"}) {
    std::string log = testing::ReadFile(dir / name);
    for (std::sregex_iterator it(log.begin(), log.end(), parts_re), end; it != end; ++it) {
      logged_parts += std::stoul((*it)[1]);
      per_instance[name] += std::stoul((*it)[1]);
    }
  }
  size_t files = 0;
  for (const auto& e : fs::recursive_directory_iterator(lake / "ledger")) {
    if (e.is_regular_file() && e.path().extension() == ".parquet") ++files;
  }
  EXPECT_EQ(per_instance.size(), 2u);
  EXPECT_GT(per_instance["a.log"], 0u) << "premise: both drains took a share";
  EXPECT_GT(per_instance["b.log"], 0u) << "premise: both drains took a share";
  EXPECT_EQ(files, logged_parts) << "a key was written twice (a Part was overwritten)";
  EXPECT_EQ(Counts(lake)[1], std::to_string(sent.good_events));
}

// The data files of the newest snapshot of the table at `table` (a directory), as icebird (npm, an
// independent reader) finds them through the manifest list and the manifests.
std::vector<std::string> TableFiles(const fs::path& table, int* snapshots) {
  testing::CommandResult r = testing::RunCommand(
      {"node", (testing::SourceDir() / "tools/icebird-read.mjs").string(),
       "file://" + table.string(), "--files"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out, nullptr, false);
  std::vector<std::string> files;
  EXPECT_FALSE(j.is_discarded()) << r.out.size() << " bytes: " << r.out.substr(0, 300) << r.err;
  if (j.is_discarded()) return files;
  *snapshots = j.value("snapshots", 0);
  for (const auto& f : j["files"]) {
    const std::string uri = f.get<std::string>();
    files.push_back(uri.substr(uri.rfind("file://", 0) == 0 ? 7 : 0));
  }
  return files;
}

// Exactly once in the table (issue 26 §3): two drains on one durable, both committing every flush
// to the ledger table, kill -9'd at random moments twelve times over while 160,000 events arrive,
// then one drain killed once its commits had outrun its acks (190,000 events in all). A flush
// whose commit landed but whose acks died with its drain is redelivered, to either drain; the
// table must hold its rows once (the redelivery is filtered against the table's positions), while
// the raw Parts may hold them twice. Read through the manifests (icebird), counted by DuckDB.
TEST(DrainProcess, KillNineStormsOfTwoIcebergDrainsOnOneDurableLeaveOneRowPerEventInTheTable) {
  testing::NatsServer server;
  ASSERT_TRUE(server.ok()) << server.error();
  auto c = testing::Connect(server);
  testing::ProvisionAll(*c);
  // More traffic arrives between rounds, so every round's drains have work when they are killed.
  Published sent = PublishTraffic(*c, 80, 0, 20261226);
  testing::TempDir dir;
  const fs::path lake = dir / "lake";
  const std::vector<std::string> table = {"--table-format", "iceberg", "--batch-max-rows", "5000",
                                          "--fetch-max", "4"};
  std::mt19937 rng(26);
  std::uniform_int_distribution<int> delay_ms(150, 1500), apart_ms(0, 600);
  int killed_mid_run = 0;
  for (int i = 0; i < 12; ++i) {
    sent.good_events += PublishTraffic(*c, 20, 0, 20261300 + i).good_events;
    DrainProcess a(server, lake, dir / "a.log", "storm-a" + std::to_string(i), table);
    DrainProcess b(server, lake, dir / "b.log", "storm-b" + std::to_string(i), table);
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms(rng)));
    if (!Drained(*c)) ++killed_mid_run;
    a.Kill();
    std::this_thread::sleep_for(std::chrono::milliseconds(apart_ms(rng)));
    b.Kill();
  }
  EXPECT_GE(killed_mid_run, 6) << "premise: most kills must land while work was in flight";
  const auto versions = [&] {
    int n = 0;
    if (!fs::exists(lake / "ledger/metadata")) return n;
    for (const auto& e : fs::directory_iterator(lake / "ledger/metadata")) {
      n += e.path().filename().string().ends_with(".metadata.json");
    }
    return n;
  };
  const int storm_versions = versions();
  EXPECT_GE(storm_versions, 2) << "premise: the killed drains committed to the table";

  // A random kill rarely falls between a commit and its acks, so one round makes it happen: the
  // broker stops (gracefully: no stored message is lost) under a drain that holds batches, the
  // drain commits them (the table needs no broker), their acks wait in the client's reconnect
  // buffer, and kill -9 discards them. The final drains get those messages again.
  sent.good_events += PublishTraffic(*c, 60, 0, 20261400).good_events;
  const auto delivered = [&] {
    auto s = jetstream::GetConsumerState(*c, "GARM_LEDGER", "sink-ledger");
    return s.ok() ? s->delivered_stream : 0;
  };
  const uint64_t storms_delivered = delivered();
  {
    DrainProcess lone(server, lake, dir / "a.log", "acks-lost", table);
    ASSERT_TRUE(WaitUntil([&] { return delivered() > storms_delivered; }, 60s))
        << "premise: the drain holds messages the storms never saw";
    c.reset();
    server.Stop();
    // Until its commits stop: the batches it held are in the table, their acks nowhere.
    int seen = versions();
    auto quiet_since = std::chrono::steady_clock::now();
    (void)WaitUntil(
        [&] {
          const int now = versions();
          if (now != seen) seen = now, quiet_since = std::chrono::steady_clock::now();
          return std::chrono::steady_clock::now() - quiet_since > 2s;
        },
        30s);
    lone.Kill();
  }
  ASSERT_TRUE(server.Restart()) << server.error();
  c = testing::Connect(server);
  ASSERT_GT(sent.good_events, 189'000);
  {
    DrainProcess a(server, lake, dir / "a.log", "final-a", table);
    DrainProcess b(server, lake, dir / "b.log", "final-b", table);
    ASSERT_TRUE(WaitUntil([&] { return Drained(*c); }, 180s))
        << testing::ReadFile(dir / "a.log").substr(0, 3000);
    EXPECT_EQ(a.Terminate(), 0);
    EXPECT_EQ(b.Terminate(), 0);
  }

  int snapshots = 0;
  const std::vector<std::string> files = TableFiles(lake / "ledger", &snapshots);
  ASSERT_FALSE(files.empty());
  // The listed files, hard-linked side by side for one DuckDB glob (their names as a list
  // would pass the command line's length limit).
  const fs::path view = dir / "table-files";
  fs::create_directories(view);
  for (size_t i = 0; i < files.size(); ++i) {
    std::error_code error;
    fs::create_hard_link(files[i], view / (std::to_string(i) + ".parquet"), error);
    ASSERT_FALSE(error) << "the table names " << files[i] << ": " << error.message();
  }
  auto q = testing::DuckDb("SELECT count(*), count(DISTINCT event_id) FROM read_parquet(" +
                           testing::SqlQuote((view / "*.parquet").string()) +
                           ", hive_partitioning=false, union_by_name=true)");
  ASSERT_TRUE(q.ok) << "every file the table names must be readable: " << q.error;
  const std::string expected = std::to_string(sent.good_events);
  EXPECT_EQ(q.rows[0][1], expected) << "an event is missing from the table";
  EXPECT_EQ(q.rows[0][0], expected) << "the table holds an event twice: 1.000 rows per expected";
  const auto raw = Counts(lake);
  EXPECT_EQ(raw[1], expected);
  size_t parts = 0;
  for (const auto& e : fs::recursive_directory_iterator(lake / "ledger")) {
    parts += e.is_regular_file() && e.path().extension() == ".parquet";
  }
  size_t filtered = 0;
  const std::regex filtered_re(R"("msg":"messages already in the table[^\n]*"messages":(\d+))");
  for (const char* name : {"a.log", "b.log"}) {
    const std::string log = testing::ReadFile(dir / name);
    for (std::sregex_iterator it(log.begin(), log.end(), filtered_re), end; it != end; ++it) {
      filtered += std::stoul((*it)[1]);
    }
  }
  EXPECT_GT(filtered, 0u) << "premise: messages whose commit landed came back and were dropped";
  std::cout << "metadata versions written by the killed drains: " << storm_versions
            << "; messages redelivered after their commit and dropped: " << filtered << "\n";
  std::cout << "table: " << q.rows[0][0] << " rows in " << files.size() << " files, " << snapshots
            << " snapshots; raw Parts: " << raw[0] << " rows in " << parts << " Parts ("
            << std::stod(raw[0]) / double(sent.good_events) << " per expected row)\n";
}

}  // namespace
}  // namespace sinkd
