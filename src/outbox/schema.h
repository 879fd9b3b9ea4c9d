// The tables the dispatcher reads and writes, as the Sinks document defines them, plus sinkd's own
// three (leases, per-sink progress, and the dead letters `outbox dead replay` re-inserted).
// `sinkd outbox migrate` creates what is missing and checks what exists: a table that differs from
// the expected shape (a missing column, another type) is reported and never altered, as
// `provision` does for streams, because the tables belong to the application whose transactions
// write them.
// Optional tables degrade as the document says: without outbox_cursors / audit_sink_cursors the
// cursors live in memory; without outbox_dead_letters a poison event is only logged; without
// sinkd_sink_progress failure counts live in memory; without sinkd_dead_letter_replays dead letters
// cannot be replayed (outbox/dead_letters.h). outbox, audit_events (when audit sinks are
// configured) and sinkd_leases are required.
// Threads: functions over one PgConn, one thread at a time.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "outbox/pg.h"

namespace sinkd::outbox {

// Frozen table names: they are the application's and the document's contract.
inline constexpr char kOutboxTable[] = "outbox";
inline constexpr char kCursorTable[] = "outbox_cursors";
inline constexpr char kDeadLetterTable[] = "outbox_dead_letters";
inline constexpr char kAuditTable[] = "audit_events";
inline constexpr char kAuditCursorTable[] = "audit_sink_cursors";
inline constexpr char kLeaseTable[] = "sinkd_leases";
inline constexpr char kProgressTable[] = "sinkd_sink_progress";
inline constexpr char kReplayTable[] = "sinkd_dead_letter_replays";

struct TableCheck {
  std::string table;
  bool present = false;
  std::vector<std::string> differences;  // "column txid is text, want xid8", "column seq missing"
  std::vector<std::string> warnings;     // "no index on (txid, seq): CREATE INDEX CONCURRENTLY …"
};

struct SchemaReport {
  std::vector<TableCheck> tables;  // every table above, in creation order
  std::vector<std::string> created;

  const TableCheck* Find(const std::string& table) const;
  // Present and shaped as expected.
  bool Usable(const std::string& table) const;
  // "table: difference" for every difference of every table.
  std::vector<std::string> Differences() const;
};

// Reads the catalog only; changes nothing.
Result<SchemaReport> InspectSchema(PgConn& conn);

// Creates every missing table (and, with a new table, its (txid, seq) index) in one transaction,
// then inspects. Idempotent. Existing tables are only checked: their differences are in the report
// (the caller refuses on them), never repaired.
Result<SchemaReport> MigrateSchema(PgConn& conn);

}  // namespace sinkd::outbox
