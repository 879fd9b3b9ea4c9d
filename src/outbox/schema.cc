#include "outbox/schema.h"

#include <string_view>

namespace sinkd::outbox {

namespace {

struct ColumnShape {
  std::string_view name;
  std::string_view type;  // as format_type() prints it
};

struct TableShape {
  std::string_view name;
  std::vector<ColumnShape> columns;
  std::string_view create;      // CREATE TABLE … (only run when the table is absent)
  bool position_index = false;  // reads need an index led by (txid, seq)
};

// The DDL of the Sinks document, with now() where the document writes compute_now() (a function
// of Better Compute's schema that sinkd cannot assume). The (txid, seq) index serves the read
// `(txid, seq) > cursor ORDER BY txid, seq` as one index range scan.
std::vector<TableShape> Shapes() {
  return {
      {kOutboxTable,
       {{"seq", "bigint"}, {"txid", "xid8"}, {"topic", "text"}, {"payload", "jsonb"}},
       "CREATE TABLE outbox (seq bigserial PRIMARY KEY, txid xid8 NOT NULL DEFAULT "
       "pg_current_xact_id(), topic text NOT NULL, payload jsonb);"
       "CREATE INDEX outbox_txid_seq ON outbox (txid, seq)",
       true},
      {kCursorTable,
       {{"name", "text"}, {"stream", "text"}, {"txid", "xid8"}, {"seq", "bigint"},
        {"updated_at", "timestamp with time zone"}},
       "CREATE TABLE outbox_cursors (name text PRIMARY KEY, stream text NOT NULL DEFAULT "
       "'outbox', txid xid8 NOT NULL, seq bigint NOT NULL, updated_at timestamptz NOT NULL "
       "DEFAULT now())"},
      {kDeadLetterTable,
       {{"sink", "text"}, {"txid", "xid8"}, {"seq", "bigint"}, {"event", "jsonb"},
        {"error", "text"}, {"attempts", "integer"}, {"dead_at", "timestamp with time zone"}},
       "CREATE TABLE outbox_dead_letters (sink text NOT NULL, txid xid8 NOT NULL, seq bigint NOT "
       "NULL, event jsonb NOT NULL, error text NOT NULL, attempts integer NOT NULL CHECK "
       "(attempts > 0), dead_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (sink, txid, "
       "seq))"},
      // sinkd's own: which dead letters `sinkd outbox dead replay` re-inserted, and as what.
      {kReplayTable,
       {{"sink", "text"}, {"txid", "xid8"}, {"seq", "bigint"}, {"outbox_seq", "bigint"},
        {"replayed_at", "timestamp with time zone"}},
       "CREATE TABLE sinkd_dead_letter_replays (sink text NOT NULL, txid xid8 NOT NULL, seq "
       "bigint NOT NULL, outbox_seq bigint NOT NULL, replayed_at timestamptz NOT NULL DEFAULT "
       "now(), PRIMARY KEY (sink, txid, seq))"},
      {kAuditTable,
       {{"seq", "bigint"}, {"txid", "xid8"}, {"id", "text"}, {"tenant_id", "text"},
        {"time", "timestamp with time zone"}, {"action", "text"}, {"resource_type", "text"},
        {"resource_id", "text"}, {"admission", "jsonb"}, {"details", "jsonb"}},
       "CREATE TABLE audit_events (seq bigserial PRIMARY KEY, txid xid8 NOT NULL DEFAULT "
       "pg_current_xact_id(), id text NOT NULL, tenant_id text NOT NULL, time timestamptz NOT "
       "NULL, action text NOT NULL, resource_type text NOT NULL, resource_id text NOT NULL, "
       "admission jsonb, details jsonb);"
       "CREATE INDEX audit_events_txid_seq ON audit_events (txid, seq)",
       true},
      {kAuditCursorTable,
       {{"sink_id", "text"}, {"txid", "xid8"}, {"seq", "bigint"}},
       "CREATE TABLE audit_sink_cursors (sink_id text PRIMARY KEY, txid xid8 NOT NULL, seq "
       "bigint NOT NULL)"},
      {kLeaseTable,
       {{"name", "text"}, {"holder", "text"}, {"epoch", "bigint"},
        {"expires_at", "timestamp with time zone"}, {"acquired_at", "timestamp with time zone"}},
       "CREATE TABLE sinkd_leases (name text PRIMARY KEY, holder text NOT NULL, epoch bigint NOT "
       "NULL, expires_at timestamptz NOT NULL, acquired_at timestamptz NOT NULL)"},
      {kProgressTable,
       {{"name", "text"}, {"txid", "xid8"}, {"seq", "bigint"}, {"suspect", "integer"},
        {"attempts", "integer"}, {"next_size", "integer"}, {"in_flight", "boolean"},
        {"last_error", "text"}, {"last_error_at", "timestamp with time zone"},
        {"updated_at", "timestamp with time zone"}},
       "CREATE TABLE sinkd_sink_progress (name text PRIMARY KEY, txid xid8 NOT NULL, seq bigint "
       "NOT NULL, suspect integer NOT NULL DEFAULT 0, attempts integer NOT NULL DEFAULT 0, "
       "next_size integer NOT NULL DEFAULT 0, in_flight boolean NOT NULL DEFAULT false, "
       "last_error text NOT NULL DEFAULT '', last_error_at timestamptz, updated_at timestamptz "
       "NOT NULL DEFAULT now())"},
  };
}

Result<TableCheck> CheckTable(PgConn& conn, const TableShape& shape) {
  TableCheck check;
  check.table = std::string(shape.name);
  SINKD_ASSIGN_OR_RETURN(
      PgResult cols,
      conn.Exec("SELECT a.attname, format_type(a.atttypid, a.atttypmod) FROM pg_attribute a "
                "WHERE a.attrelid = to_regclass($1) AND a.attnum > 0 AND NOT a.attisdropped",
                {check.table}));
  check.present = cols.rows() > 0;
  if (!check.present) return check;
  for (const ColumnShape& want : shape.columns) {
    bool found = false;
    for (int r = 0; r < cols.rows(); ++r) {
      if (cols.Text(r, 0) != want.name) continue;
      found = true;
      if (cols.Text(r, 1) != want.type) {
        check.differences.push_back("column " + std::string(want.name) + " is " +
                                    std::string(cols.Text(r, 1)) + ", want " +
                                    std::string(want.type));
      }
    }
    if (!found) check.differences.push_back("column " + std::string(want.name) + " missing");
  }
  if (shape.position_index && check.differences.empty()) {
    SINKD_ASSIGN_OR_RETURN(
        PgResult idx,
        conn.Exec("SELECT 1 FROM pg_index i JOIN pg_attribute t ON t.attrelid = i.indrelid AND "
                  "t.attnum = i.indkey[0] JOIN pg_attribute s ON s.attrelid = i.indrelid AND "
                  "s.attnum = i.indkey[1] WHERE i.indrelid = to_regclass($1) AND t.attname = "
                  "'txid' AND s.attname = 'seq'",
                  {check.table}));
    if (idx.rows() == 0) {
      check.warnings.push_back("no index led by (txid, seq): every read scans the table; run "
                               "CREATE INDEX CONCURRENTLY " + check.table + "_txid_seq ON " +
                               check.table + " (txid, seq)");
    }
  }
  return check;
}

}  // namespace

const TableCheck* SchemaReport::Find(const std::string& table) const {
  for (const TableCheck& t : tables) {
    if (t.table == table) return &t;
  }
  return nullptr;
}

bool SchemaReport::Usable(const std::string& table) const {
  const TableCheck* t = Find(table);
  return t && t->present && t->differences.empty();
}

std::vector<std::string> SchemaReport::Differences() const {
  std::vector<std::string> out;
  for (const TableCheck& t : tables) {
    for (const std::string& d : t.differences) out.push_back(t.table + ": " + d);
  }
  return out;
}

Result<SchemaReport> InspectSchema(PgConn& conn) {
  SchemaReport report;
  for (const TableShape& shape : Shapes()) {
    SINKD_ASSIGN_OR_RETURN(TableCheck check, CheckTable(conn, shape));
    report.tables.push_back(std::move(check));
  }
  return report;
}

Result<SchemaReport> MigrateSchema(PgConn& conn) {
  // One transaction, so two migrates racing either both see a table or one of them fails on the
  // unique catalog entry and can simply be run again; a half-created set never stays behind.
  SINKD_RETURN_IF_ERROR(conn.Exec("BEGIN").status());
  std::vector<std::string> created;
  for (const TableShape& shape : Shapes()) {
    auto check = CheckTable(conn, shape);
    Status s = check.status();
    if (s.ok() && !check->present) {
      // PQexecParams runs one statement at a time: split the table's DDL on ';'.
      std::string_view ddl = shape.create;
      while (s.ok() && !ddl.empty()) {
        const size_t end = ddl.find(';');
        s = conn.Exec(ddl.substr(0, end)).status();
        ddl = end == std::string_view::npos ? std::string_view() : ddl.substr(end + 1);
      }
      created.emplace_back(shape.name);
    }
    if (!s.ok()) {
      (void)conn.Exec("ROLLBACK");
      return s.WithContext("migrate " + std::string(shape.name));
    }
  }
  SINKD_RETURN_IF_ERROR(conn.Exec("COMMIT").status());
  SINKD_ASSIGN_OR_RETURN(SchemaReport report, InspectSchema(conn));
  report.created = std::move(created);
  return report;
}

}  // namespace sinkd::outbox
