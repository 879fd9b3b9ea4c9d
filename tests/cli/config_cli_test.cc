// `--config sinkd.toml` through the binary: flag > environment > file > default, refusals naming
// file:line:column, and `sinkd config show` with each setting's source and its secrets masked.
#include <algorithm>
#include <thread>

#include <gtest/gtest.h>

#include "jetstream/nkey_test_support.h"
#include "support/nats_server.h"
#include "support/support.h"

namespace sinkd {
namespace {

using testing::RunCommand;
using testing::SinkdBinary;
using testing::TempDir;

// Provision with an unreachable URL fails at once naming the URL it used: which source won.
std::string UrlUsed(const std::vector<std::string>& extra, const std::vector<std::string>& env,
                    const std::vector<std::string>& command = {"provision"}) {
  std::vector<std::string> argv = {SinkdBinary().string()};
  argv.insert(argv.end(), command.begin(), command.end());
  argv.insert(argv.end(), extra.begin(), extra.end());
  auto r = RunCommand(argv, "", std::chrono::seconds(60), env);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  for (const char* port : {"127.0.0.1:11", "127.0.0.1:12", "127.0.0.1:13"}) {
    if (r.err.find(port) != std::string::npos) return port;
  }
  return r.err;
}

TEST(ConfigCli, AFlagOutranksTheEnvironmentWhichOutranksTheFileWhichOutranksTheDefault) {
  TempDir dir;
  const std::string file = (dir / "sinkd.toml").string();
  testing::WriteFile(file, "[nats]\nurl = \"nats://127.0.0.1:13\"\n");
  const std::vector<std::string> no_env = {"NATS_URL="};
  EXPECT_EQ(UrlUsed({"--config", file}, no_env), "127.0.0.1:13");
  EXPECT_EQ(UrlUsed({"--config", file}, {"NATS_URL=nats://127.0.0.1:12"}), "127.0.0.1:12");
  EXPECT_EQ(UrlUsed({"--config", file, "--nats-url", "nats://127.0.0.1:11"},
                    {"NATS_URL=nats://127.0.0.1:12"}),
            "127.0.0.1:11");
  // tail and drain read the same [nats] section.
  EXPECT_EQ(UrlUsed({"--config", file}, no_env, {"tail", "audit"}), "127.0.0.1:13");
  // A drain waits for NATS forever by default; the file's connect_timeout makes it try once.
  testing::WriteFile(file, "[nats]\nurl = \"nats://127.0.0.1:13\"\nconnect_timeout = \"0\"\n"
                           "[lake]\ndir = \"" + (dir / "lake").string() + "\"\n");
  EXPECT_EQ(UrlUsed({"--config", file}, no_env, {"drain", "ledger"}), "127.0.0.1:13");
}

TEST(ConfigCli, TheFileSetsEveryBoundFlagAndAFlagStillWins) {
  TempDir dir;
  const std::string file = (dir / "sinkd.toml").string();
  testing::WriteFile(file, "[provision]\nreplicas = 3\nledger_max_age = \"24h\"\n");
  auto r = RunCommand({SinkdBinary().string(), "provision", "--dry-run", "--config", file});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("max_age=24h0m0s replicas=3"), std::string::npos) << r.out;
  auto flag = RunCommand(
      {SinkdBinary().string(), "provision", "--dry-run", "--config", file, "--replicas", "1"});
  ASSERT_EQ(flag.exit_code, 0) << flag.err;
  EXPECT_NE(flag.out.find("max_age=24h0m0s replicas=1"), std::string::npos) << flag.out;
}

TEST(ConfigCli, UnknownKeysAndBadValuesInTheFileAreRefusedNamingFileLineAndColumn) {
  TempDir dir;
  const std::string file = (dir / "sinkd.toml").string();
  testing::WriteFile(file, "[lake]\ndir = \"/tmp/x\"\n\n[drain.ledger]\nbatch_max_rowz = 10\n");
  auto r = RunCommand({SinkdBinary().string(), "drain", "ledger", "--config", file});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("INVALID_CONFIG: " + file + ":5:1: unknown key \"batch_max_rowz\" in "
                       "[drain.ledger]"),
            std::string::npos)
      << r.err;
  testing::WriteFile(file, "[lake]\ndir = \"/tmp/x\"\n[drain.audit]\nfetch_max = 99999999999\n");
  auto bad = RunCommand({SinkdBinary().string(), "drain", "audit", "--config", file});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("INVALID_CONFIG: " + file + ":4:13: drain.audit.fetch_max"),
            std::string::npos)
      << bad.err;
  // The file's value reaches the same validation as the flag's.
  testing::WriteFile(file, "[lake]\ndir = \"/tmp/x\"\nzstd_level = 40\n");
  auto level = RunCommand({SinkdBinary().string(), "drain", "ledger", "--config", file});
  EXPECT_EQ(level.exit_code, 2);
  EXPECT_NE(level.err.find("--zstd-level 40"), std::string::npos) << level.err;
  testing::WriteFile(file, "[lake]\ndir = \"/tmp/x\"\nencode_threads = 0\n");
  auto threads = RunCommand({SinkdBinary().string(), "drain", "ledger", "--config", file});
  EXPECT_EQ(threads.exit_code, 2);
  EXPECT_NE(threads.err.find("--encode-threads 0: must be between 1 and 256"), std::string::npos)
      << threads.err;
}

TEST(ConfigCli, ConfigShowNamesWhereEachSettingCameFromAndMasksSecrets) {
  TempDir dir;
  const std::string file = (dir / "sinkd.toml").string();
  testing::WriteFile(file, R"([nats]
url = "nats://sinkd:natspw@127.0.0.1:4222"
nkey_seed_file = "/etc/sinkd/sinkd.nk"

[lake]
dir = "/var/lib/sinkd/lake"

[drain.ledger]
batch_max_rows = 5000

[metrics]
listen = "127.0.0.1:9464"

[postgres]
url = "postgresql://app:pgsecret@db:5432/app"

[[sinks.events]]
id = "bus"
type = "jetstream"
url = "nats://u:buspw@127.0.0.1:4222"
)");
  auto r = RunCommand({SinkdBinary().string(), "config", "show", "--config", file}, "",
                      std::chrono::seconds(60),
                      {"NATS_URL=", "LAKE_DIR=", "S3_BUCKET=", "AWS_ENDPOINT_URL=",
                       "AWS_SECRET_ACCESS_KEY=awssecret", "AWS_ACCESS_KEY_ID=AKIDX",
                       "AWS_SESSION_TOKEN=awstoken"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string& out = r.out;
  EXPECT_NE(out.find("nats.url = \"nats://sinkd:***@127.0.0.1:4222\"  # " + file + ":2:7\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("nats.nkey_seed_file = \"/etc/sinkd/sinkd.nk\"  # " + file + ":3:18\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("lake.dir = \"/var/lib/sinkd/lake\"  # " + file + ":6:7\n"), std::string::npos)
      << out;
  EXPECT_NE(out.find("drain.ledger.batch_max_rows = 5000  # " + file + ":9:18\n"), std::string::npos)
      << out;
  EXPECT_NE(out.find("drain.audit.batch_max_rows = 250000  # default\n"), std::string::npos) << out;
  // A drain's own metrics_listen falls back to [metrics] listen.
  EXPECT_NE(out.find("drain.audit.metrics_listen = \"127.0.0.1:9464\"  # " + file + ":12:10\n"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("postgres.url = \"postgresql://app:***@db:5432/app\""), std::string::npos) << out;
  EXPECT_NE(out.find("dispatch.batch_size = 32  # default\n"), std::string::npos) << out;
  EXPECT_NE(out.find("sinks.events[0] (id \"bus\"): type = \"jetstream\", url = \"nats://u:***@"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("AWS_SECRET_ACCESS_KEY = \"***\""), std::string::npos) << out;
  for (const char* secret : {"natspw", "pgsecret", "buspw", "awssecret", "awstoken", "AKIDX"}) {
    EXPECT_EQ(out.find(secret), std::string::npos) << secret << " shown:\n" << out;
    EXPECT_EQ(r.err.find(secret), std::string::npos) << secret << " logged:\n" << r.err;
  }
  // The environment outranks the file, and says so.
  auto env = RunCommand({SinkdBinary().string(), "config", "show", "--config", file}, "",
                        std::chrono::seconds(60), {"NATS_URL=nats://127.0.0.1:7777"});
  ASSERT_EQ(env.exit_code, 0) << env.err;
  EXPECT_NE(env.out.find("nats.url = \"nats://127.0.0.1:7777\"  # env NATS_URL\n"), std::string::npos)
      << env.out;
}

// The [nats] section reaches the connection: provision authenticates as the file's nkey user and
// over TLS with the file's CA and client certificate; without the file the server refuses it.
TEST(ConfigCli, TheNatsSectionAuthenticatesWithAnNkeySeedOverTlsWithAClientCertificate) {
  TempDir dir;
  testing::TlsFiles tls;
  ASSERT_TRUE(testing::MakeTlsFiles(dir / "tls", &tls));
  const testing::TestNkey user = testing::NewNkey();
  testing::NatsServer server("authorization {\n  users = [ {nkey: \"" + user.Public() +
                             "\"} ]\n}\ntls {\n  cert_file: \"" + tls.server_cert.string() +
                             "\"\n  key_file: \"" + tls.server_key.string() + "\"\n  ca_file: \"" +
                             tls.ca.string() + "\"\n  verify: true\n}\n");
  ASSERT_TRUE(server.ok()) << server.error();
  testing::WriteFile(dir / "sinkd.nk", user.Seed() + "\n");
  const std::string file = (dir / "sinkd.toml").string();
  testing::WriteFile(file, "[nats]\nurl = \"" + server.url() + "\"\nnkey_seed_file = \"" +
                               (dir / "sinkd.nk").string() + "\"\ntls_ca = \"" + tls.ca.string() +
                               "\"\ntls_cert = \"" + tls.client_cert.string() + "\"\ntls_key = \"" +
                               tls.client_key.string() + "\"\n");
  auto r = RunCommand({SinkdBinary().string(), "provision", "--config", file}, "",
                      std::chrono::seconds(90), {"NATS_URL="});
  ASSERT_EQ(r.exit_code, 0) << r.err << "\n" << server.log();
  EXPECT_EQ(r.out, "GARM_LEDGER: created\nGARM_AUDIT: created\nGARM_SINK_DEAD: created\n");
  EXPECT_EQ(r.err.find(user.Seed()), std::string::npos);
  auto refused = RunCommand({SinkdBinary().string(), "provision", "--nats-url", server.url()}, "",
                            std::chrono::seconds(90));
  EXPECT_EQ(refused.exit_code, 1) << refused.out;
}

TEST(ConfigCli, ConfigShowWithoutAFileShowsTheDefaults) {
  auto r = RunCommand({SinkdBinary().string(), "config", "show"}, "", std::chrono::seconds(60),
                      {"NATS_URL="});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("nats.url = \"nats://127.0.0.1:4222\"  # default\n"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("lake.zstd_level = 3  # default\n"), std::string::npos) << r.out;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  EXPECT_NE(r.out.find("lake.encode_threads = " + std::to_string(cores) + "  # default\n"),
            std::string::npos)
      << r.out;
}

}  // namespace
}  // namespace sinkd
