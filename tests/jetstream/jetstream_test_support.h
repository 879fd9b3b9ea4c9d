// Helpers the JetStream-facing tests share (drain, tail, metrics, jetstream): connecting to the
// fixture's server, provisioning, publishing events and Batches, and reading what landed on
// GARM_SINK_DEAD. Header-only so every test binary that links sinkd_jetstream can use it.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "garm/ledger/v1/event.pb.h"
#include "jetstream/connection.h"
#include "jetstream/pull_consumer.h"
#include "jetstream/streams.h"
#include "support/nats_server.h"

namespace sinkd::testing {

inline constexpr int64_t k2026_09_29 = 1'790'640'000;  // 2026-09-29T00:00:00Z, seconds

inline std::unique_ptr<jetstream::Connection> Connect(const NatsServer& server) {
  jetstream::ConnectOptions o;
  o.url = server.url();
  o.name = "sinkd test";
  auto c = jetstream::Connection::Connect(o);
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return c.ok() ? std::move(c).value() : nullptr;
}

// Creates the three streams as `sinkd provision` would.
inline void ProvisionAll(jetstream::Connection& c, jetstream::StreamSizing sizing = {}) {
  auto report = jetstream::Provision(c, jetstream::StreamSpecs(sizing));
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_TRUE(report->status.ok()) << report->status.ToString();
}

inline garm::ledger::v1::Event MakeEvent(const std::string& id, const std::string& app = "svc",
                                         int64_t seconds = k2026_09_29 + 43200) {
  garm::ledger::v1::Event e;
  e.set_event_id(id);
  e.mutable_time()->set_seconds(seconds);
  e.set_tenant("acme");
  e.set_app(app);
  e.set_outcome("ok");
  return e;
}

inline std::string BatchOf(const std::vector<garm::ledger::v1::Event>& events) {
  garm::ledger::v1::Batch b;
  for (const auto& e : events) *b.add_events() = e;
  return b.SerializeAsString();
}

// Publishes synchronously; returns the stream sequence (0 on failure, with a gtest failure).
inline uint64_t Publish(jetstream::Connection& c, const std::string& subject,
                        const std::string& data) {
  jsPubAck* ack = nullptr;
  jsErrCode jerr = static_cast<jsErrCode>(0);
  natsStatus s = js_Publish(&ack, c.js(), subject.c_str(), data.data(),
                            static_cast<int>(data.size()), nullptr, &jerr);
  jetstream::PubAckPtr owned(ack);
  EXPECT_EQ(s, NATS_OK) << "publish to " << subject << ": " << natsStatus_GetText(s) << " "
                        << jerr;
  return s == NATS_OK ? ack->Sequence : 0;
}

inline uint64_t PublishLedger(jetstream::Connection& c,
                              const std::vector<garm::ledger::v1::Event>& events) {
  return Publish(c, "garm.v1.ledger.acme.svc", BatchOf(events));
}

inline uint64_t PublishAudit(jetstream::Connection& c, const garm::ledger::v1::Event& event) {
  return Publish(c, "garm.v1.audit.acme.svc", event.SerializeAsString());
}

struct StoredMessage {
  uint64_t sequence = 0;
  std::string subject;
  std::string data;
  std::map<std::string, std::string> headers;
};

// Every message on `stream`, read directly (no consumer), in sequence order.
inline std::vector<StoredMessage> ReadStream(jetstream::Connection& c, const std::string& stream) {
  std::vector<StoredMessage> out;
  auto state = jetstream::GetStreamState(c, stream);
  if (!state.ok()) return out;
  for (uint64_t seq = state->first_sequence; seq != 0 && seq <= state->last_sequence; ++seq) {
    natsMsg* raw = nullptr;
    if (js_GetMsg(&raw, c.js(), stream.c_str(), seq, nullptr, nullptr) != NATS_OK) continue;
    jetstream::MsgPtr msg(raw);
    StoredMessage m;
    m.sequence = seq;
    m.subject = natsMsg_GetSubject(raw);
    m.data.assign(natsMsg_GetData(raw), static_cast<size_t>(natsMsg_GetDataLength(raw)));
    const char** keys = nullptr;
    int count = 0;
    if (natsMsgHeader_Keys(raw, &keys, &count) == NATS_OK) {
      for (int i = 0; i < count; ++i) {
        const char* value = nullptr;
        if (natsMsgHeader_Get(raw, keys[i], &value) == NATS_OK) m.headers[keys[i]] = value;
      }
      free(keys);
    }
    out.push_back(std::move(m));
  }
  return out;
}

inline jetstream::ConsumerState ConsumerStateOf(jetstream::Connection& c, const std::string& stream,
                                                const std::string& durable) {
  auto s = jetstream::GetConsumerState(c, stream, durable);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? *s : jetstream::ConsumerState{};
}

}  // namespace sinkd::testing
