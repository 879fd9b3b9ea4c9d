// Message is one JetStream message delivered to a consumer, with the facts the drain needs from its
// metadata (stream, stream sequence, delivery count), the three ways to settle it, and the
// keep-alive. Only the drain's settle step (drain/settle.h) and its shutdown call Ack, Nak and
// Term; only drain/keep_alive.h sends InProgress.
// Ownership: owns the natsMsg; data() and subject() are views valid while the Message lives, and
// moving the Message does not move the natsMsg (raw() stays the same).
// Threads: one thread at a time, except InProgress, which only reads the natsMsg and so may run
// on a second thread while the owner reads it too; never alongside Ack, Nak, Term or the
// destructor (those write it or free it): drain/keep_alive.h orders them.
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
  // Tells the server the message is still being worked on: its ack wait starts again.
  static Status InProgress(natsMsg* msg);

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
