// A drain given every node of a three-node JetStream cluster (R3 streams) on loopback survives
// the death of the node it is connected to (issue 25, §2): kill -9'd while events are published,
// the drain reconnects to another node, its flushes resume within seconds and every event lands;
// a drain started with its first server down connects to another, and waits out the election of
// the leaders that died with the node; one started before any server is up waits for it, logging
// each attempt, and a SIGTERM while it waits is a clean stop.
// The 60-second outage at full scale is `make chaos`' cluster campaign (RELIABILITY.md §2).
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "jetstream/jetstream_test_support.h"
#include "outbox/process.h"
#include "support/nats_server.h"
#include "support/support.h"

namespace sinkd {
namespace {

using namespace std::chrono_literals;
using outbox::testing::Background;
using testing::NatsCluster;
using testing::SinkdBinary;
using testing::TempDir;
using testing::WaitUntil;

std::unique_ptr<jetstream::Connection> ConnectToList(const std::string& urls) {
  jetstream::ConnectOptions o;
  o.url = urls;
  o.name = "sinkd test";
  o.connect_timeout = 20s;
  auto c = jetstream::Connection::Connect(o);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return c.ok() ? std::move(c).value() : nullptr;
}

// Provisions R3 streams once the cluster has elected its JetStream meta leader.
bool ProvisionR3(jetstream::Connection& c) {
  jetstream::StreamSizing sizing;
  sizing.replicas = 3;
  return WaitUntil(
      [&] {
        auto report = jetstream::Provision(c, jetstream::StreamSpecs(sizing));
        return report.ok() && report->status.ok();
      },
      40s, 500ms);
}

// Publishes one ledger message of five events, retried (with its Nats-Msg-Id, so a retry whose
// first try was stored is not stored twice) while the cluster elects a new leader.
bool PublishRetrying(jetstream::Connection& c, int m) {
  std::vector<garm::ledger::v1::Event> events;
  for (int i = 0; i < 5; ++i) {
    events.push_back(testing::MakeEvent("m" + std::to_string(m) + "-" + std::to_string(i)));
  }
  const std::string data = testing::BatchOf(events);
  const std::string id = "cluster-test-" + std::to_string(m);
  jsPubOptions po;
  jsPubOptions_Init(&po);
  po.MsgId = id.c_str();
  po.MaxWait = 2000;
  return WaitUntil(
      [&] {
        jsPubAck* ack = nullptr;
        const natsStatus s = js_Publish(&ack, c.js(), "garm.v1.ledger.acme.svc", data.data(),
                                        static_cast<int>(data.size()), &po, nullptr);
        jetstream::PubAckPtr owned(ack);
        return s == NATS_OK;
      },
      30s, 100ms);
}

std::optional<jetstream::ConsumerState> Consumer(jetstream::Connection& c) {
  auto s = jetstream::GetConsumerState(c, "GARM_LEDGER", "sink-ledger");
  if (!s.ok()) return std::nullopt;
  return *s;
}

std::vector<std::string> DrainArgs(const std::string& urls, const TempDir& dir,
                                   const std::string& instance) {
  return {SinkdBinary().string(), "drain", "ledger", "--nats-url", urls, "--lake-dir",
          (dir / "lake").string(), "--instance-id", instance, "--batch-interval", "300ms",
          "--ack-wait", "5s"};
}

std::string ClientName(const std::string& instance) { return "sinkd drain ledger " + instance; }

TEST(NatsCluster, ADrainGivenEveryNodeSurvivesTheDeathOfItsOwnAndLosesNothing) {
  NatsCluster cluster;
  ASSERT_TRUE(cluster.ok()) << cluster.error();
  auto admin = ConnectToList(cluster.urls());
  ASSERT_NE(admin, nullptr);
  ASSERT_TRUE(ProvisionR3(*admin)) << "no JetStream meta leader within 40 s";
  TempDir dir;

  Background drain(DrainArgs(cluster.urls(), dir, "c1"), dir / "drain.log");
  ASSERT_TRUE(WaitUntil([&] { return cluster.NodeOf(ClientName("c1")) >= 0; }, 20s))
      << drain.Log();
  const int victim = cluster.NodeOf(ClientName("c1"));

  // A publisher of its own, on the whole list, through the kill and the outage.
  constexpr int kMessages = 300;
  std::atomic<int> published{0};
  std::atomic<bool> publish_failed{false};
  // A jthread: joined however the test ends, even by a failed ASSERT.
  std::jthread publisher([&, urls = cluster.urls()] {
    auto c = ConnectToList(urls);
    for (int m = 0; m < kMessages && c != nullptr; ++m) {
      if (!PublishRetrying(*c, m)) {
        publish_failed = true;
        return;
      }
      published = m + 1;
      std::this_thread::sleep_for(20ms);
    }
  });
  ASSERT_TRUE(WaitUntil([&] { return published >= 60; }, 30s));
  // Some of what was published is landed and acked, some in flight.
  ASSERT_TRUE(WaitUntil(
      [&] {
        auto s = Consumer(*admin);
        return s && s->ack_floor_stream > 0;
      },
      20s))
      << drain.Log();
  cluster.node(victim).Kill();
  const auto killed = std::chrono::steady_clock::now();
  auto stream = jetstream::GetStreamState(*admin, "GARM_LEDGER");
  // Asked of a survivor: the admin connection may have been on the victim.
  ASSERT_TRUE(WaitUntil(
      [&] {
        stream = jetstream::GetStreamState(*admin, "GARM_LEDGER");
        return stream.ok();
      },
      20s));
  const uint64_t last_at_kill = stream->last_sequence;

  // Flushes resume on another node: the ack floor passes what the stream held at the kill.
  ASSERT_TRUE(WaitUntil(
      [&] {
        auto s = Consumer(*admin);
        return s && s->ack_floor_stream >= last_at_kill;
      },
      30s))
      << "the drain did not resume while its node was down\n"
      << drain.Log();
  const double resumed_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count();
  std::printf("acked past the stream's end at the kill %.1f s after it\n", resumed_s);
  const int now_on = cluster.NodeOf(ClientName("c1"));
  EXPECT_GE(now_on, 0);
  EXPECT_NE(now_on, victim);

  // A second drain on the same durable, given the dead node first, connects to a live one.
  std::string dead_first = cluster.node(victim).url();
  for (int i = 0; i < cluster.size(); ++i) {
    if (i != victim) dead_first += "," + cluster.node(i).url();
  }
  Background second(DrainArgs(dead_first, dir, "c2"), dir / "second.log");
  ASSERT_TRUE(WaitUntil(
      [&] { return second.Log().find("\"msg\":\"sinkd drain started\"") != std::string::npos; },
      20s))
      << second.Log();
  const int second_on = cluster.NodeOf(ClientName("c2"));
  EXPECT_GE(second_on, 0);
  EXPECT_NE(second_on, victim);

  publisher.join();
  ASSERT_FALSE(publish_failed) << "a publish failed for 30 s: the figures would mean nothing";
  ASSERT_TRUE(WaitUntil(
      [&] {
        auto s = Consumer(*admin);
        return s && s->pending == 0 && s->ack_pending == 0;
      },
      40s))
      << drain.Log() << second.Log();
  // The node comes back and the drains stop cleanly.
  EXPECT_TRUE(cluster.Restart(victim)) << cluster.node(victim).error();
  drain.Signal(SIGTERM);
  second.Signal(SIGTERM);
  EXPECT_EQ(drain.Wait(30s), 0) << drain.Log();
  EXPECT_EQ(second.Wait(30s), 0) << second.Log();

  auto q = testing::DuckDb("SELECT count(DISTINCT event_id), count(*) FROM read_parquet(" +
                           testing::SqlQuote((dir / "lake/ledger/**/*.parquet").string()) + ")");
  ASSERT_TRUE(q.ok) << q.error;
  EXPECT_EQ(q.rows[0][0], std::to_string(kMessages * 5)) << "every published event landed";
  EXPECT_GE(std::stoll(q.rows[0][1]), kMessages * 5);
}

TEST(NatsCluster, ADrainStartedBeforeItsServerWaitsForItLoggingEachAttempt) {
  const int port = testing::FreeLoopbackPort();
  testing::NatsServer server(port, {}, /*start=*/false);
  // The streams exist in the server's store before the drain starts, as after an outage.
  ASSERT_TRUE(server.Restart()) << server.error();
  {
    auto c = testing::Connect(server);
    ASSERT_NE(c, nullptr);
    testing::ProvisionAll(*c);
  }
  server.Stop();
  TempDir dir;
  Background drain(DrainArgs(server.url(), dir, "late"), dir / "drain.log");
  ASSERT_TRUE(WaitUntil(
      [&] { return drain.Log().find("\"attempt\":2") != std::string::npos; }, 20s))
      << drain.Log();
  EXPECT_NE(drain.Log().find("\"msg\":\"NATS connect failed; retrying\""), std::string::npos);
  ASSERT_TRUE(server.Restart()) << server.error();
  ASSERT_TRUE(WaitUntil(
      [&] { return drain.Log().find("\"msg\":\"sinkd drain started\"") != std::string::npos; },
      30s))
      << drain.Log();
  drain.Signal(SIGTERM);
  EXPECT_EQ(drain.Wait(30s), 0) << drain.Log();
}

TEST(NatsCluster, ASigtermWhileADrainWaitsForNatsIsACleanStop) {
  TempDir dir;
  const std::string down = "nats://127.0.0.1:" + std::to_string(testing::FreeLoopbackPort());
  Background drain(DrainArgs(down, dir, "never"), dir / "drain.log");
  ASSERT_TRUE(WaitUntil(
      [&] { return drain.Log().find("NATS connect failed; retrying") != std::string::npos; },
      20s))
      << drain.Log();
  drain.Signal(SIGTERM);
  EXPECT_EQ(drain.Wait(10s), 0) << drain.Log();
  EXPECT_NE(drain.Log().find("sinkd drain stopped before starting"), std::string::npos)
      << drain.Log();

  // A bounded wait ends in an error naming the attempts; a bad value is a usage error.
  auto bounded = testing::RunCommand({SinkdBinary().string(), "drain", "ledger", "--nats-url",
                                      down, "--lake-dir", (dir / "lake").string(),
                                      "--connect-timeout", "1s"},
                                     "", 30s);
  EXPECT_EQ(bounded.exit_code, 1) << bounded.err;
  EXPECT_NE(bounded.err.find("gave up after"), std::string::npos) << bounded.err;
  auto bad = testing::RunCommand({SinkdBinary().string(), "drain", "ledger", "--nats-url", down,
                                  "--lake-dir", (dir / "lake").string(), "--connect-timeout",
                                  "soon"},
                                 "", 30s);
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
}

}  // namespace
}  // namespace sinkd
