// SinkStore keeps what a sink's loop must remember across processes: its cursor (outbox_cursors
// row sink:<id>, or audit_sink_cursors row <id>), its dispatch progress (sinkd_sink_progress row
// sink:<id> / audit:<id>: the suspect run, the lone-failure count, the delivery in flight and the
// last error) and its dead letters (outbox_dead_letters).
// Cursor saves are forward-only: the upsert applies only when the new (txid, seq) is greater.
// Cursor saves and progress writes are both fenced by the lease epoch (they apply only while the
// writer still holds the lease row under that epoch, locked FOR SHARE so a takeover waits for
// them or voids them), so a holder whose lease was taken over (stuck in a delivery past
// deliver_timeout, or stalled) moves nothing, forward or back. A refused write is not an error:
// the statement changes nothing, and the worker learns of the takeover from its lease. A cursor and its progress
// are written by one statement; a dead letter and the cursor past it by one transaction, so a
// crash in between can only redo an insert that ON CONFLICT DO NOTHING makes idempotent.
// Tables that are missing degrade: no cursor table → the cursor is only in memory (Load gives the
// origin, Save does nothing); no progress table → failure counts are only in memory; no dead-letter
// table → DeadLetter only moves the cursor (the caller logs the event).
// Every statement is autocommit or one short transaction: no transaction that owns an xid is ever
// open while events are read or delivered.
// Threads: one thread at a time (the sink's loop).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "outbox/cursor.h"
#include "outbox/pg.h"
#include "sinks/event_sink.h"

namespace sinkd::outbox {

enum class SinkKind { kEvents, kAudit };

struct StoreTables {
  bool cursors = true;       // outbox_cursors / audit_sink_cursors exists
  bool progress = true;      // sinkd_sink_progress exists
  bool dead_letters = true;  // outbox_dead_letters exists (event sinks only)
};

// What an earlier holder left at a cursor. `in_flight` is true only from right before a Deliver
// until the save after it: then the delivery was of the next_size events after `at`, so a holder
// that finds it true knows the last one died inside that delivery.
struct Progress {
  Cursor at;
  int suspect = 0;
  int attempts = 0;
  int next_size = 0;
  bool in_flight = false;
  std::string last_error;  // the most recent failure; kept after later successes
};

// The lease a write must still hold to apply.
struct Fence {
  std::string lease;
  std::string holder;
  int64_t epoch = 0;
};

class SinkStore {
 public:
  SinkStore(SinkKind kind, std::string sink_id, StoreTables tables);

  // The origin when there is no stored cursor (a new sink) or no cursor table.
  Result<Cursor> LoadCursor(PgConn& conn) const;
  // nullopt when nothing is stored or there is no progress table.
  Result<std::optional<Progress>> LoadProgress(PgConn& conn) const;

  // Saves `cursor` forward-only together with `progress` (whose last_error, when empty, keeps the
  // stored one). OK also when the save changed nothing because the stored cursor is ahead.
  Status Save(PgConn& conn, const Cursor& cursor, const Progress& progress,
              const Fence& fence) const;
  // Inside the caller's transaction on `conn` (a sink's own commit: sinks::CursorSaver): checks
  // that the lease is still held under the fence's epoch, locking its row FOR SHARE until that
  // transaction ends (a takeover waits for it), Retry when it is not; then saves `cursor` forward
  // only. The cursor alone: the progress row is written by Save once the delivery returns (a
  // holder that finds the progress at another position than the cursor ignores it). No cursor
  // table: nothing (the cursor is only in memory).
  Status SaveCursorIn(PgConn& conn, const Cursor& cursor, const Fence& fence) const;
  // Records a failure: progress only, the cursor stays.
  Status SaveProgress(PgConn& conn, const Progress& progress, const Fence& fence) const;
  // In one transaction: `event` into outbox_dead_letters (if the table exists) and the cursor
  // moved to `cursor` with `progress`.
  Status DeadLetter(PgConn& conn, const sinks::Event& event, std::string_view error, int attempts,
                    const Cursor& cursor, const Progress& progress, const Fence& fence) const;
  // Clean stop: marks the progress as not in flight (belt and braces: a clean stop happens
  // between deliveries, whose saves already cleared it).
  Status Release(PgConn& conn, const Fence& fence) const;

  const std::string& sink_id() const { return sink_id_; }
  const StoreTables& tables() const { return tables_; }
  // "sink:<id>" (events) or "audit:<id>": the progress row's name.
  const std::string& progress_name() const { return progress_name_; }
  // The cursor row's key: "sink:<id>" in outbox_cursors, "<id>" in audit_sink_cursors.
  const std::string& cursor_key() const { return cursor_key_; }

 private:
  Status WriteProgress(PgConn& conn, const Cursor* cursor, const Progress& progress,
                       const Fence& fence) const;

  const SinkKind kind_;
  const std::string sink_id_;
  const StoreTables tables_;
  const std::string progress_name_;
  const std::string cursor_key_;
};

}  // namespace sinkd::outbox
