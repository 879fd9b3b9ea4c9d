// What an outbox lake sink must have stored, read from its PostgreSQL: every row at or behind
// the sink's cursor (outbox_cursors `sink:<id>` for events, audit_sink_cursors `<id>` for audit)
// that is still in its table (outbox, audit_events; retention removes rows every sink has
// passed), by seq. Events the sink dead-lettered (outbox_dead_letters, sink = <id>) are accounted
// for without a row. Both go into verify's input under the sink's space, "outbox:<id>", as seq
// ranges computed by the database (gaps and islands), so memory does not grow with the outbox.
// A sink with no cursor yet has passed nothing: nothing is expected.
// Reads only: plain SELECTs in autocommit, no lock, no transaction that holds an xid.
// Threads: one thread at a time (the PgConn's rule).
#pragma once

#include <string>

#include "base/status.h"
#include "outbox/pg.h"
#include "verify/verify.h"

namespace sinkd::verify {

enum class OutboxTable { kEvents, kAudit };

Status AddOutboxRows(outbox::PgConn& conn, OutboxTable table, const std::string& sink_id,
                     VerifyInput& input);

}  // namespace sinkd::verify
