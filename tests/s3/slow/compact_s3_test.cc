// Two `sinkd compact --follow` and a `sinkd drain` at once on one bucket (s3rver behind the
// SigV4 layer), every request of the three through the fault proxy (500, 503, resets before and
// after the body): no event_id is ever missing from the bucket while they run, the compactors stop
// on SIGTERM with exit 0, and two last passes past a zero grace (without faults) leave one row
// per event_id, every id there.
#include <gtest/gtest.h>
#include <signal.h>

#include <thread>

#include "outbox/process.h"
#include "s3/s3_server.h"
#include "support/nats_server.h"

namespace sinkd {
namespace {

using namespace std::chrono_literals;
using sinkd::outbox::testing::Background;
using testing::DuckDb;
using testing::RunCommand;
using testing::SinkdBinary;
using testing::SqlQuote;
using testing::TempDir;
using testing::WaitUntil;

std::vector<std::string> WithCredentials(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"/usr/bin/env",
                                   std::string("AWS_ACCESS_KEY_ID=") + testing::kTestKey,
                                   std::string("AWS_SECRET_ACCESS_KEY=") + testing::kTestSecret,
                                   "AWS_SESSION_TOKEN=",
                                   "AWS_ENDPOINT_URL=",
                                   "S3_BUCKET=",
                                   "LAKE_DIR=",
                                   SinkdBinary().string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

TEST(CompactS3, TwoCompactorsAndADrainAtOnceThroughInjectedFaultsLoseNoRow) {
  TempDir dir;
  testing::NatsServer nats;
  ASSERT_TRUE(nats.ok()) << nats.error();
  ASSERT_EQ(RunCommand({SinkdBinary().string(), "provision", "--nats-url", nats.url()}).exit_code,
            0);
  uint64_t expected = 0;
  auto publish = [&](int seed) {
    const std::string wire = (dir / ("in" + std::to_string(seed) + ".bin")).string();
    auto g = RunCommand({SinkdBinary().string(), "generate", "ledger", "--messages", "80",
                         "--events-per-batch", "50", "--seed", std::to_string(seed), "--bad-share",
                         "0", "-o", wire});
    ASSERT_EQ(g.exit_code, 0) << g.err;
    expected += 4000;
    auto p =
        RunCommand({SinkdBinary().string(), "publish", "ledger", "--nats-url", nats.url(), wire});
    ASSERT_EQ(p.exit_code, 0) << p.err;
  };
  publish(31);

  testing::S3Server server;
  ASSERT_TRUE(server.ok()) << server.error();
  testing::FaultRates rates;
  rates.internal_error = 0.05;
  rates.slow_down = 0.04;
  rates.reset = 0.03;
  rates.reset_after = 0.03;
  rates.seed = 5;
  testing::FaultProxy proxy(server.port(), rates);
  ASSERT_TRUE(proxy.ok()) << proxy.error();
  const std::vector<std::string> s3 = {"--s3-endpoint",
                                       proxy.endpoint(),
                                       "--s3-bucket",
                                       "garm-lake",
                                       "--s3-retry-attempts",
                                       "4",
                                       "--s3-retry-max-backoff",
                                       "20ms"};
  auto with = [&](std::vector<std::string> args) {
    args.insert(args.end(), s3.begin(), s3.end());
    return WithCredentials(args);
  };
  // At most 40 messages (2,000 rows) a fetch: every partition gets a Part from each of the first
  // publish's two fetches, so there is always something to merge. A drain that starts late on a
  // busy machine fetched both publishes whole (512 a fetch) into one Part a partition, which
  // compaction leaves alone, and the premise of this test was gone.
  Background drain(with({"drain", "ledger", "--nats-url", nats.url(), "--instance-id", "d1",
                         "--batch-max-rows", "400", "--batch-interval", "200ms", "--fetch-max",
                         "40"}),
                   dir / "drain.log");
  std::vector<std::unique_ptr<Background>> compactors;
  for (const char* id : {"c1", "c2"}) {
    compactors.push_back(std::make_unique<Background>(
        with({"compact", "ledger", "--follow", "--every", "1s", "--min-parts", "2", "--settle",
              "0s", "--grace", "2s", "--instance-id", id}),
        dir / (std::string(id) + ".log")));
  }
  publish(32);

  const std::string glob = SqlQuote((server.BucketDir() / "ledger/**/*._S3rver_object").string());
  auto distinct = [&]() -> int64_t {
    if (server.Keys().empty()) return 0;
    auto q = DuckDb("SELECT count(DISTINCT event_id) FROM read_parquet(" + glob +
                    ", hive_partitioning=true)");
    return q.ok ? std::stoll(q.rows[0][0]) : -1;  // -1: an object deleted under the query
  };
  int64_t lowest = 0;
  const bool all = WaitUntil(
      [&] {
        const int64_t d = distinct();
        if (d >= 0) {
          EXPECT_GE(d, lowest) << "rows went missing from the bucket";
          lowest = std::max(lowest, d);
        }
        return d == static_cast<int64_t>(expected);
      },
      180s, 1000ms);
  ASSERT_TRUE(all) << distinct() << " of " << expected << "\n" << drain.Log().substr(0, 3000);
  // Let the compactors work on the whole lake for a few passes, then stop them.
  std::this_thread::sleep_for(5s);
  for (auto& c : compactors) {
    c->Signal(SIGTERM);
    EXPECT_EQ(c->Wait(120s), 0) << c->Log().substr(0, 3000);
  }
  drain.Signal(SIGTERM);
  EXPECT_EQ(drain.Wait(60s), 0);
  const std::string logs = compactors[0]->Log() + compactors[1]->Log();
  EXPECT_NE(logs.find("\"msg\":\"compaction output\""), std::string::npos) << logs.substr(0, 3000);
  size_t faults = 0;
  for (const auto& e : proxy.Log()) faults += e["fault"] != "none";
  EXPECT_GT(faults, 5u) << "the premise: faults were injected";

  // Without the proxy: two passes past a zero grace finish every merge and deletion.
  for (int i = 0; i < 2; ++i) {
    auto r = RunCommand(
        WithCredentials({"compact", "ledger", "--s3-endpoint", server.endpoint(), "--s3-bucket",
                         "garm-lake", "--min-parts", "2", "--settle", "0s", "--grace", "0s"}),
        "", 120s);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  auto q = DuckDb("SELECT count(*), count(DISTINCT event_id) FROM read_parquet(" + glob +
                  ", hive_partitioning=true)");
  ASSERT_TRUE(q.ok) << q.error;
  EXPECT_EQ(q.rows[0][1], std::to_string(expected)) << "an event_id is missing";
  EXPECT_EQ(q.rows[0][0], q.rows[0][1]) << "duplicates left after passes past the grace";
}

}  // namespace
}  // namespace sinkd
