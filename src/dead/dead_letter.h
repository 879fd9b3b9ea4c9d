// DeadLetter is one record of GARM_SINK_DEAD as sinkd reads it back: where it sits in the dead
// stream, the headers jetstream/dead_letter_publisher.h wrote (reason, error, origin stream,
// subject, sequence, event index) and its payload. From it come the two things an operator does
// with a dead letter after a contract or producer fix: decode it again with the drain's decoder
// (Decode), and publish it back to its original subject (PlanReplay, jetstream publish in
// dead/reader.h).
// Replay payload: a whole message (event index -1) goes back as it came; one event of a ledger
// Batch (index >= 0) goes back as a Batch holding that event alone, since GARM_LEDGER carries
// Batches and the dead letter holds only the event's own bytes.
// Replay id: Nats-Msg-Id "sinkd-replay-<stream>-<sequence>-<index>", named after the record that
// failed rather than after the dead letter, so replaying the same records again within the origin
// stream's duplicate window (2 minutes, `sinkd provision`) stores each once, even when the record
// was dead-lettered twice (a batch redelivered past the dead stream's own window).
// Threads: values and pure functions.
#pragma once

#include <nats/nats.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "contract/reject.h"
#include "row/ledger_columns.h"
#include "row/row_buffer.h"

namespace sinkd::dead {

struct DeadLetter {
  uint64_t dead_sequence = 0;  // its sequence in GARM_SINK_DEAD
  int64_t time_ns = 0;         // when GARM_SINK_DEAD stored it, Unix nanoseconds
  std::string dead_subject;    // garm.v1.sink.dead.<origin>
  // Garm-Dead-* headers; empty (sequence 0, index -1) when absent.
  std::string reason;
  std::string error;
  std::string stream;
  std::string subject;
  uint64_t sequence = 0;
  int event_index = -1;
  // Every header as stored, in the order the server gave them (names sorted), for `dead show`.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string payload;
};

// Reads one stored message (its headers, subject and payload); `dead_sequence` and `time_ns` are
// the caller's (a consumer's metadata or a direct get's). Copies everything it keeps.
DeadLetter FromNatsMsg(natsMsg* msg, uint64_t dead_sequence, int64_t time_ns);

// The envelope the origin stream carries (GARM_LEDGER: Batch, GARM_AUDIT: Event); nullopt for
// another stream.
std::optional<contract::Envelope> OriginEnvelope(const std::string& stream);

// "sinkd-replay-<stream>-<sequence>-<index>".
std::string ReplayMsgId(const DeadLetter& letter);

struct ReplayPlan {
  std::string subject;   // the original subject
  std::string stream;    // the origin stream; the publish expects exactly it
  std::string msg_id;    // ReplayMsgId
  std::string payload;   // what goes back (see the file comment)
  bool wrapped = false;  // one ledger event wrapped as a Batch of one
  contract::Envelope envelope = contract::Envelope::kBatch;
};

// Refuse (naming the dead sequence and what is missing) when the dead letter lacks the headers a
// replay needs or names a stream sinkd does not drain.
Result<ReplayPlan> PlanReplay(const DeadLetter& letter);

// What the drain's decoder makes of the replay payload now: the rows it would write and the
// records it would dead-letter again.
struct DecodeAttempt {
  row::RowBuffer rows{row::kLedgerColumns};
  std::vector<contract::Reject> rejects;
  bool decodable() const { return rejects.empty(); }
};
// Refuse as PlanReplay.
Result<DecodeAttempt> Decode(const DeadLetter& letter);

// A ledger Batch holding `event` (one garm.ledger.v1.Event's bytes) as its only event.
std::string BatchOfOne(std::string_view event);

}  // namespace sinkd::dead
