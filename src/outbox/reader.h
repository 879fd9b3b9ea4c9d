// Reads committed rows after a cursor, in (txid, seq) order, with the xmin fence:
//   WHERE o.txid < pg_snapshot_xmin(pg_current_snapshot()) AND (o.txid, o.seq) > ($1, $2)
//   ORDER BY o.txid, o.seq LIMIT $3
// Only transactions older than every transaction still running are read, so nothing can commit
// behind the cursor afterwards (a row that commits late was assigned its xid early, and that xid
// holds the horizon down until it ends). The horizon is computed in the same statement as the
// scan: computing it later would let rows commit between the two and be passed over.
// The SELECT assigns no transaction id, so reading never holds the horizon back for anyone. The
// pair is compared and ordered on the columns themselves (o.txid, o.seq), never on their text.
// Threads: functions over one PgConn, one thread at a time.
#pragma once

#include <vector>

#include "base/result.h"
#include "outbox/cursor.h"
#include "outbox/pg.h"
#include "sinks/event_sink.h"

namespace sinkd::outbox {

// Up to `limit` outbox events after `after`, oldest first.
Result<std::vector<sinks::Event>> ReadEvents(PgConn& conn, const Cursor& after, int limit);

// Up to `limit` audit_events rows after `after`, oldest first.
Result<std::vector<sinks::AuditRecord>> ReadAuditRecords(PgConn& conn, const Cursor& after,
                                                         int limit);

Cursor PositionOf(const sinks::Event& event);
Cursor PositionOf(const sinks::AuditRecord& record);

}  // namespace sinkd::outbox
