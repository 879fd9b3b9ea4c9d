// `--table-format` through the binary: the flag and its key (`lake.table_format`) as every
// command that takes them knows them, and `sinkd drain … --table-format iceberg` against a real
// nats-server: every flush one append snapshot, the table's current snapshot holding exactly the
// good events, read by `sinkd table info`, icebird and DuckDB over the manifests' file list.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <regex>
#include <set>

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_help.h"
#include "iceberg/committers.h"
#include "jetstream/jetstream_test_support.h"
#include "table_files.h"

namespace sinkd::testing {
namespace {

using namespace std::chrono_literals;

TEST(TableFormat, ABadValueIsRefusedNamingItAndTheChoicesOnTheFlagAndInTheFile) {
  TempDir dir;
  CommandResult r = SinkdWithoutServers({"drain", "ledger", "--lake-dir", (dir / "l").string(),
                                         "--nats-url", "nats://127.0.0.1:1", "--table-format",
                                         "parquet"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--table-format: parquet not in {none,iceberg}"), std::string::npos)
      << r.err;

  const std::string file = (dir / "sinkd.toml").string();
  WriteFile(file, "[lake]\ndir = \"/tmp/x\"\ntable_format = \"delta\"\n");
  r = SinkdWithoutServers({"drain", "ledger", "--config", file});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find(file + ":3:16"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("delta not in {none,iceberg}"), std::string::npos) << r.err;
  r = SinkdWithoutServers({"validate", "--config", file, "--offline"});
  EXPECT_EQ(r.exit_code, 78) << r.out << r.err;
  EXPECT_NE((r.out + r.err).find(file + ":3:16: lake.table_format"), std::string::npos)
      << r.out << r.err;
}

TEST(TableFormat, ConfigShowAndTheCompletionKnowTheKeyAndItsChoices) {
  TempDir dir;
  const std::string file = (dir / "sinkd.toml").string();
  WriteFile(file, "[lake]\ndir = \"/tmp/x\"\ntable_format = \"iceberg\"\n");
  CommandResult show = SinkdWithoutServers({"config", "show", "--config", file});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("lake.table_format = \"iceberg\"  # " + file + ":3:16\n"),
            std::string::npos)
      << show.out;
  show = SinkdWithoutServers({"config", "show"});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("lake.table_format = \"none\"  # default\n"), std::string::npos)
      << show.out;
  const CommandResult completion = SinkdWithoutServers({"completion", "bash"});
  ASSERT_EQ(completion.exit_code, 0) << completion.err;
  EXPECT_NE(completion.out.find("drain ledger --table-format"), std::string::npos);
  EXPECT_NE(completion.out.find("none iceberg"), std::string::npos);
}

// sinkd with the destination variables emptied.
CommandResult Sinkd(std::vector<std::string> args) {
  args.insert(args.begin(), SinkdBinary().string());
  return RunCommand(args, "", 60s, {"LAKE_DIR=", "AWS_ENDPOINT_URL=", "S3_BUCKET="});
}

// Starts `sinkd drain ledger` with `args`, its stderr to `log`.
pid_t StartDrain(const std::string& log, const std::vector<std::string>& args) {
  pid_t pid = fork();
  if (pid == 0) {
    if (freopen(log.c_str(), "w", stderr) == nullptr) _exit(126);
    std::vector<std::string> all = {"sinkd", "drain", "ledger"};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    setenv("LAKE_DIR", "", 1);
    execv(SinkdBinary().c_str(), argv.data());
    _exit(127);
  }
  return pid;
}

// The flushes a drain's log reports that wrote rows (a flush of rejects only commits nothing).
int FlushesWithRows(const std::string& log) {
  const std::regex flushed(R"re("msg":"flushed batch"[^\n]*?"rows":([0-9]+))re");
  int n = 0;
  const std::string text = ReadFile(log);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), flushed);
       it != std::sregex_iterator(); ++it) {
    if (std::stoull((*it)[1]) > 0) ++n;
  }
  return n;
}

TEST(TableDrain, EveryFlushIsOneSnapshotAndTheTableHoldsExactlyTheGoodEvents) {
  NatsServer server;
  ASSERT_TRUE(server.ok()) << server.error();
  TempDir dir;
  const std::string url = server.url();
  ASSERT_EQ(Sinkd({"provision", "--nats-url", url}).exit_code, 0);
  const CommandResult gen =
      Sinkd({"generate", "ledger", "--messages", "30", "--events-per-batch", "100", "--seed", "9",
             "--bad-share", "0.01", "-o", (dir / "l.bin").string()});
  ASSERT_EQ(gen.exit_code, 0) << gen.err;
  long good = 0, bad = 0;
  ASSERT_EQ(std::sscanf(gen.out.c_str(), "generated 30 messages: %ld good events, %ld bad", &good,
                        &bad),
            2)
      << gen.out;
  ASSERT_EQ(Sinkd({"publish", "ledger", "--nats-url", url, (dir / "l.bin").string()}).exit_code, 0);

  const std::string lake = (dir / "lake").string();
  const std::string log = (dir / "drain.log").string();
  // Batches of about five messages: several flushes, each a snapshot.
  const pid_t pid = StartDrain(log, {"--nats-url", url, "--lake-dir", lake, "--batch-interval",
                                     "300ms", "--batch-max-rows", "450", "--fetch-max", "5",
                                     "--instance-id", "t1", "--table-format", "iceberg"});
  auto c = Connect(server);
  const bool drained = WaitUntil(
      [&] {
        auto s = jetstream::GetConsumerState(*c, "GARM_LEDGER", "sink-ledger");
        return s.ok() && s->pending == 0 && s->ack_pending == 0;
      },
      60s);
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(drained) << ReadFile(log);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << ReadFile(log);
  EXPECT_NE(ReadFile(log).find("\"table_format\":\"iceberg\""), std::string::npos);
  const int flushes = FlushesWithRows(log);
  EXPECT_GE(flushes, 3) << ReadFile(log);

  const CommandResult info = Sinkd({"table", "info", "ledger", "--lake-dir", lake, "--json"});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  const nlohmann::json j = nlohmann::json::parse(info.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << info.out;
  EXPECT_EQ(j["snapshots"], flushes) << "one append snapshot per flush";
  EXPECT_EQ(j["records"], good);
  ASSERT_EQ(j["positions"]["streams"].size(), 1u) << j.dump();
  const std::string stream = j["positions"]["streams"].begin().key();
  EXPECT_EQ(stream.rfind("GARM_LEDGER@", 0), 0u) << stream;
  const auto state = jetstream::GetStreamState(*c, "GARM_LEDGER");
  ASSERT_TRUE(state.ok());
  EXPECT_EQ(stream, "GARM_LEDGER@" + state->created) << "named by the stream's creation time";

  // DuckDB over the manifests' file list: every good event once, and nothing else.
  std::string list;
  for (const std::string& f : ManifestFiles(j["metadata"].get<std::string>())) {
    list += (list.empty() ? "" : ", ") + SqlQuote(f);
  }
  ASSERT_FALSE(list.empty()) << j.dump();
  const QueryResult q =
      DuckDb("SELECT count(*), count(DISTINCT event_id) FROM read_parquet([" + list + "])");
  ASSERT_TRUE(q.ok) << q.error;
  EXPECT_EQ(q.rows[0][0], std::to_string(good));
  EXPECT_EQ(q.rows[0][1], std::to_string(good));

  // icebird finds the table on its own, from version-hint.text.
  const nlohmann::json read = iceberg::IcebirdRead("file://" + lake + "/ledger");
  ASSERT_FALSE(read.is_discarded());
  std::set<std::string> ids;
  for (const auto& row : read["rows"]) ids.insert(row["event_id"].get<std::string>());
  EXPECT_EQ(read["rows"].size(), static_cast<size_t>(good));
  EXPECT_EQ(ids.size(), static_cast<size_t>(good));
}

// Import's messages are numbered from 1 on every run, so the table records its flushes and never
// filters them: every flush of each run is a snapshot, a second run of the same file is a second
// copy of its rows (as on the hive layout), and no stream position is recorded.
TEST(TableImport, EveryFlushOfEveryRunIsOneSnapshotAndNothingIsFiltered) {
  TempDir dir;
  const CommandResult gen =
      Sinkd({"generate", "ledger", "--messages", "20", "--events-per-batch", "100", "--seed", "3",
             "--bad-share", "0.01", "-o", (dir / "l.bin").string()});
  ASSERT_EQ(gen.exit_code, 0) << gen.err;
  long good = 0, bad = 0;
  ASSERT_EQ(std::sscanf(gen.out.c_str(), "generated 20 messages: %ld good events, %ld bad", &good,
                        &bad),
            2)
      << gen.out;
  const std::string lake = (dir / "lake").string();
  const std::string log = (dir / "import.log").string();
  int flushes = 0;
  for (const char* instance : {"run1", "run2"}) {
    const CommandResult r = Sinkd({"import", "ledger", "--lake-dir", lake, "--batch-max-rows",
                                   "450", "--instance-id", instance, "--table-format", "iceberg",
                                   (dir / "l.bin").string()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("\"table_format\":\"iceberg\""), std::string::npos) << r.err;
    WriteFile(log, r.err);
    flushes += FlushesWithRows(log);
  }
  EXPECT_GE(flushes, 6);

  const CommandResult info = Sinkd({"table", "info", "ledger", "--lake-dir", lake, "--json"});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  const nlohmann::json j = nlohmann::json::parse(info.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << info.out;
  EXPECT_EQ(j["snapshots"], flushes) << "one append snapshot per flush";
  EXPECT_EQ(j["records"], 2 * good) << "two runs, two copies: a run's positions filter nothing";
  EXPECT_TRUE(j["positions"]["streams"].empty()) << j.dump();

  std::string list;
  for (const std::string& f : ManifestFiles(j["metadata"].get<std::string>())) {
    list += (list.empty() ? "" : ", ") + SqlQuote(f);
  }
  ASSERT_FALSE(list.empty());
  const QueryResult q =
      DuckDb("SELECT count(*), count(DISTINCT event_id) FROM read_parquet([" + list + "])");
  ASSERT_TRUE(q.ok) << q.error;
  EXPECT_EQ(q.rows[0][0], std::to_string(2 * good));
  EXPECT_EQ(q.rows[0][1], std::to_string(good));
}

}  // namespace
}  // namespace sinkd::testing
