// The last step of landing a batch (place Parts → commit → acknowledge, table/commit.h): what the
// batch's source is told about each of its records once the batch has landed or failed. A batch
// (drain/batch.h; an outbox delivery: sinks/lake_sink.cc) holds its records and one
// Acknowledger; whoever reads the records gives the implementation, so that the batch, and the
// one code path that lands it (table/land.h), know nothing of where the records came from:
//   a drain      drain::MessageAcks: each record is a JetStream message, kept alive until it is
//                acked, nak'd or terminated (drain/keep_alive.h);
//   `import`     backfill's RunProgress: a recording has no one to tell; it counts what landed;
//   an outbox    its cursor: the landing's acks are counted, the delivery returns OK only once
//   lake sink    every record was acked, and the dispatcher then saves the cursor (or the commit
//                saved it in its transaction: sinks/lake_sink.h).
// Records are named by their index in the batch (Batch::held), in the order they were held.
// Contract: Ack only once the record's rows are placed and committed; Term only once every dead
// letter it produced is stored; each record is settled at most once (Ack, Term or Nak).
// Threads: one thread at a time (the settling thread; the drain's thread when it naks what it
// holds while no batch settles).
#pragma once

#include <chrono>
#include <cstddef>

#include "base/status.h"

namespace sinkd::table {

class Acknowledger {
 public:
  virtual ~Acknowledger() = default;
  // The record's rows are the table's: never deliver it again.
  virtual Status Ack(size_t record) = 0;
  // The record gave only unreadable events, each stored as a dead letter: never deliver it again.
  virtual Status Term(size_t record) = 0;
  // The record did not land: deliver it again, no sooner than `delay` from now.
  virtual Status Nak(size_t record, std::chrono::milliseconds delay) = 0;
  // Forgets every record (the batch was cleared, each record settled or handed on).
  virtual void Clear() = 0;
};

// Tells no one anything: for a batch whose source needs no word (tests, a recording).
class NoAcknowledger final : public Acknowledger {
 public:
  Status Ack(size_t) override { return Status::OK(); }
  Status Term(size_t) override { return Status::OK(); }
  Status Nak(size_t, std::chrono::milliseconds) override { return Status::OK(); }
  void Clear() override {}
};

}  // namespace sinkd::table
