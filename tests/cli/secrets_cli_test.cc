// No secret reaches what sinkd prints: every form an operator can hand it (a NATS token URL, a
// password in any URL of a list, an nkey seed or .creds file's contents, libpq's URI and keyword
// forms, the AWS secret key and session token) given to a running drain, a running dispatch,
// `config show` and connects that fail, with stdout, stderr and the /metrics, /healthz and
// /readyz pages grepped for each.
#include <gtest/gtest.h>

#include "jetstream/nkey_test_support.h"
#include "outbox/process.h"
#include "support/nats_server.h"
#include "support/postgres_server.h"
#include "support/support.h"

namespace sinkd {
namespace {

using namespace std::chrono_literals;
using outbox::testing::Background;
using outbox::testing::FreeLoopbackPort;
using outbox::testing::HttpGet;
using testing::RunCommand;
using testing::SinkdBinary;
using testing::TempDir;
using testing::WaitUntil;
using testing::WriteFile;

// Unique values, so a match can only be a leak.
constexpr const char* kNatsToken = "natsTokenS3cretT1";
constexpr const char* kFirstUrlPassword = "firstUrlS3cretT2";
constexpr const char* kSecondUrlPassword = "secondUrlS3cretT3";
constexpr const char* kSinkUrlPassword = "sinkUrlS3cretT4";
constexpr const char* kPgKeywordPassword = "pgKeywordS3cret T5";  // quoted: it holds a blank
constexpr const char* kPgUriPassword = "pgUriS3cretT6";
constexpr const char* kAwsSecret = "awsSecretKeyS3cretT7";
constexpr const char* kAwsToken = "awsSessionTokenS3cretT8";

class Secrets {
 public:
  Secrets() : user_(testing::NewNkey()) {}
  // Every secret value, the seeds included.
  std::vector<std::string> All() const {
    return {kNatsToken,  kFirstUrlPassword, kSecondUrlPassword, kSinkUrlPassword,
            "S3cret T5", kPgUriPassword,    kAwsSecret,         kAwsToken,
            user_.Seed()};
  }
  const testing::TestNkey& user() const { return user_; }

 private:
  testing::TestNkey user_;
};

// The environment every command runs in: AWS credentials present, nothing else to fall back on.
std::vector<std::string> Env() {
  return {"LAKE_DIR=", "S3_BUCKET=", "AWS_ENDPOINT_URL=", "NATS_URL=",
          "AWS_ACCESS_KEY_ID=AKIDSECRETSTEST", std::string("AWS_SECRET_ACCESS_KEY=") + kAwsSecret,
          std::string("AWS_SESSION_TOKEN=") + kAwsToken};
}

void ExpectNoSecret(const Secrets& secrets, const std::string& where, const std::string& text) {
  for (const std::string& s : secrets.All()) {
    EXPECT_EQ(text.find(s), std::string::npos) << s << " appears in " << where << ":\n" << text;
  }
}

testing::CommandResult Sinkd(std::vector<std::string> args) {
  args.insert(args.begin(), SinkdBinary().string());
  return RunCommand(args, "", 60s, Env());
}

TEST(SecretsCli, NoSecretFormAppearsInConfigShowFailedConnectsDrainOrDispatch) {
  Secrets secrets;
  // The background processes below inherit the credentials from this one.
  ::setenv("AWS_ACCESS_KEY_ID", "AKIDSECRETSTEST", 1);
  ::setenv("AWS_SECRET_ACCESS_KEY", kAwsSecret, 1);
  ::setenv("AWS_SESSION_TOKEN", kAwsToken, 1);
  TempDir dir;
  const std::string seed_file = (dir / "user.nk").string();
  WriteFile(seed_file, secrets.user().Seed() + "\n");
  const std::string creds_file = (dir / "user.creds").string();
  WriteFile(creds_file, testing::CredsFile("eyJ0eXAiOiJKV1QifQ.e30.c2ln", secrets.user()));

  testing::NatsServer server(std::string("authorization {\n  token: \"") + kNatsToken + "\"\n}\n");
  ASSERT_TRUE(server.ok()) << server.error();
  const std::string port = std::to_string(server.port());
  const std::string token_url = std::string("nats://") + kNatsToken + "@127.0.0.1:" + port;
  // Two closed ports before the live server, each with its own password.
  const std::string list = std::string("nats://a:") + kFirstUrlPassword + "@127.0.0.1:1,nats://b:" +
                           kSecondUrlPassword + "@127.0.0.1:2";
  const std::string pg = testing::PostgresServer::Shared().FreshDatabase();
  ASSERT_FALSE(pg.empty());
  const std::string pg_keyword = pg + " password = 'pgKeywordS3cret T5'";
  const std::string pg_uri = std::string("postgresql://postgres:") + kPgUriPassword +
                             "@127.0.0.1:1/postgres";

  // config show: the file's NATS token URL, a sink's URL list, both libpq forms (one file each).
  const std::string config = (dir / "sinkd.toml").string();
  const std::string sink_list = std::string("nats://u:") + kSinkUrlPassword + "@127.0.0.1:1," +
                                token_url;
  WriteFile(config, "[nats]\nurl = \"" + token_url + "\"\nnkey_seed_file = \"" + seed_file +
                        "\"\n\n[lake]\ndir = \"" + (dir / "lake").string() +
                        "\"\n\n[postgres]\nurl = \"" + pg_keyword +
                        "\"\n\n[dispatch]\npoll_interval = \"50ms\"\n\n[[sinks.events]]\nid = "
                        "\"bus\"\ntype = \"jetstream\"\nurl = \"" + token_url +
                        "\"\nsubject_prefix = \"outbox\"\n");
  const std::string uri_config = (dir / "uri.toml").string();
  WriteFile(uri_config, "[postgres]\nurl = \"" + pg_uri +
                            "\"\n\n[[sinks.events]]\nid = \"spare\"\ntype = \"jetstream\"\n"
                            "url = \"" + sink_list + "\"\nsubject_prefix = \"spare\"\n");
  for (const std::string& file : {config, uri_config}) {
    auto show = Sinkd({"config", "show", "--config", file});
    ASSERT_EQ(show.exit_code, 0) << show.err;
    EXPECT_NE(show.out.find("nats://"), std::string::npos) << "the URLs are shown, masked";
    ExpectNoSecret(secrets, "config show's output", show.out);
    ExpectNoSecret(secrets, "config show's errors", show.err);
  }

  // Connects that fail: every command that connects, given the list, the token, the seed or
  // the .creds file; the S3 store and PostgreSQL unreachable with their credentials.
  std::vector<std::vector<std::string>> failing = {
      {"provision", "--nats-url", list},
      {"tail", "ledger", "--nats-url", list + ",nats://" + kNatsToken + "@127.0.0.1:3"},
      // Retried for two seconds: its log line per attempt names the list too.
      {"drain", "ledger", "--nats-url", list, "--lake-dir", (dir / "lake").string(),
       "--connect-timeout", "2s"},
      {"provision", "--nats-url", "nats://127.0.0.1:1", "--nats-nkey-seed", seed_file},
      {"provision", "--nats-url", "nats://127.0.0.1:1", "--nats-creds", creds_file},
      {"drain", "audit", "--nats-url", token_url, "--s3-endpoint", "http://127.0.0.1:1",
       "--s3-bucket", "b", "--s3-request-timeout", "1s"},
      {"outbox", "status", "--config", uri_config},
  };
  for (const auto& args : failing) {
    auto r = Sinkd(args);
    EXPECT_NE(r.exit_code, 0) << args[0] << " " << args[1] << " cannot connect";
    ExpectNoSecret(secrets, args[0] + " " + args[1] + "'s output", r.out + r.err);
  }

  // A drain that runs: connected with the token, serving its pages.
  ASSERT_EQ(Sinkd({"provision", "--nats-url", token_url}).exit_code, 0);
  const int drain_port = FreeLoopbackPort();
  Background drain({SinkdBinary().string(), "drain", "ledger", "--nats-url", token_url,
                    "--lake-dir", (dir / "lake").string(), "--metrics-listen",
                    "127.0.0.1:" + std::to_string(drain_port)},
                   dir / "drain.log");
  ASSERT_TRUE(WaitUntil([&] { return HttpGet(drain_port, "/readyz").code == 200; }, 30s))
      << drain.Log();
  for (const char* page : {"/metrics", "/healthz", "/readyz"}) {
    ExpectNoSecret(secrets, std::string("the drain's ") + page, HttpGet(drain_port, page).body);
  }
  drain.Signal(SIGTERM);
  EXPECT_EQ(drain.Wait(30s), 0) << drain.Log();
  EXPECT_NE(drain.Log().find("\"msg\":\"sinkd drain started\""), std::string::npos)
      << drain.Log();
  ExpectNoSecret(secrets, "the drain's log", drain.Log());

  // A dispatch that runs: the keyword-form database URL, a sink connected with the token.
  ASSERT_EQ(Sinkd({"outbox", "migrate", "--config", config}).exit_code, 0);
  const int dispatch_port = FreeLoopbackPort();
  const TempDir logs;
  Background dispatch({SinkdBinary().string(), "dispatch", "--config", config, "--metrics-listen",
                       "127.0.0.1:" + std::to_string(dispatch_port)},
                      logs / "dispatch.log");
  ASSERT_TRUE(WaitUntil([&] { return HttpGet(dispatch_port, "/metrics").code == 200; }, 30s))
      << dispatch.Log();
  for (const char* page : {"/metrics", "/healthz", "/readyz"}) {
    ExpectNoSecret(secrets, std::string("dispatch's ") + page, HttpGet(dispatch_port, page).body);
  }
  dispatch.Signal(SIGTERM);
  dispatch.Wait(30s);
  ExpectNoSecret(secrets, "dispatch's log", dispatch.Log());
}

}  // namespace
}  // namespace sinkd
