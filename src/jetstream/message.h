// Message is one JetStream message delivered to a consumer, with the facts the drain needs from its
// metadata (stream, stream sequence, delivery count) and the four ways to settle it. Only the
// drain's settle step (drain/settle.h) calls Ack, Nak and Term.
// Ownership: owns the natsMsg; data() and subject() are views valid while the Message lives.
// Threads: one thread at a time; InProgress may be sent from a second thread while the owner is
// not touching the message (the drain's flush keep-alive does exactly that).
// Errors: every settle call returns the libnats result as a Status (Retry), never throws it away.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"
#include "jetstream/nats_error.h"

namespace sinkd::jetstream {

class Message {
 public:
  // Takes ownership of `msg` and reads its JetStream metadata (absent metadata leaves zeros).
  explicit Message(natsMsg* msg);
  Message(Message&&) noexcept = default;
  Message& operator=(Message&&) noexcept = default;

  std::string_view data() const;
  std::string_view subject() const;
  const std::string& stream() const { return stream_; }
  uint64_t stream_sequence() const { return stream_sequence_; }
  uint64_t delivered() const { return delivered_; }  // 1 on first delivery
  uint64_t pending() const { return pending_; }      // messages left for the consumer after it
  int64_t timestamp_ns() const { return timestamp_ns_; }

  Status Ack();
  Status Nak(std::chrono::milliseconds delay);
  Status Term();
  Status InProgress();

  natsMsg* raw() const { return msg_.get(); }

 private:
  MsgPtr msg_;
  std::string stream_;
  uint64_t stream_sequence_ = 0;
  uint64_t delivered_ = 0;
  uint64_t pending_ = 0;
  int64_t timestamp_ns_ = 0;
};

}  // namespace sinkd::jetstream
