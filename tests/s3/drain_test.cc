// End to end through the binary: `sinkd drain ledger --s3-endpoint … --s3-bucket …` from a real
// nats-server into the verifying S3 server, through the fault proxy at 30%: every published event
// lands in the bucket (duplicates allowed, gaps not), so nothing was acked before its object
// existed, and the drain stops cleanly.
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <gtest/gtest.h>

#include "outbox/process.h"
#include "s3_server.h"

namespace sinkd::s3 {
namespace {

namespace fs = std::filesystem;
using sinkd::testing::CommandResult;
using sinkd::testing::DuckDb;
using sinkd::testing::FaultProxy;
using sinkd::testing::FaultRates;
using sinkd::testing::ReadFile;
using sinkd::testing::RunCommand;
using sinkd::testing::S3Server;
using sinkd::testing::SinkdBinary;
using sinkd::testing::SqlQuote;
using sinkd::testing::TempDir;
using sinkd::testing::WaitUntil;

bool Connects(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<uint16_t>(port));
  const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(fd);
  return ok;
}

// A background child: stdout and stderr to `log`, `env` added; SIGKILLed if the test dies.
class Child {
 public:
  Child(const std::vector<std::string>& argv, const fs::path& log,
        const std::vector<std::string>& env = {}) {
    pid_ = fork();
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);
      int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(fd, 1);
      dup2(fd, 2);
      for (const std::string& kv : env) putenv(const_cast<char*>(kv.c_str()));
      std::vector<char*> args;
      for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      execvp(args[0], args.data());
      _exit(127);
    }
  }
  ~Child() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }
  // False once it has exited (its status is kept for Stop).
  bool Running() {
    if (pid_ <= 0) return false;
    if (waitpid(pid_, &status_, WNOHANG) != pid_) return true;
    pid_ = -1;
    return false;
  }
  // SIGTERM, then the exit code (or -1 when it had to be killed after `timeout`).
  int Stop(std::chrono::seconds timeout) {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      if (!WaitUntil([&] { return !Running(); },
                     std::chrono::duration_cast<std::chrono::milliseconds>(timeout))) {
        return -1;
      }
    }
    return WIFEXITED(status_) ? WEXITSTATUS(status_) : 128 + WTERMSIG(status_);
  }

 private:
  pid_t pid_ = -1;
  int status_ = 0;
};

// A nats-server (JetStream on loopback, its store in `tmp`) with the streams provisioned and
// `messages` generated ledger Batches of 50 distinct events each published on GARM_LEDGER.
class PublishedLedger {
 public:
  PublishedLedger(const TempDir& tmp, int messages) {
    const int port = sinkd::testing::FreeLoopbackPort();
    nats_ = std::make_unique<Child>(
        std::vector<std::string>{"nats-server", "-js", "-a", "127.0.0.1", "-p",
                                 std::to_string(port), "-sd", (tmp / "js").string()},
        tmp / "nats.log");
    if (port <= 0 || !WaitUntil([&] { return Connects(port); }, std::chrono::seconds(15))) {
      error_ = "nats-server did not start: " + ReadFile(tmp / "nats.log");
      return;
    }
    url_ = "nats://127.0.0.1:" + std::to_string(port);
    const std::string events = std::to_string(messages * 50);
    for (const std::vector<std::string>& step : std::vector<std::vector<std::string>>{
             {"provision", "--nats-url", url_},
             {"generate", "ledger", "--messages", std::to_string(messages), "--events-per-batch",
              "50", "--expected-events", events, "--bad-share", "0", "-o",
              (tmp / "in.bin").string()},
             {"publish", "ledger", "--nats-url", url_, (tmp / "in.bin").string()}}) {
      std::vector<std::string> argv = {SinkdBinary().string()};
      argv.insert(argv.end(), step.begin(), step.end());
      const CommandResult r = RunCommand(argv);
      if (r.exit_code != 0) {
        error_ = "sinkd " + step[0] + " failed: " + r.out + r.err;
        return;
      }
    }
  }
  ::testing::AssertionResult ok() const {
    if (error_.empty()) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << error_;
  }
  const std::string& url() const { return url_; }

 private:
  std::unique_ptr<Child> nats_;
  std::string url_;
  std::string error_;
};

// The drain is where an early ack loses data: a flush that fails must nak, and only a flush whose
// objects all exist may ack. With 30% of S3 requests failing, every event must still arrive.
TEST(S3Drain, ADrainThroughThirtyPercentFaultsLandsEveryEventInTheBucket) {
  TempDir tmp;
  PublishedLedger ledger(tmp, 40);
  ASSERT_TRUE(ledger.ok());
  const std::string nats_url = ledger.url();

  S3Server server;
  ASSERT_TRUE(server.ok()) << server.error();
  FaultRates rates;
  rates.internal_error = 0.1;
  rates.slow_down = 0.08;
  rates.reset = 0.06;
  rates.reset_after = 0.06;
  rates.seed = 3;
  FaultProxy proxy(server.port(), rates);
  ASSERT_TRUE(proxy.ok()) << proxy.error();

  Child drain({SinkdBinary().string(), "drain", "ledger", "--nats-url", nats_url, "--s3-endpoint",
               proxy.endpoint(), "--s3-bucket", "garm-lake", "--instance-id", "box-77",
               "--batch-max-rows", "500", "--batch-interval", "300ms", "--s3-retry-attempts", "3",
               "--s3-retry-max-backoff", "20ms"},
              tmp / "drain.log",
              {std::string("AWS_ACCESS_KEY_ID=") + sinkd::testing::kTestKey,
               std::string("AWS_SECRET_ACCESS_KEY=") + sinkd::testing::kTestSecret,
               "AWS_SESSION_TOKEN=", "AWS_ENDPOINT_URL=", "S3_BUCKET=", "LAKE_DIR="});
  const std::string glob = (server.BucketDir() / "ledger/**/*._S3rver_object").string();
  auto distinct = [&]() -> std::string {
    if (server.Keys().empty()) return "0";
    auto q = DuckDb("SELECT count(DISTINCT event_id) FROM read_parquet(" + SqlQuote(glob) +
                    ", hive_partitioning=true)");
    return q.ok && !q.rows.empty() ? q.rows[0][0] : "error: " + q.error;
  };
  const bool all = WaitUntil([&] { return !drain.Running() || distinct() == "2000"; },
                             std::chrono::seconds(90), std::chrono::milliseconds(1000)) &&
                   distinct() == "2000";
  const int exit_code = drain.Stop(std::chrono::seconds(30));
  const std::string log = ReadFile(tmp / "drain.log");
  ASSERT_TRUE(all) << "distinct events in the bucket: " << distinct() << "\n" << log.substr(0, 4000);
  EXPECT_EQ(exit_code, 0) << log.substr(log.size() > 4000 ? log.size() - 4000 : 0);
  EXPECT_NE(log.find("\"destination\":\"s3://garm-lake at " + proxy.endpoint() +
                     " (region us-east-1, signed with AWS_ACCESS_KEY_ID)\""),
            std::string::npos) << log.substr(0, 2000);
  EXPECT_EQ(log.find(sinkd::testing::kTestSecret), std::string::npos);
  // The premise: the faults happened, and some of them made a flush fail and be redelivered or
  // at least retried.
  size_t faults = 0;
  for (const auto& e : proxy.Log()) faults += e["fault"] != "none";
  EXPECT_GT(faults, 5u);
  EXPECT_NE(log.find("s3 request failed; retrying"), std::string::npos);
}

// The failure: a flush into a store that accepts the upload and never answers (with
// --s3-request-timeout 0 no request deadline ends it) was waited for with no deadline while the
// drain's keep-alives held its batch, so no other drain on the durable got those messages. Now
// past --flush-timeout (2 s) the flush is abandoned and its messages nak'd: a second drain writes
// them within the ack wait (3 s) plus the flush timeout (and a margin for the nak and a batch
// interval), nothing is lost (DuckDB counts every event_id), the stuck drain reports itself not
// ready and one SIGTERM still ends it (after a bounded wait for the hung flush).
TEST(S3Drain, AFlushStuckOnAStoreThatNeverAnswersHandsItsMessagesToAnotherDrain) {
  TempDir tmp;
  PublishedLedger ledger(tmp, 20);
  ASSERT_TRUE(ledger.ok());
  const std::string nats_url = ledger.url();

  S3Server server;
  ASSERT_TRUE(server.ok()) << server.error();
  FaultRates rates;
  rates.stall = ".parquet";  // every Part upload is taken and never answered
  FaultProxy stalling(server.port(), rates);
  ASSERT_TRUE(stalling.ok()) << stalling.error();
  const std::vector<std::string> env = {
      std::string("AWS_ACCESS_KEY_ID=") + sinkd::testing::kTestKey,
      std::string("AWS_SECRET_ACCESS_KEY=") + sinkd::testing::kTestSecret, "AWS_SESSION_TOKEN=",
      "AWS_ENDPOINT_URL=", "S3_BUCKET=", "LAKE_DIR="};
  const std::vector<std::string> common = {"--nats-url", nats_url, "--s3-bucket", "garm-lake",
                                           "--batch-interval", "300ms", "--ack-wait", "3s",
                                           "--flush-timeout", "2s"};
  auto drain_args = [&](const std::string& endpoint, const std::string& instance,
                        std::vector<std::string> more) {
    std::vector<std::string> args = {SinkdBinary().string(), "drain", "ledger", "--s3-endpoint",
                                     endpoint, "--instance-id", instance};
    args.insert(args.end(), common.begin(), common.end());
    args.insert(args.end(), more.begin(), more.end());
    return args;
  };
  const int metrics_port = sinkd::outbox::testing::FreeLoopbackPort();
  Child stuck(drain_args(stalling.endpoint(), "stuck-1",
                         {"--s3-request-timeout", "0", "--metrics-listen",
                          "127.0.0.1:" + std::to_string(metrics_port)}),
              tmp / "stuck.log", env);
  auto stalled = [&] {
    for (const auto& e : stalling.Log()) {
      if (e["fault"] == "stall") return true;
    }
    return false;
  };
  ASSERT_TRUE(WaitUntil(stalled, std::chrono::seconds(20)))
      << "premise: the stuck drain's first Part upload must have reached the stalling store\n"
      << ReadFile(tmp / "stuck.log");
  const auto stalled_at = std::chrono::steady_clock::now();

  Child other(drain_args(server.endpoint(), "other-2", {}), tmp / "other.log", env);
  const std::string glob = (server.BucketDir() / "ledger/**/*._S3rver_object").string();
  auto distinct = [&]() -> std::string {
    if (server.Keys().empty()) return "0";
    auto q = DuckDb("SELECT count(DISTINCT event_id) FROM read_parquet(" + SqlQuote(glob) +
                    ", hive_partitioning=true)");
    return q.ok && !q.rows.empty() ? q.rows[0][0] : "error: " + q.error;
  };
  // 3 s ack wait + 2 s flush timeout; 10 s more for the second process to start, the nak delay
  // (1 s), its batch interval and its flush. Before the fix the first attempt alone stalled 30 s
  // (curl's low-speed limit) and there were six.
  const bool all = WaitUntil([&] { return distinct() == "1000"; }, std::chrono::seconds(15),
                             std::chrono::milliseconds(500));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - stalled_at).count();
  std::printf("the other drain wrote every held event %.1f s after the stall\n", seconds);
  ASSERT_TRUE(all) << "distinct events in the bucket: " << distinct() << "\nstuck drain:\n"
                   << ReadFile(tmp / "stuck.log").substr(0, 6000) << "\nother drain:\n"
                   << ReadFile(tmp / "other.log").substr(0, 3000);

  const auto ready = sinkd::outbox::testing::HttpGet(metrics_port, "/readyz");
  EXPECT_EQ(ready.code, 503) << ready.body;
  EXPECT_NE(ready.body.find("flush_in_time=false"), std::string::npos) << ready.body;
  const auto page = sinkd::outbox::testing::HttpGet(metrics_port, "/metrics").body;
  EXPECT_NE(page.find("sinkd_flush_stuck{origin=\"ledger\"} 1"), std::string::npos) << page;
  EXPECT_NE(page.find("sinkd_flushes_abandoned_total{origin=\"ledger\"} 1"), std::string::npos)
      << page;

  const auto stopping = std::chrono::steady_clock::now();
  const int stuck_exit = stuck.Stop(std::chrono::seconds(40));
  const double stop_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - stopping).count();
  const std::string stuck_log = ReadFile(tmp / "stuck.log");
  EXPECT_EQ(stuck_exit, 1) << "one SIGTERM ends a drain whose flush is stuck\n" << stuck_log;
  EXPECT_LT(stop_seconds, 20.0) << "a bounded wait for the hung flush (10 s), then exit";
  EXPECT_NE(stuck_log.find("exiting without it"), std::string::npos) << stuck_log;
  EXPECT_EQ(other.Stop(std::chrono::seconds(30)), 0);
  EXPECT_EQ(distinct(), "1000") << "nothing lost";
  for (const std::string& key : server.Keys()) {
    EXPECT_EQ(key.find("stuck-1"), std::string::npos) << "the stalled store took a Part: " << key;
  }
}

}  // namespace
}  // namespace sinkd::s3
