// The event sinks' dead letters (outbox_dead_letters) read back and replayed: `sinkd outbox dead
// list|replay`. A replay of a position (txid, seq) re-inserts its event into the outbox as one new
// row, in one transaction with a row of sinkd_dead_letter_replays per dead letter at that
// position (one per sink that dead-lettered it) naming the new outbox seq. Their primary key
// (sink, txid, seq) is what makes a replay idempotent: a dead letter is replayed at most once,
// however often or however concurrently the command runs (a second transaction waits on the
// first's keys and then finds them taken). The dead letters themselves stay, so `outbox status`
// and `lake verify` still account for the original position.
// What is re-inserted: the original outbox row's topic and payload while the outbox still holds
// it; after retention pruned it, the dead letter's event without its `sequence` (the payload's
// fields as delivered), under the topic its `type` names. The new row has a new (txid, seq), so
// every event sink receives it again, not only the one that dead-lettered it: sinks deduplicate
// on the event id (sinks/event_sink.h).
// Threads: functions over one PgConn, one thread at a time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "outbox/cursor.h"
#include "outbox/pg.h"
#include "outbox/schema.h"

namespace sinkd::outbox {

struct OutboxDeadLetter {
  std::string sink;
  Cursor position;       // the event's original (txid, seq)
  std::string event_id;  // event->>'id'
  std::string type;      // event->>'type'
  std::string event_json;
  std::string error;
  int attempts = 0;
  std::string dead_at;   // timestamptz as text, UTC (2026-12-03 10:00:00.123+00)
  // Set when the dead letter was replayed: the outbox seq it became.
  std::optional<int64_t> replayed_as;
};

struct OutboxDeadSelection {
  std::vector<Cursor> positions;  // when not empty, only these
  std::string sink;               // "" = every sink
  std::string since;              // dead_at >= this timestamptz text; "" = no bound
  std::string until;              // dead_at < this; "" = no bound
  bool unreplayed = false;        // only those never replayed
  bool everything() const;
};

// In (sink, txid, seq) order. NotFound when outbox_dead_letters does not exist; without
// sinkd_dead_letter_replays every dead letter reads as not replayed.
Result<std::vector<OutboxDeadLetter>> ListOutboxDeadLetters(PgConn& conn,
                                                            const OutboxDeadSelection& selection);

struct ReplayOutcome {
  bool replayed = false;  // false: it had been replayed before (outbox_seq is that replay's)
  int64_t outbox_seq = 0;
};

// Replays the dead letters at `position` as the file comment says, in one transaction. Refuse
// naming `outbox migrate` when sinkd_dead_letter_replays is missing; NotFound when no dead letter
// is at that position.
Result<ReplayOutcome> ReplayOutboxDeadLetter(PgConn& conn, const Cursor& position);

}  // namespace sinkd::outbox
