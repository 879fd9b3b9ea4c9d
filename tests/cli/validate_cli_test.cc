// `sinkd validate` and `config show`'s marks through the binary: every wrong value of a file named
// as file:line:column and key with exit 78, and, unless --offline, every server the file names
// reached as the commands would (a real nats-server, PostgreSQL, a bucket that is not there).
#include <gtest/gtest.h>

#include "cli/cli_help.h"
#include "jetstream/jetstream_test_support.h"
#include "support/postgres_server.h"

namespace sinkd {
namespace {

using namespace std::chrono_literals;
using testing::CommandResult;
using testing::RunCommand;
using testing::SinkdBinary;
using testing::TempDir;
using testing::WriteFile;

// The file at tmp/name with `body`; validate runs with no NATS_URL, LAKE_DIR or S3 variables.
std::string File(const TempDir& tmp, const std::string& name, const std::string& body) {
  const std::string path = (tmp / name).string();
  WriteFile(path, body);
  return path;
}

CommandResult Sinkd(std::vector<std::string> args) {
  args.insert(args.begin(), SinkdBinary().string());
  return RunCommand(args, "", 60s,
                    {"LAKE_DIR=", "AWS_ENDPOINT_URL=", "S3_BUCKET=", "NATS_URL=",
                     "AWS_ACCESS_KEY_ID=", "AWS_SECRET_ACCESS_KEY="});
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return lines;
}

TEST(Validate, EveryWrongValueIsNamedByFileLineAndKeyAndTheFileExits78) {
  TempDir tmp;
  const std::string f = File(tmp, "bad.toml",
                             "[lake]\n"                          // 1
                             "dir = \"" + (tmp / "lake").string() + "\"\n"
                             "zstd_level = 40\n"                 // 3
                             "[drain.ledger]\n"
                             "batch_max_rows = 0\n"              // 5
                             "batch_interval = \"soon\"\n"       // 6
                             "flush_timeout = \"1m\"\n"
                             "[compaction]\n"
                             "target_bytes = \"1GB\"\n"          // 9
                             "[provision]\n"
                             "replicas = \"three\"\n");          // 11
  const CommandResult r = Sinkd({"validate", "--config", f});
  EXPECT_EQ(r.exit_code, 78) << r.out << r.err;
  const std::vector<std::string> lines = Lines(r.out);
  EXPECT_EQ(lines.size(), 5u) << r.out;
  for (const std::string& want :
       {f + ":3:14: lake.zstd_level: --zstd-level 40: must be between 1 and 19",
        f + ":5:18: drain.ledger.batch_max_rows: --batch-max-rows must be at least 1",
        f + ":6:18: drain.ledger.batch_interval: --batch-interval: duration \"soon\"",
        f + ":9:16: compaction.target_bytes: size \"1GB\": unknown unit \"GB\"",
        f + ":11:12: provision.replicas: must be an integer"}) {
    bool found = false;
    for (const std::string& line : lines) found |= line.rfind(want, 0) == 0;
    EXPECT_TRUE(found) << "no line starts with: " << want << "\n" << r.out;
  }
  EXPECT_NE(r.err.find("5 problem(s); nothing was reached"), std::string::npos) << r.err;
}

TEST(Validate, TwoDestinationsAndAMissingFileAreTheFilesProblemsAndNoConfigIsUsage) {
  TempDir tmp;
  const std::string both = File(tmp, "both.toml",
                                "[lake]\ndir = \"/tmp/x\"\ns3_endpoint = \"http://127.0.0.1:1\"\n"
                                "s3_bucket = \"b\"\n[drain.audit]\nfetch_max = 10\n");
  CommandResult r = Sinkd({"validate", "--config", both, "--offline"});
  EXPECT_EQ(r.exit_code, 78) << r.out << r.err;
  EXPECT_NE(r.out.find("name two different destinations"), std::string::npos) << r.out;
  r = Sinkd({"validate", "--config", (tmp / "missing.toml").string()});
  EXPECT_EQ(r.exit_code, 78) << r.out << r.err;
  EXPECT_NE(r.out.find("cannot read the config file"), std::string::npos) << r.out;
  r = Sinkd({"validate"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  r = Sinkd({"validate", "--config", both, "--offlin"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

TEST(Validate, AGoodFileOfflineReachesNothingAndOnlineNamesTheServerThatIsAway) {
  TempDir tmp;
  const std::string f = File(tmp, "good.toml",
                             "[nats]\nurl = \"nats://127.0.0.1:1\"\n[lake]\ndir = \"" +
                                 (tmp / "lake").string() + "\"\n[drain.ledger]\n"
                                 "batch_max_rows = 1000\n");
  CommandResult r = Sinkd({"validate", "--config", f, "--offline"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "");
  EXPECT_FALSE(std::filesystem::exists(tmp / "lake")) << "validate creates nothing";
  r = Sinkd({"validate", "--config", f});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(r.out.rfind(f + ":2:7: nats.url: --nats-url: connect to NATS at nats://127.0.0.1:1", 0),
            0u)
      << r.out;
  EXPECT_EQ(Lines(r.out).size(), 1u) << "one NATS, named once: " << r.out;
}

TEST(Validate, ItReachesNatsAndNamesEachMissingStreamUntilProvisioned) {
  testing::NatsServer server;
  ASSERT_TRUE(server.ok()) << server.error();
  TempDir tmp;
  const std::string f = File(tmp, "drain.toml",
                             "[nats]\nurl = \"" + server.url() + "\"\n[lake]\ndir = \"" +
                                 (tmp / "lake").string() + "\"\n[drain.ledger]\n"
                                 "fetch_max = 100\n[provision]\nreplicas = 1\n");
  CommandResult r = Sinkd({"validate", "--config", f});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  for (const char* stream : {"GARM_LEDGER", "GARM_AUDIT", "GARM_SINK_DEAD"}) {
    EXPECT_NE(r.out.find("stream " + std::string(stream)), std::string::npos) << r.out;
  }
  EXPECT_NE(r.out.find("`sinkd provision` creates it"), std::string::npos) << r.out;
  auto connection = testing::Connect(server);
  ASSERT_TRUE(connection);
  testing::ProvisionAll(*connection);
  r = Sinkd({"validate", "--config", f});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("every server it names answered"), std::string::npos) << r.err;
}

TEST(Validate, ItReachesPostgresAndNamesTheTablesDispatchNeeds) {
  const std::string db = testing::PostgresServer::Shared().FreshDatabase();
  TempDir tmp;
  const std::string sinks = "[[sinks.events]]\nid = \"lake\"\ntype = \"lake\"\nlake_dir = \"" +
                            (tmp / "lake").string() + "\"\n";
  const std::string f = File(tmp, "dispatch.toml", "[postgres]\nurl = \"" + db + "\"\n" + sinks);
  CommandResult r = Sinkd({"validate", "--config", f});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find(f + ": dispatch: table sinkd_leases is missing"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("table outbox is missing"), std::string::npos) << r.out;
  ASSERT_EQ(Sinkd({"outbox", "migrate", "--config", f}).exit_code, 0);
  r = Sinkd({"validate", "--config", f});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string away = File(tmp, "away.toml",
                                "[postgres]\nurl = \"host=127.0.0.1 port=1 connect_timeout=2\"\n" +
                                    sinks);
  r = Sinkd({"validate", "--config", away});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find(away + ": dispatch: [postgres] url: "), std::string::npos) << r.out;
  // [log] and [metrics] are every command's: a dispatcher's file with them is not a drain's.
  const std::string logged =
      File(tmp, "logged.toml", "[log]\nlevel = \"warn\"\n[metrics]\nlisten = \"127.0.0.1:0\"\n"
                               "[postgres]\nurl = \"" + db + "\"\n" + sinks);
  r = Sinkd({"validate", "--config", logged});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string none = File(tmp, "none.toml", "[postgres]\nurl = \"" + db + "\"\n");
  r = Sinkd({"validate", "--config", none, "--offline"});
  EXPECT_EQ(r.exit_code, 78) << r.out << r.err;
  EXPECT_NE(r.out.find("nothing to dispatch to"), std::string::npos) << r.out;
}

TEST(Validate, ABucketThatDoesNotAnswerIsNamedByItsKey) {
  TempDir tmp;
  const std::string f = File(tmp, "s3.toml",
                             "[lake]\ns3_endpoint = \"http://127.0.0.1:1\"\ns3_bucket = \"lake\"\n"
                             "s3_anonymous = true\ns3_retry_attempts = 1\n"
                             "[compaction]\nmin_parts = 8\n");
  const CommandResult r = Sinkd({"validate", "--config", f});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find(f + ":3:13: lake.s3_bucket: --s3-bucket: s3://lake"), std::string::npos)
      << r.out;
}

TEST(ConfigShow, EveryInvalidValueIsMarkedOnItsLine) {
  TempDir tmp;
  const std::string f = File(tmp, "bad.toml",
                             "[lake]\ndir = \"/tmp/x\"\nzstd_level = 40\n[drain.ledger]\n"
                             "batch_max_rows = 0\nfetch_max = 64\n");
  const CommandResult r = Sinkd({"config", "show", "--config", f});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("lake.zstd_level = 40  # " + f +
                       ":3:14  INVALID: --zstd-level 40: must be between 1 and 19\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("drain.ledger.batch_max_rows = 0  # " + f +
                       ":5:18  INVALID: --batch-max-rows must be at least 1\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("drain.ledger.fetch_max = 64  # " + f + ":6:13\n"), std::string::npos)
      << "a good value is not marked: " << r.out;
  size_t marks = 0;
  for (size_t at = r.out.find("INVALID"); at != std::string::npos;
       at = r.out.find("INVALID", at + 1)) {
    ++marks;
  }
  EXPECT_EQ(marks, 2u) << r.out;
}

}  // namespace
}  // namespace sinkd
