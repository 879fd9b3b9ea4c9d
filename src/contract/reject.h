// What a wire message can turn into besides rows: a Reject names why one record can never be a row
// and carries the exact bytes it came from, so the dead letter holds what travelled on the stream.
// A Reject is a value (copy freely); the functions are pure. Threads: immutable, share freely.
// The blast radius is one event: a bad event inside a Batch is one Reject with its index in the
// Batch; a message that cannot be read at all (broken Batch framing, a bad audit Event) is one
// Reject with index -1 carrying the whole message.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace sinkd::contract {

// Which wire shape a stream carries. A property of the stream (GARM_LEDGER carries kBatch,
// GARM_AUDIT kEvent), passed in by the caller and never sniffed from the bytes.
enum class Envelope : uint8_t {
  kBatch,  // one garm.ledger.v1.Batch: many events, each a row or a reject of its own
  kEvent,  // one garm.ledger.v1.Event: one row or one reject
};

// Why a record never became a row. Frozen (new reasons are only added): the names reach
// dead-letter headers (Garm-Dead-Reason).
enum class RejectReason : uint8_t {
  kUnmarshal,       // not a readable garm.ledger.v1 message (incl. invalid UTF-8, bad Timestamp)
  kMissingEventId,  // event_id is empty: the lake deduplicates on it, so no row may lack it
  kMissingTime,     // time is absent: the row is never back-dated to the epoch or to ingest time
  // A readable event its flush had no room for: the batch already held the most partitions
  // (date and app) one flush may write (--max-partitions-per-flush, partition/partition_cap.h).
  kTooManyPartitions,
};

// "unmarshal", "missing_event_id", "missing_time", "too_many_partitions".
std::string_view ReasonName(RejectReason reason);
// "batch", "event".
std::string_view EnvelopeName(Envelope envelope);

// Appended to the error of a reject whose payload starts with '{' or '[': protojson is never
// accepted as a fallback, but the operator is told what the bytes look like.
inline constexpr std::string_view kJsonHint =
    " (the payload looks like JSON; this stream carries binary garm.ledger.v1 protobuf)";

struct Reject {
  RejectReason reason = RejectReason::kUnmarshal;
  std::string error;    // human-readable; its exact text is not a contract (the reason is)
  int index = -1;       // position of the event in its Batch, or -1 for the whole message
  std::string payload;  // the original bytes: the whole message (index -1) or the event's sub-slice

  // "<reason>: <error>" for a whole message, "event <index>: <reason>: <error>" for one event.
  std::string ToString() const;
};

// A Reject with kJsonHint appended to `error` when `payload` starts with '{' or '['.
Reject MakeReject(RejectReason reason, std::string error, int index, std::string_view payload);

}  // namespace sinkd::contract
