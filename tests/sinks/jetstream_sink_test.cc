// The jetstream sink against a real nats-server: subject <prefix>.<type>, Nats-Msg-Id = event id,
// so a redelivered batch is stored once.
#include "sinks/jetstream_sink.h"

#include <gtest/gtest.h>
#include <nats/nats.h>

#include "jetstream/nats_error.h"
#include "support/nats_server.h"

namespace sinkd::sinks {
namespace {

Event MakeEvent(int n, const std::string& type) {
  Event e;
  e.id = "evt_" + std::to_string(n);
  e.type = type;
  e.tenant_id = "ten_1";
  e.subject = "reservation/rsv_" + std::to_string(n);
  e.time = "2026-11-30T20:28:46.123Z";
  e.txid = 700;
  e.seq = n;
  e.sequence = "700:" + std::to_string(n);
  e.data_json = "{}";
  return e;
}

class JetStreamSinkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.ok()) << server_.error();
    ASSERT_EQ(natsConnection_ConnectTo(&nc_, server_.url().c_str()), NATS_OK);
    ASSERT_EQ(natsConnection_JetStream(&js_, nc_, nullptr), NATS_OK);
    jsStreamConfig cfg;
    jsStreamConfig_Init(&cfg);
    cfg.Name = "EVENTS";
    const char* subjects[] = {"compute.events.>"};
    cfg.Subjects = subjects;
    cfg.SubjectsLen = 1;
    cfg.Duplicates = 120'000'000'000LL;
    jsStreamInfo* info = nullptr;
    ASSERT_EQ(js_AddStream(&info, js_, &cfg, nullptr, nullptr), NATS_OK);
    jsStreamInfo_Destroy(info);
  }
  void TearDown() override {
    if (js_) jsCtx_Destroy(js_);
    if (nc_) natsConnection_Destroy(nc_);
  }
  uint64_t Stored() {
    jsStreamInfo* info = nullptr;
    if (js_GetStreamInfo(&info, js_, "EVENTS", nullptr, nullptr) != NATS_OK) return 0;
    const uint64_t n = info->State.Msgs;
    jsStreamInfo_Destroy(info);
    return n;
  }
  std::unique_ptr<JetStreamEventSink> Sink() {
    auto sink = std::make_unique<JetStreamEventSink>(
        "bus", JetStreamSinkOptions{server_.url(), "compute.events"});
    EXPECT_TRUE(sink->Open().ok());
    return sink;
  }

  sinkd::testing::NatsServer server_;
  natsConnection* nc_ = nullptr;
  jsCtx* js_ = nullptr;
};

TEST_F(JetStreamSinkTest, EachEventGoesToPrefixDotTypeWithItsIdAsMsgId) {
  auto sink = Sink();
  const std::vector<Event> events = {MakeEvent(1, "reservation.placed"),
                                     MakeEvent(2, "node.connected")};
  ASSERT_TRUE(sink->Deliver(events).ok());
  ASSERT_EQ(Stored(), 2u);
  natsMsg* raw = nullptr;
  ASSERT_EQ(js_GetMsg(&raw, js_, "EVENTS", 1, nullptr, nullptr), NATS_OK);
  jetstream::MsgPtr msg(raw);
  EXPECT_STREQ(natsMsg_GetSubject(raw), "compute.events.reservation.placed");
  const char* id = nullptr;
  ASSERT_EQ(natsMsgHeader_Get(raw, "Nats-Msg-Id", &id), NATS_OK);
  EXPECT_STREQ(id, "evt_1");
  const std::string body(natsMsg_GetData(raw), static_cast<size_t>(natsMsg_GetDataLength(raw)));
  EXPECT_EQ(body, EventJson(events[0]));
}

// At-least-once upstream, once in the stream: the duplicate window drops a redelivered batch.
TEST_F(JetStreamSinkTest, ARedeliveredBatchIsStoredOnce) {
  auto sink = Sink();
  const std::vector<Event> events = {MakeEvent(1, "a"), MakeEvent(2, "b"), MakeEvent(3, "c")};
  ASSERT_TRUE(sink->Deliver(events).ok());
  ASSERT_TRUE(sink->Deliver(events).ok());
  EXPECT_EQ(Stored(), 3u);
}

TEST_F(JetStreamSinkTest, AnEventWithoutAnIdOrWithAWildcardTypeIsRejected) {
  auto sink = Sink();
  Event no_id = MakeEvent(1, "a");
  no_id.id.clear();
  EXPECT_TRUE(sink->Deliver(std::vector<Event>{no_id}).IsReject());
  EXPECT_TRUE(sink->Deliver(std::vector<Event>{MakeEvent(2, "a.*")}).IsReject());
  EXPECT_TRUE(sink->Deliver(std::vector<Event>{MakeEvent(3, "")}).IsReject());
  EXPECT_EQ(Stored(), 0u);
}

// The broker is down: a transient failure the dispatcher retries, not a poison verdict.
TEST_F(JetStreamSinkTest, APublishWhileTheServerIsDownIsARetry) {
  auto sink = std::make_unique<JetStreamEventSink>(
      "bus", JetStreamSinkOptions{server_.url(), "compute.events", std::chrono::milliseconds(500)});
  ASSERT_TRUE(sink->Open().ok());
  server_.Kill();
  Status s = sink->Deliver(std::vector<Event>{MakeEvent(1, "a")});
  EXPECT_FALSE(s.ok());
  EXPECT_FALSE(s.IsReject()) << s.ToString();
}

}  // namespace
}  // namespace sinkd::sinks
