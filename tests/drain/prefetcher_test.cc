// The Prefetcher against a real nats-server: one fetch held ahead, nothing lost at Stop.
#include "drain/prefetcher.h"

#include <set>

#include <gtest/gtest.h>

#include "jetstream/jetstream_test_support.h"

namespace sinkd {
namespace {

using namespace std::chrono_literals;
using testing::MakeEvent;

struct PrefetchRig {
  PrefetchRig() {
    if (!server.ok()) return;
    connection = testing::Connect(server);
    testing::ProvisionAll(*connection);
    jetstream::ConsumerConfig cc{jetstream::kLedgerStream, "sink-prefetch",
                                 jetstream::kLedgerFilter};
    cc.ack_wait = 30s;
    auto bound = jetstream::PullConsumer::Bind(*connection, cc);
    if (bound.ok()) consumer = std::move(bound).value();
  }
  void PublishMessages(int n) {
    for (int i = 0; i < n; ++i) {
      std::string id = "e";
      id += std::to_string(i);  // not "e" + …: gcc 12 warns falsely (-Wstringop-overflow) on it
      testing::PublishLedger(*connection, {MakeEvent(id)});
    }
  }
  jetstream::ConsumerState State() {
    return testing::ConsumerStateOf(*connection, jetstream::kLedgerStream, "sink-prefetch");
  }

  testing::NatsServer server;
  std::unique_ptr<jetstream::Connection> connection;
  std::unique_ptr<jetstream::PullConsumer> consumer;
  drain::KeepAlive keepalive{10s};  // a third of the ack wait; destroyed before the consumer
};

// Taken in stream order, each message once, one fetch (of at most fetch_max) per Take.
TEST(Prefetcher, TakesEveryMessageOnceInStreamOrder) {
  PrefetchRig rig;
  ASSERT_TRUE(rig.consumer) << rig.server.error();
  rig.PublishMessages(10);
  drain::Prefetcher prefetcher(*rig.consumer, rig.keepalive, 3, 200ms);
  std::vector<jetstream::Message> got;
  for (int i = 0; i < 50 && got.size() < 10; ++i) {
    const size_t before = got.size();
    ASSERT_TRUE(prefetcher.Take(500ms, got).ok());
    EXPECT_LE(got.size() - before, 3u) << "one fetch per Take";
  }
  ASSERT_EQ(got.size(), 10u);
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i].stream_sequence(), i + 1);
  EXPECT_EQ(rig.keepalive.tracked(), 10u) << "each is kept alive from its delivery";
  rig.keepalive.Release(got);
  for (auto& m : got) ASSERT_TRUE(m.Ack().ok());
  std::vector<jetstream::Message> more;
  EXPECT_TRUE(prefetcher.Take(300ms, more).ok());
  EXPECT_TRUE(more.empty()) << "nothing is delivered twice";
}

// While nobody takes, exactly one fetch waits: a paused drain holds at most fetch_max messages
// it has not seen, and Stop hands them back (here nak'd, so they are pending again at once).
TEST(Prefetcher, HoldsOneFetchAheadAndStopHandsItBack) {
  PrefetchRig rig;
  ASSERT_TRUE(rig.consumer) << rig.server.error();
  rig.PublishMessages(10);
  drain::Prefetcher prefetcher(*rig.consumer, rig.keepalive, 4, 200ms);
  ASSERT_TRUE(testing::WaitUntil([&] { return rig.State().ack_pending == 4; }, 10s))
      << "one fetch of 4 is delivered without a Take";
  std::this_thread::sleep_for(500ms);
  EXPECT_EQ(rig.State().ack_pending, 4) << "and no second fetch while the first is untaken";
  std::vector<jetstream::Message> left = prefetcher.Stop();
  ASSERT_EQ(left.size(), 4u);
  EXPECT_EQ(left.front().stream_sequence(), 1u);
  EXPECT_EQ(rig.keepalive.tracked(), 4u) << "handed back still kept alive";
  rig.keepalive.Release(left);
  for (auto& m : left) ASSERT_TRUE(m.Nak(0ms).ok());
  std::vector<jetstream::Message> after;
  EXPECT_TRUE(prefetcher.Take(50ms, after).ok());
  EXPECT_TRUE(after.empty()) << "a stopped prefetcher fetches nothing";

  // The next drain gets all ten, the four handed back among them as redeliveries.
  drain::Prefetcher next(*rig.consumer, rig.keepalive, 10, 200ms);
  std::set<uint64_t> sequences;
  for (int i = 0; i < 50 && after.size() < 10; ++i) ASSERT_TRUE(next.Take(500ms, after).ok());
  for (auto& m : after) {
    sequences.insert(m.stream_sequence());
    EXPECT_EQ(m.delivered(), m.stream_sequence() <= 4 ? 2u : 1u) << m.stream_sequence();
  }
  EXPECT_EQ(sequences.size(), 10u);
  EXPECT_EQ(after.size(), 10u);
  rig.keepalive.Release(after);  // before `after` frees them
}

// Nothing published: Take waits its timeout and returns OK with nothing.
TEST(Prefetcher, AnIdleStreamGivesAnEmptyTakeAfterTheTimeout) {
  PrefetchRig rig;
  ASSERT_TRUE(rig.consumer) << rig.server.error();
  drain::Prefetcher prefetcher(*rig.consumer, rig.keepalive, 4, 100ms);
  std::vector<jetstream::Message> got;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(prefetcher.Take(300ms, got).ok());
  EXPECT_TRUE(got.empty());
  EXPECT_GE(std::chrono::steady_clock::now() - start, 290ms);
}

}  // namespace
}  // namespace sinkd
