// The KeepAlive against a real nats-server with a 3 s ack wait: what it holds is not redelivered,
// what it released is, and its InProgress acks are paced per message, not sent in bursts.
#include "drain/keep_alive.h"

#include <gtest/gtest.h>

#include "jetstream/jetstream_test_support.h"
#include "support/support.h"

namespace sinkd {
namespace {

using namespace std::chrono_literals;
using drain::KeepAlive;
using std::chrono::steady_clock;

struct KeepAliveRig {
  KeepAliveRig() {
    if (!server.ok()) return;
    connection = testing::Connect(server);
    testing::ProvisionAll(*connection);
    jetstream::ConsumerConfig cc{jetstream::kLedgerStream, "sink-keepalive",
                                 jetstream::kLedgerFilter};
    cc.ack_wait = 3s;
    auto bound = jetstream::PullConsumer::Bind(*connection, cc);
    if (bound.ok()) consumer = std::move(bound).value();
  }
  void PublishMessages(int n) {
    for (int i = 0; i < n; ++i) {
      std::string id = "k";
      id += std::to_string(i);
      testing::PublishLedger(*connection, {testing::MakeEvent(id)});
    }
  }
  // Fetches until `n` messages came (bounded), as the Prefetcher does: the clock starts when asked.
  std::vector<jetstream::Message> FetchTracked(KeepAlive& keepalive, size_t n) {
    std::vector<jetstream::Message> got;
    for (int i = 0; i < 20 && got.size() < n; ++i) {
      const auto asked = steady_clock::now();
      const size_t before = got.size();
      EXPECT_TRUE(consumer->Fetch(static_cast<int>(n - got.size()), 500ms, got).ok());
      keepalive.Track(std::span(got).subspan(before), asked);
    }
    return got;
  }
  // What another drain sharing the durable would be handed now.
  std::vector<jetstream::Message> FetchOther() {
    std::vector<jetstream::Message> got;
    EXPECT_TRUE(consumer->Fetch(100, 500ms, got).ok());
    return got;
  }
  // Of `got`, the messages whose ack wait ran out: delivered before. The server also re-offers,
  // as a first delivery, a message it thinks never reached a pull request (its requester looked
  // gone under load); that one was never held past an ack wait, so it says nothing about the
  // KeepAlive, and counting it made these tests fail on a loaded CI machine.
  static std::vector<uint64_t> ExpiredOf(const std::vector<jetstream::Message>& got) {
    std::vector<uint64_t> sequences;
    for (const auto& m : got) {
      if (m.delivered() >= 2) sequences.push_back(m.stream_sequence());
    }
    return sequences;
  }

  testing::NatsServer server;
  std::unique_ptr<jetstream::Connection> connection;
  std::unique_ptr<jetstream::PullConsumer> consumer;
};

// Held two and a half ack waits: another fetch gets nothing, because every one of the messages
// got its InProgress in time; and they were not burst: about one per message per second. Half of
// them gave up their payload as a decoded message does: a message is kept alive, and acked,
// through its ack address, never through its payload.
TEST(KeepAlive, HeldMessagesOutliveTheAckWaitWithOneInProgressEachPerThirdOfIt) {
  KeepAliveRig rig;
  ASSERT_TRUE(rig.consumer) << rig.server.error();
  rig.PublishMessages(20);
  KeepAlive keepalive(1s);
  const auto start = steady_clock::now();
  std::vector<jetstream::Message> held = rig.FetchTracked(keepalive, 20);
  ASSERT_EQ(held.size(), 20u);
  EXPECT_EQ(keepalive.tracked(), 20u);
  for (size_t i = 0; i < held.size(); i += 2) held[i].ReleasePayload();
  EXPECT_TRUE(held[0].data().empty());
  EXPECT_EQ(held[0].subject().substr(0, 15), "garm.v1.ledger.") << "the subject stays";
  std::this_thread::sleep_for(7500ms);
  std::vector<jetstream::Message> other = rig.FetchOther();
  const double seconds = std::chrono::duration<double>(steady_clock::now() - start).count();
  const uint64_t sent = keepalive.sent();
  const std::vector<uint64_t> expired = KeepAliveRig::ExpiredOf(other);
  EXPECT_TRUE(expired.empty()) << expired.size() << " held messages were redelivered";
  EXPECT_EQ(keepalive.failed(), 0u);
  EXPECT_LE(sent, static_cast<uint64_t>(20 * (seconds + 1))) << "more than one per message per second";
  EXPECT_GE(sent, 20u * 5) << "fewer than the ack wait needs over " << seconds << " s";
  keepalive.Release(held);
  for (auto& m : held) EXPECT_TRUE(m.Ack().ok());
  for (auto& m : other) EXPECT_TRUE(m.Ack().ok());
  ASSERT_TRUE(rig.connection->FlushPending(2s).ok());
  EXPECT_TRUE(testing::WaitUntil([&] {
    return testing::ConsumerStateOf(*rig.connection, jetstream::kLedgerStream, "sink-keepalive")
               .ack_floor_stream == 20;
  }, 5s)) << "every ack, of a released message or not, reached the server";
}

// Released means released: no more InProgress for it, so the message is redelivered after the ack
// wait as if it had never been tracked (a late InProgress after a nak would delay its redelivery
// by a whole ack wait). The one still tracked beside it stays ours.
TEST(KeepAlive, AReleasedMessageIsNoLongerKeptAlive) {
  KeepAliveRig rig;
  ASSERT_TRUE(rig.consumer) << rig.server.error();
  rig.PublishMessages(2);
  KeepAlive keepalive(1s);
  std::vector<jetstream::Message> held = rig.FetchTracked(keepalive, 2);
  ASSERT_EQ(held.size(), 2u);
  keepalive.Release(held[0]);
  EXPECT_EQ(keepalive.tracked(), 1u);
  std::vector<jetstream::Message> again;
  ASSERT_TRUE(testing::WaitUntil(
      [&] {
        for (auto& m : rig.FetchOther()) again.push_back(std::move(m));
        return !KeepAliveRig::ExpiredOf(again).empty();
      },
      10s))
      << "the released message was never redelivered";
  // Unkept, the tracked one would expire with it: a little longer, and it must not have.
  std::this_thread::sleep_for(1500ms);
  for (auto& m : rig.FetchOther()) again.push_back(std::move(m));
  EXPECT_EQ(KeepAliveRig::ExpiredOf(again), std::vector<uint64_t>{held[0].stream_sequence()})
      << "only the released one comes back";
  for (const auto& m : again) {
    if (m.stream_sequence() == held[0].stream_sequence()) {
      EXPECT_EQ(m.delivered(), 2u);
    }
  }
  keepalive.Release(held);
  for (auto& m : held) EXPECT_TRUE(m.Ack().ok());
  for (auto& m : again) EXPECT_TRUE(m.Ack().ok());
}

// The clock starts at delivery, not when the holder gets round to the message: a message tracked
// as delivered 2.5 s ago (of a 3 s ack wait) gets its InProgress at once and is not redelivered.
TEST(KeepAlive, TheFirstInProgressIsDueAThirdOfTheAckWaitAfterDelivery) {
  KeepAliveRig rig;
  ASSERT_TRUE(rig.consumer) << rig.server.error();
  rig.PublishMessages(1);
  std::vector<jetstream::Message> held;
  ASSERT_TRUE(testing::WaitUntil(
      [&] { return rig.consumer->Fetch(1, 500ms, held).ok() && !held.empty(); }, 5s));
  KeepAlive keepalive(1s);
  keepalive.Track(held, steady_clock::now() - 2500ms);
  ASSERT_TRUE(testing::WaitUntil([&] { return keepalive.sent() >= 1; }, 500ms))
      << "an overdue message waited for a full interval";
  std::this_thread::sleep_for(3500ms);
  EXPECT_TRUE(rig.FetchOther().empty()) << "redelivered although it was kept alive";
  keepalive.Release(held);
  EXPECT_TRUE(held[0].Ack().ok());
}

// A drain acks hundreds of thousands of messages per batch while the next interval is minutes
// away: the schedule entries of released messages must not pile up until they come due.
TEST(KeepAlive, ReleasedMessagesDoNotPileUpInTheSchedule) {
  KeepAliveRig rig;  // its connection is never used: nothing is due within the hour
  ASSERT_TRUE(rig.consumer) << rig.server.error();
  KeepAlive keepalive(std::chrono::hours(1));
  for (int round = 0; round < 5; ++round) {
    std::vector<jetstream::Message> held;
    for (int i = 0; i < 20'000; ++i) {
      natsMsg* raw = nullptr;
      ASSERT_EQ(natsMsg_Create(&raw, "garm.v1.ledger.acme.svc", "$JS.ACK.reply", "x", 1), NATS_OK);
      held.emplace_back(raw, rig.connection->nc());
    }
    keepalive.Track(held, steady_clock::now());
    EXPECT_EQ(keepalive.tracked(), 20'000u);
    for (const auto& m : held) keepalive.Release(m);
    EXPECT_EQ(keepalive.tracked(), 0u);
    EXPECT_LE(keepalive.scheduled(), 8'192u) << "round " << round;
  }
  EXPECT_EQ(keepalive.sent() + keepalive.failed(), 0u) << "an hour's interval sent something";
}

}  // namespace
}  // namespace sinkd
