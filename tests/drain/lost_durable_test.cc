// A durable consumer deleted under a running drain, against a real nats-server: fetches from it
// only time out, so without a check the drain would idle, ready, while the stream fills.
#include <gtest/gtest.h>

#include "drain/drain_rig.h"

namespace sinkd {
namespace {

using namespace std::chrono_literals;
using testing::DrainRig;
using testing::WaitUntil;

void PublishRound(jetstream::Connection& c, const std::string& round, int messages) {
  for (int m = 0; m < messages; ++m) {
    std::vector<garm::ledger::v1::Event> events;
    for (int i = 0; i < 5; ++i) {
      events.push_back(testing::MakeEvent(round + "-" + std::to_string(m) + "-" + std::to_string(i)));
    }
    testing::PublishLedger(c, events);
  }
}

Status DeleteDurable(DrainRig& rig) {
  jsErrCode jerr = static_cast<jsErrCode>(0);
  return jetstream::FromNats(js_DeleteConsumer(rig.connection->js(), rig.options.stream.c_str(),
                                               rig.durable.c_str(), nullptr, &jerr),
                             "delete " + rig.durable, jerr);
}

// Rows and distinct event ids in the lake.
std::pair<std::string, std::string> LakeCounts(const DrainRig& rig) {
  auto q = testing::DuckDb("SELECT count(*), count(DISTINCT event_id) FROM read_parquet(" +
                           testing::SqlQuote((rig.lake_dir() / "**/*.parquet").string()) + ")");
  EXPECT_TRUE(q.ok) << q.error;
  return q.ok ? std::make_pair(q.rows[0][0], q.rows[0][1]) : std::make_pair("", "");
}

TEST(LostDurable, ADurableDeletedUnderARunningDrainIsRecreatedAndNothingIsLost) {
  DrainRig rig;
  ASSERT_TRUE(rig.server.ok()) << rig.server.error();
  rig.options.consumer_check_every = 300ms;
  PublishRound(*rig.connection, "before", 20);
  ASSERT_TRUE(rig.Start());
  ASSERT_TRUE(WaitUntil([&] { return rig.Drained(); }, 20s)) << "the first round never landed";
  // A check sees the final ack floor before the delete.
  std::this_thread::sleep_for(1s);

  ASSERT_TRUE(DeleteDurable(rig).ok());
  PublishRound(*rig.connection, "after", 20);
  ASSERT_TRUE(WaitUntil([&] { return rig.Drained(); }, 20s))
      << "the durable was not made again, or the second round never landed";
  EXPECT_TRUE(rig.metrics.ready()) << rig.metrics.Readiness();
  EXPECT_NE(rig.LogText().find("durable consumer was gone; re-created it"), std::string::npos);
  EXPECT_NE(rig.LogText().find("\"durable\":\"sink-test\""), std::string::npos);
  // 200 events: none lost, and the new durable started past the acked first round rather than
  // at the stream's start (which would have landed it twice).
  EXPECT_EQ(LakeCounts(rig), std::make_pair(std::string("200"), std::string("200")));
  const jetstream::ConsumerState state = rig.State();
  EXPECT_EQ(state.deliver_policy, static_cast<int64_t>(js_DeliverByStartSequence));
  EXPECT_EQ(state.opt_start_seq, 21u) << "one past the first round's 20 messages";
  // A drain started (or restarted) later binds the re-created durable: the server refuses to
  // change where a durable delivers from, so Bind must keep it.
  auto second = rig.Bind();
  EXPECT_TRUE(second.ok()) << second.status().ToString();
}

TEST(LostDurable, ADurableThatCannotBeRecreatedMakesTheDrainNotReadyNamingIt) {
  DrainRig rig;
  ASSERT_TRUE(rig.server.ok()) << rig.server.error();
  rig.options.consumer_check_every = 300ms;
  PublishRound(*rig.connection, "only", 4);
  ASSERT_TRUE(rig.Start());
  ASSERT_TRUE(WaitUntil([&] { return rig.Drained(); }, 20s));
  ASSERT_TRUE(rig.metrics.ready()) << rig.metrics.Readiness();
  // The stream goes with it, so the durable cannot be made again.
  ASSERT_EQ(js_DeleteStream(rig.connection->js(), rig.options.stream.c_str(), nullptr, nullptr),
            NATS_OK);
  ASSERT_TRUE(WaitUntil([&] { return !rig.metrics.ready(); }, 10s)) << rig.LogText();
  EXPECT_FALSE(rig.metrics.consumer_bound.load());
  const std::string log = rig.LogText();
  EXPECT_NE(log.find("durable consumer is gone and cannot be re-created"), std::string::npos)
      << log;
  EXPECT_NE(log.find("\"durable\":\"sink-test\""), std::string::npos) << log;
  // Said once, not at every check.
  std::this_thread::sleep_for(1s);
  const std::string later = rig.LogText();
  EXPECT_EQ(later.find("cannot be re-created", later.find("cannot be re-created") + 1),
            std::string::npos)
      << later;
  // Provisioned again, the drain makes its durable and is ready.
  testing::ProvisionAll(*rig.connection);
  EXPECT_TRUE(WaitUntil([&] { return rig.metrics.ready(); }, 10s)) << rig.LogText();
}

}  // namespace
}  // namespace sinkd
