// The `jetstream` event sink: publishes each event (its JSON, sinks::EventJson) to
// `<subject prefix>.<type>` with Nats-Msg-Id = the event id, and waits for each publish ack, so
// Deliver returns OK only once JetStream stored every event. A redelivered event carries the same
// Nats-Msg-Id, so the stream's duplicate window drops it.
// An event without an id, or whose type cannot be a subject (empty, a blank, '*', '>', an empty
// token), is a permanent failure (Reject). A failed publish is Retry; events published before it
// stay published (the redelivery is deduplicated by id).
// Ownership: owns its connection. Threads: one thread at a time (the sink's loop).
#pragma once

#include <memory>
#include <string>

#include "jetstream/connection.h"
#include "sinks/event_sink.h"

namespace sinkd::sinks {

struct JetStreamSinkOptions {
  std::string url;             // nats://host:port
  std::string subject_prefix;  // e.g. "compute.events"
  std::chrono::milliseconds timeout{5000};  // connect and each publish ack
};

class JetStreamEventSink final : public EventSink {
 public:
  JetStreamEventSink(std::string id, JetStreamSinkOptions options);

  const std::string& id() const override { return id_; }
  // Connects (reconnecting forever afterwards).
  Status Open() override;
  Status Deliver(std::span<const Event> events) override;

 private:
  std::string id_;
  JetStreamSinkOptions options_;
  std::unique_ptr<jetstream::Connection> connection_;
};

// Whether `type` can follow "<prefix>." in a subject: non-empty tokens, no blanks, no wildcards.
bool IsSubjectSafe(std::string_view type);

}  // namespace sinkd::sinks
