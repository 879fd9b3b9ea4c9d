// Message is one JetStream message delivered to a consumer, with the facts the drain needs from its
// metadata (stream, stream sequence, delivery count), the three ways to settle it, and the
// keep-alive. Only the drain's settle step (drain/settle.h) and its shutdown call Ack, Nak and
// Term; only drain/keep_alive.h sends InProgress.
// Settling is a publish to the message's reply subject on the connection that delivered it
// ("+ACK", "-NAK", "+TERM", "+WPI": what libnats' natsMsg_Ack and its siblings send), kept in an
// AckAddress of its own. So a message can give up its natsMsg, payload and all, once decoded
// (ReleasePayload) and still be settled and kept alive: a drain holding two batches of ledger
// Batches would otherwise hold every payload until the ack (~140 MiB a batch of 250,000 rows).
// Ownership: owns the natsMsg until ReleasePayload; data() and subject() are views valid until
// ReleasePayload or the Message's end (after ReleasePayload, subject() views the Message's own
// copy); moving the
// Message moves neither the natsMsg nor the AckAddress (raw() and ack_address() stay the same).
// Threads: one thread at a time, except InProgress, which only reads the AckAddress and so may
// run on a second thread while the owner uses the Message; never alongside Ack, Nak, Term or the
// destructor (drain/keep_alive.h orders them). ReleasePayload leaves the AckAddress as it is.
// Errors: every settle call returns the libnats result as a Status (Retry), never throws it away.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"
#include "jetstream/nats_error.h"

namespace sinkd::jetstream {

// Where a delivered message is settled: its reply subject, on its connection.
struct AckAddress {
  natsConnection* connection = nullptr;
  std::string reply;
};

class Message {
 public:
  // Takes ownership of `msg` and reads its JetStream metadata (absent metadata leaves zeros).
  // `connection` delivered it; without one (a message made here: a test's) the message cannot be
  // settled and its settle calls fail. (`import` makes no messages: a batch takes records,
  // drain/batch.h.)
  explicit Message(natsMsg* msg, natsConnection* connection = nullptr);
  Message(Message&&) noexcept = default;
  Message& operator=(Message&&) noexcept = default;

  std::string_view data() const;  // empty once the payload is released
  std::string_view subject() const;
  const std::string& stream() const { return stream_; }
  uint64_t stream_sequence() const { return stream_sequence_; }
  uint64_t delivered() const { return delivered_; }  // 1 on first delivery
  uint64_t pending() const { return pending_; }      // messages left for the consumer after it
  int64_t timestamp_ns() const { return timestamp_ns_; }

  // Frees the natsMsg, payload included, keeping the subject, the metadata and the AckAddress:
  // everything settling and a dead letter need. For a message whose rows are decoded.
  void ReleasePayload();

  Status Ack();
  Status Nak(std::chrono::milliseconds delay);
  Status Term();
  // Tells the server the message is still being worked on: its ack wait starts again.
  static Status InProgress(const AckAddress& address);

  // Null when the message cannot be settled (no connection or no reply subject).
  const AckAddress* ack_address() const { return address_.get(); }
  natsMsg* raw() const { return msg_.get(); }  // null once the payload is released

 private:
  MsgPtr msg_;
  std::unique_ptr<const AckAddress> address_;
  std::string subject_;  // the subject, once the natsMsg holding it is gone
  std::string stream_;
  uint64_t stream_sequence_ = 0;
  uint64_t delivered_ = 0;
  uint64_t pending_ = 0;
  int64_t timestamp_ns_ = 0;
};

}  // namespace sinkd::jetstream
