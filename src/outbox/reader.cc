#include "outbox/reader.h"

namespace sinkd::outbox {

namespace {

// Columns come back as text and are aliased *_text, so that no ORDER BY could ever bind to a
// text alias; the payload's fields are extracted by the server (jsonb ->>), which spares a JSON
// parse per event here. A payload that is not an object yields NULLs, i.e. empty fields.
constexpr char kReadEvents[] =
    "SELECT o.txid::text AS txid_text, o.seq, o.topic, o.payload->>'id', "
    "coalesce(o.payload->>'type', o.topic), o.payload->>'tenantId', o.payload->>'subject', "
    "o.payload->>'time', coalesce((o.payload->'data')::text, 'null') "
    "FROM outbox o "
    "WHERE o.txid < pg_snapshot_xmin(pg_current_snapshot()) "
    "AND (o.txid, o.seq) > ($1::xid8, $2::bigint) "
    "ORDER BY o.txid, o.seq LIMIT $3";

constexpr char kReadAudit[] =
    "SELECT a.txid::text AS txid_text, a.seq, a.id, a.tenant_id, "
    "(extract(epoch FROM a.time) * 1000000)::bigint AS time_micros, a.action, a.resource_type, "
    "a.resource_id, a.admission::text, a.details::text "
    "FROM audit_events a "
    "WHERE a.txid < pg_snapshot_xmin(pg_current_snapshot()) "
    "AND (a.txid, a.seq) > ($1::xid8, $2::bigint) "
    "ORDER BY a.txid, a.seq LIMIT $3";

std::vector<std::string> Params(const Cursor& after, int limit) {
  return {std::to_string(after.txid), std::to_string(after.seq), std::to_string(limit)};
}

}  // namespace

Cursor PositionOf(const sinks::Event& event) { return Cursor{event.txid, event.seq}; }
Cursor PositionOf(const sinks::AuditRecord& record) { return Cursor{record.txid, record.seq}; }

Result<std::vector<sinks::Event>> ReadEvents(PgConn& conn, const Cursor& after, int limit) {
  SINKD_ASSIGN_OR_RETURN(PgResult r, conn.Exec(kReadEvents, Params(after, limit)));
  std::vector<sinks::Event> events(static_cast<size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) {
    sinks::Event& e = events[static_cast<size_t>(i)];
    SINKD_ASSIGN_OR_RETURN(e.txid, ParseXid8(r.Text(i, 0)));
    e.seq = r.Int(i, 1);
    e.topic = r.Text(i, 2);
    e.id = r.Text(i, 3);
    e.type = r.Text(i, 4);
    e.tenant_id = r.Text(i, 5);
    e.subject = r.Text(i, 6);
    e.time = r.Text(i, 7);
    e.data_json = r.Text(i, 8);
    e.sequence = FormatCursor(PositionOf(e));
  }
  return events;
}

Result<std::vector<sinks::AuditRecord>> ReadAuditRecords(PgConn& conn, const Cursor& after,
                                                         int limit) {
  SINKD_ASSIGN_OR_RETURN(PgResult r, conn.Exec(kReadAudit, Params(after, limit)));
  std::vector<sinks::AuditRecord> records(static_cast<size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) {
    sinks::AuditRecord& a = records[static_cast<size_t>(i)];
    SINKD_ASSIGN_OR_RETURN(a.txid, ParseXid8(r.Text(i, 0)));
    a.seq = r.Int(i, 1);
    a.id = r.Text(i, 2);
    a.tenant_id = r.Text(i, 3);
    a.time_micros = r.Int(i, 4);
    a.action = r.Text(i, 5);
    a.resource_type = r.Text(i, 6);
    a.resource_id = r.Text(i, 7);
    a.admission_json = r.Text(i, 8);
    a.details_json = r.Text(i, 9);
    a.sequence = FormatCursor(PositionOf(a));
  }
  return records;
}

}  // namespace sinkd::outbox
