// DeadLetterPublisher stores what a drain could not read on GARM_SINK_DEAD, synchronously: Publish
// returns OK only when the stream has acknowledged the record, and only then may its message be
// terminated. Subject garm.v1.sink.dead.<origin>; headers, exactly:
//   Garm-Dead-Reason       unmarshal | missing_event_id | missing_time | too_many_partitions
//   Garm-Dead-Error        the reject's error text
//   Garm-Dead-Stream       the origin stream (GARM_LEDGER, GARM_AUDIT)
//   Garm-Dead-Subject      the original subject
//   Garm-Dead-Sequence     the original stream sequence, decimal
//   Garm-Dead-Event-Index  the event's index in its Batch, decimal; -1 for a whole message
// and Nats-Msg-Id "<stream>-<sequence>-<index>" (GARM_LEDGER-42--1), so a batch retried within
// the stream's duplicate window (2 minutes) stores each dead letter once. The payload is the
// original message bytes, or the bad event's own bytes for one event of a Batch.
// Ownership: borrows the Connection. Threads: one thread at a time.
#pragma once

#include <cstdint>
#include <string>

#include "base/result.h"
#include "contract/reject.h"
#include "jetstream/connection.h"
#include "jetstream/streams.h"

namespace sinkd::jetstream {

struct DeadLetterRecord {
  const contract::Reject* reject = nullptr;  // borrowed for the call
  std::string_view stream;                   // origin stream
  std::string_view subject;                  // origin subject
  uint64_t sequence = 0;                     // origin stream sequence
};

// "<stream>-<sequence>-<index>".
std::string DeadLetterMsgId(std::string_view stream, uint64_t sequence, int index);

class DeadLetterPublisher {
 public:
  // `origin`: "ledger" or "audit" (the subject's last token).
  DeadLetterPublisher(Connection& connection, std::string origin);

  // Refuse unless GARM_SINK_DEAD exists and takes garm.v1.sink.dead.<origin>: a drain that could
  // not store a dead letter would have to either drop the record or stall on it.
  Status CheckReachable();
  // Stores one dead letter: true when stored now, false when the stream already held it (the
  // same Msg-Id within the duplicate window); Retry (naming the subject and sequence) when it was
  // not stored.
  Result<bool> Publish(const DeadLetterRecord& record);
  // GARM_SINK_DEAD's messages and bytes with its limits: how full it is. It is DiscardNew, so once
  // full every Publish fails and every batch holding a bad record is nak'd.
  Result<StreamState> State();

  const std::string& subject() const { return subject_; }

 private:
  Connection& connection_;
  std::string subject_;
};

}  // namespace sinkd::jetstream
