// Settling a message against a real nats-server: ack, term and nak (with its delay) are publishes
// to the reply subject, so a message that gave up its payload once decoded settles as before.
#include "jetstream/message.h"

#include <gtest/gtest.h>

#include "jetstream/jetstream_test_support.h"
#include "jetstream/pull_consumer.h"
#include "support/support.h"

namespace sinkd {
namespace {

using namespace std::chrono_literals;

TEST(Message, AReleasedMessageIsAckedTermedAndNakedWithItsDelay) {
  testing::NatsServer server;
  ASSERT_TRUE(server.ok()) << server.error();
  auto c = testing::Connect(server);
  testing::ProvisionAll(*c);
  jetstream::ConsumerConfig cc{jetstream::kLedgerStream, "sink-settle", jetstream::kLedgerFilter};
  cc.ack_wait = 30s;
  auto consumer = jetstream::PullConsumer::Bind(*c, cc);
  ASSERT_TRUE(consumer.ok()) << consumer.status().ToString();
  for (const char* id : {"s1", "s2", "s3"}) testing::PublishLedger(*c, {testing::MakeEvent(id)});

  std::vector<jetstream::Message> got;
  for (int i = 0; i < 20 && got.size() < 3; ++i) ASSERT_TRUE((*consumer)->Fetch(3, 500ms, got).ok());
  ASSERT_EQ(got.size(), 3u);
  const std::string subject(got[0].subject());
  for (jetstream::Message& m : got) {
    ASSERT_FALSE(m.data().empty());
    m.ReleasePayload();
    EXPECT_TRUE(m.data().empty());
    EXPECT_EQ(m.raw(), nullptr);
  }
  EXPECT_EQ(got[0].subject(), subject) << "the subject outlives the payload, for dead letters";
  EXPECT_EQ(got[2].stream_sequence(), 3u);
  ASSERT_TRUE(got[0].Ack().ok());
  ASSERT_TRUE(got[1].Term().ok());
  const auto naked = std::chrono::steady_clock::now();
  ASSERT_TRUE(got[2].Nak(2000ms).ok());
  ASSERT_TRUE(c->FlushPending(2s).ok());

  // Within the delay nothing comes back: not the acked, not the termed, not the nak'd one.
  std::vector<jetstream::Message> early;
  ASSERT_TRUE((*consumer)->Fetch(3, 700ms, early).ok());
  EXPECT_TRUE(early.empty()) << early.size() << " back before the nak delay";
  std::vector<jetstream::Message> again;
  for (int i = 0; i < 20 && again.empty(); ++i) ASSERT_TRUE((*consumer)->Fetch(3, 500ms, again).ok());
  const double after = std::chrono::duration<double>(std::chrono::steady_clock::now() - naked).count();
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].stream_sequence(), 3u) << "only the nak'd message is redelivered";
  EXPECT_EQ(again[0].delivered(), 2u);
  EXPECT_GE(after, 1.9) << "redelivered before its delay";
  ASSERT_TRUE(again[0].Ack().ok());
  ASSERT_TRUE(c->FlushPending(2s).ok());
  EXPECT_TRUE(testing::WaitUntil([&] {
    return testing::ConsumerStateOf(*c, jetstream::kLedgerStream, "sink-settle").ack_floor_stream == 3;
  }, 5s));
}

// A message nobody delivered for acking (import's, tail's AckNone reads) has nothing to settle on.
TEST(Message, AMessageWithoutAConnectionCannotBeSettled) {
  natsMsg* raw = nullptr;
  ASSERT_EQ(natsMsg_Create(&raw, "garm.v1.ledger.acme.svc", "$JS.ACK.reply", "x", 1), NATS_OK);
  jetstream::Message m(raw);
  EXPECT_EQ(m.ack_address(), nullptr);
  EXPECT_FALSE(m.Ack().ok());
  EXPECT_FALSE(m.Nak(0ms).ok());
  EXPECT_FALSE(m.Term().ok());
}

}  // namespace
}  // namespace sinkd
