// MessageAcks is a drain's Acknowledger (table/acknowledger.h): the JetStream messages of one
// batch, record i being the message held i-th, each kept alive by the drain's KeepAlive
// (drain/keep_alive.h) from its delivery until it is settled here. Every settle call releases the
// message from the KeepAlive first: a late InProgress after a nak would postpone its redelivery
// by a whole ack wait. Hold frees the message's payload (jetstream/message.h), which the batch has
// decoded already, keeping what settling needs (the ack address).
// Ownership: owns the messages; borrows the KeepAlive (must outlive it).
// Threads: one thread at a time (Hold on the drain's thread, the settle calls on the Settler's
// while the batch settles; the Settler hands the batch over between them).
#pragma once

#include <chrono>
#include <cstddef>
#include <vector>

#include "drain/keep_alive.h"
#include "jetstream/message.h"
#include "table/acknowledger.h"

namespace sinkd::drain {

class MessageAcks final : public table::Acknowledger {
 public:
  explicit MessageAcks(KeepAlive& keepalive) : keepalive_(keepalive) {}

  // Takes the message its batch has just held (as the next record), its payload freed.
  void Hold(jetstream::Message&& message);
  const jetstream::Message& message(size_t record) const { return messages_[record]; }

  Status Ack(size_t record) override;
  Status Term(size_t record) override;
  Status Nak(size_t record, std::chrono::milliseconds delay) override;
  // Releases every message still tracked (a cleared batch's are all settled already).
  void Clear() override;

 private:
  KeepAlive& keepalive_;
  std::vector<jetstream::Message> messages_;
};

}  // namespace sinkd::drain
