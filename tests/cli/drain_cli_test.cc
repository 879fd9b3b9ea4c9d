// `sinkd drain` and `sinkd tail` through the binary: flag and destination refusals, the first log
// line, and the whole path JetStream → drain → lake → DuckDB.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

#include <gtest/gtest.h>

#include "jetstream/jetstream_test_support.h"

namespace sinkd {
namespace {

using namespace std::chrono_literals;
using testing::RunCommand;
using testing::SinkdBinary;

// sinkd with the destination variables (LAKE_DIR, AWS_ENDPOINT_URL, S3_BUCKET) emptied.
testing::CommandResult SinkdNoEnv(std::vector<std::string> args,
                                  std::chrono::milliseconds timeout = 30s) {
  args.insert(args.begin(), SinkdBinary().string());
  return RunCommand(args, "", timeout, {"LAKE_DIR=", "AWS_ENDPOINT_URL=", "S3_BUCKET="});
}

TEST(DrainCli, ADrainNeedsOneDestinationAndRefusesBothOrNeither) {
  auto neither = SinkdNoEnv({"drain", "ledger", "--nats-url", "nats://127.0.0.1:1"});
  EXPECT_EQ(neither.exit_code, 2);
  EXPECT_NE(neither.err.find("no destination"), std::string::npos) << neither.err;
  EXPECT_NE(neither.err.find("--lake-dir"), std::string::npos);
  EXPECT_NE(neither.err.find("--s3-endpoint"), std::string::npos);
  auto both = SinkdNoEnv({"drain", "ledger", "--lake-dir", "/tmp/x", "--s3-endpoint", "127.0.0.1:9",
                     "--s3-bucket", "b", "--nats-url", "nats://127.0.0.1:1"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("two different destinations"), std::string::npos) << both.err;
}

TEST(DrainCli, BadBatchFlagsAreRefusedBeforeAnythingConnects) {
  auto r = SinkdNoEnv({"drain", "audit", "--lake-dir", "/tmp/x", "--batch-max-rows", "0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--batch-max-rows"), std::string::npos) << r.err;
  r = SinkdNoEnv({"drain", "audit", "--lake-dir", "/tmp/x", "--ack-wait", "1s"});
  EXPECT_NE(r.err.find("--ack-wait"), std::string::npos) << r.err;
  r = SinkdNoEnv({"drain", "ledger", "--lake-dir", "/tmp/x", "--max-partitions-per-flush", "0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--max-partitions-per-flush must be at least 1"), std::string::npos)
      << r.err;
  r = SinkdNoEnv({"import", "ledger", "--lake-dir", "/tmp/x", "--max-partitions-per-flush", "0",
                  "/dev/null"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--max-partitions-per-flush must be at least 1"), std::string::npos)
      << r.err;
  r = SinkdNoEnv({"drain"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("sinkd drain needs a subcommand: audit, ledger"), std::string::npos) << r.err;
  r = SinkdNoEnv({"tail"});
  EXPECT_NE(r.err.find("sinkd tail needs a subcommand: audit, ledger"), std::string::npos) << r.err;
}

// The cap is a drain setting like the batch limits: [drain.ledger] max_partitions_per_flush
// reaches the flag (config show says where it came from), and 0 is refused naming the flag.
TEST(DrainCli, ThePartitionCapIsReadFromTheDrainsSection) {
  testing::TempDir dir;
  const std::string file = (dir / "sinkd.toml").string();
  testing::WriteFile(file,
                     "[lake]\ndir = \"/tmp/x\"\n\n[drain.ledger]\nmax_partitions_per_flush = 7\n");
  auto show = SinkdNoEnv({"config", "show", "--config", file});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("drain.ledger.max_partitions_per_flush = 7  # " + file + ":5:28\n"),
            std::string::npos)
      << show.out;
  EXPECT_NE(show.out.find("drain.audit.max_partitions_per_flush = 1000  # default\n"),
            std::string::npos)
      << show.out;
  testing::WriteFile(file,
                     "[lake]\ndir = \"/tmp/x\"\n\n[drain.ledger]\nmax_partitions_per_flush = 0\n");
  auto zero = SinkdNoEnv({"drain", "ledger", "--config", file});
  EXPECT_EQ(zero.exit_code, 2);
  EXPECT_NE(zero.err.find("--max-partitions-per-flush must be at least 1"), std::string::npos)
      << zero.err;
}

// A batch closes one fetch past --batch-max-bytes, and a string column's offsets are 32-bit:
// past 2 GiB a column could wrap, so such a limit is refused before anything connects.
TEST(DrainCli, ABatchByteLimitPastTwoGiBIsRefusedBeforeAnythingConnects) {
  auto r = SinkdNoEnv({"drain", "ledger", "--lake-dir", "/tmp/x", "--nats-url",
                       "nats://127.0.0.1:1", "--batch-max-bytes", "4294967296"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--batch-max-bytes 4294967296: must be between 1048576 (1 MiB) and "
                       "2147483648 (2 GiB)"),
            std::string::npos)
      << r.err;
  r = SinkdNoEnv({"drain", "ledger", "--lake-dir", "/tmp/x", "--nats-url", "nats://127.0.0.1:1",
                  "--batch-max-bytes", "2147483648", "--batch-max-rows", "0"});
  EXPECT_NE(r.err.find("--batch-max-rows"), std::string::npos) << "2 GiB itself is allowed: " << r.err;
}

TEST(DrainCli, AMissingStreamTellsTheOperatorToProvision) {
  testing::NatsServer server;
  ASSERT_TRUE(server.ok()) << server.error();
  testing::TempDir dir;
  auto c = testing::Connect(server);
  ASSERT_TRUE(jetstream::CreateStream(*c, jetstream::StreamSpecs({})[2]).ok());  // dead only
  auto r = SinkdNoEnv(
      {"drain", "ledger", "--nats-url", server.url(), "--lake-dir", (dir / "l").string()});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("run `sinkd provision`"), std::string::npos) << r.err;
  EXPECT_FALSE(jetstream::GetStreamState(*c, "GARM_LEDGER").ok()) << "a drain never creates streams";
}

TEST(TailCli, FlagErrorsAreTheReferenceTexts) {
  auto r = SinkdNoEnv({"tail", "ledger", "--since", "0"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "sinkd: --since 0: a message count must be positive\n");
  r = SinkdNoEnv({"tail", "ledger", "--since", "twenty", "--from-start"});
  EXPECT_EQ(r.err, "sinkd: --since \"twenty\": neither a message count nor a duration\n");
  r = SinkdNoEnv({"tail", "audit", "--filter", "colour=red"});
  EXPECT_NE(r.err.find("no column \"colour\"; columns are event_id, time, tenant"), std::string::npos)
      << r.err;
  r = SinkdNoEnv({"tail", "ledger", "--durable", "x"});
  EXPECT_EQ(r.exit_code, 2) << "a tail has no drain flags";
}

// The main job end to end through the binaries: provision, publish realistic traffic with bad
// records, drain until caught up, SIGTERM (exit 0), and DuckDB reads every good event from the
// hive lake; the first log line names the destination; tail prints the same rows.
TEST(DrainCli, JetStreamToLakeToDuckDbEndToEnd) {
  testing::NatsServer server;
  ASSERT_TRUE(server.ok()) << server.error();
  testing::TempDir dir;
  const std::string url = server.url();
  ASSERT_EQ(SinkdNoEnv({"provision", "--nats-url", url}).exit_code, 0);
  auto gen = SinkdNoEnv({"generate", "ledger", "--messages", "40", "--events-per-batch", "100",
                    "--seed", "5", "--bad-share", "0.01", "-o", (dir / "l.bin").string()});
  ASSERT_EQ(gen.exit_code, 0) << gen.err;
  long good = 0, bad = 0;
  ASSERT_EQ(std::sscanf(gen.out.c_str(), "generated 40 messages: %ld good events, %ld bad", &good, &bad), 2)
      << gen.out;
  auto pub = SinkdNoEnv({"publish", "ledger", "--nats-url", url, (dir / "l.bin").string()});
  ASSERT_EQ(pub.exit_code, 0) << pub.err;

  const std::string log = (dir / "drain.log").string();
  pid_t pid = fork();
  if (pid == 0) {
    freopen(log.c_str(), "w", stderr);
    execl(SinkdBinary().c_str(), "sinkd", "drain", "ledger", "--nats-url", url.c_str(), "--lake-dir",
          (dir / "lake").c_str(), "--batch-interval", "300ms", "--instance-id", "e2e", nullptr);
    _exit(127);
  }
  auto c = testing::Connect(server);
  const bool drained = testing::WaitUntil(
      [&] {
        auto s = jetstream::GetConsumerState(*c, "GARM_LEDGER", "sink-ledger");
        return s.ok() && s->pending == 0 && s->ack_pending == 0;
      },
      60s);
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(drained) << testing::ReadFile(log);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "SIGTERM is a clean exit";
  const std::string first_line = testing::ReadFile(log).substr(0, testing::ReadFile(log).find('\n'));
  EXPECT_NE(first_line.find("\"msg\":\"sinkd drain started\""), std::string::npos) << first_line;
  EXPECT_NE(first_line.find("\"destination\":\"dir " + (dir / "lake").string() + "\""),
            std::string::npos)
      << first_line;

  auto q = testing::DuckDb("SELECT count(DISTINCT event_id), count(DISTINCT app) > 3, "
                           "bool_and(filename LIKE '%/ledger/date=%/app=%/part-e2e-%') FROM "
                           "read_parquet(" +
                           testing::SqlQuote((dir / "lake/ledger/**/*.parquet").string()) +
                           ", hive_partitioning=true, filename=true)");
  ASSERT_TRUE(q.ok) << q.error;
  EXPECT_EQ(q.rows[0][0], std::to_string(good)) << "every good event is a row";
  EXPECT_EQ(q.rows[0][1], "true");
  EXPECT_EQ(q.rows[0][2], "true") << "keys: ledger/date=…/app=…/part-<instance>-…";
  EXPECT_EQ(testing::ReadStream(*c, "GARM_SINK_DEAD").size(), static_cast<size_t>(bad))
      << "every bad record is one dead letter";

  auto tail = SinkdNoEnv({"tail", "ledger", "--nats-url", url, "--since", "1", "--no-detail"});
  ASSERT_EQ(tail.exit_code, 0) << tail.err;
  EXPECT_NE(tail.err.find("durable=false ack=none"), std::string::npos) << tail.err;
  EXPECT_EQ(tail.out.find("error_detail"), std::string::npos);
  EXPECT_GT(std::count(tail.out.begin(), tail.out.end(), '\n'), 90) << "one line per event";
}

}  // namespace
}  // namespace sinkd
