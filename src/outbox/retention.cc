#include "outbox/retention.h"

#include <set>

#include "outbox/schema.h"
#include "sinks/rfc3339.h"

namespace sinkd::outbox {

namespace {

Result<bool> HasTable(PgConn& conn, const char* table) {
  SINKD_ASSIGN_OR_RETURN(PgResult r, conn.Exec("SELECT to_regclass($1) IS NOT NULL", {table}));
  return r.Text(0, 0) == "t";
}

// Reads the cursors and decides the floor; leaves report.pruned false with a reason when no
// row may go.
Status FindFloor(PgConn& conn, const RetentionOptions& options, RetentionReport& report,
                 Logger& log) {
  SINKD_ASSIGN_OR_RETURN(bool has_cursors, HasTable(conn, kCursorTable));
  if (!has_cursors) {
    report.reason = "no outbox_cursors table: cursors live in memory, so nothing is pruned";
    return Status::OK();
  }
  SINKD_ASSIGN_OR_RETURN(PgResult rows,
                         conn.Exec("SELECT name, txid::text AS txid_text, seq FROM outbox_cursors "
                                   "WHERE stream = 'outbox' ORDER BY txid, seq"));
  std::set<std::string> names;
  for (int i = 0; i < rows.rows(); ++i) names.insert(std::string(rows.Text(i, 0)));
  std::set<std::string> configured;
  for (const std::string& id : options.configured_sinks) {
    configured.insert("sink:" + id);
    if (!names.count("sink:" + id)) report.missing.push_back(id);
  }
  for (const std::string& name : names) {
    if (configured.count(name)) continue;
    report.unconfigured.push_back(name);
    log.Warn("outbox retain: a cursor of a sink that is no longer configured holds retention "
             "back; delete its row from outbox_cursors if the sink is gone",
             {{"cursor", name}});
  }
  if (rows.rows() == 0) {
    report.reason = "no outbox cursor: nothing is pruned until a sink has delivered";
    return Status::OK();
  }
  if (!report.missing.empty()) {
    report.reason = "event sink \"" + report.missing.front() +
                    "\" has no cursor yet: it starts at the origin, so everything is kept";
    return Status::OK();
  }
  // Ordered by the columns (o.txid, not the text): the first row is the lowest cursor.
  SINKD_ASSIGN_OR_RETURN(report.floor.txid, ParseXid8(rows.Text(0, 1)));
  report.floor.seq = rows.Int(0, 2);
  report.floor_name = rows.Text(0, 0);
  report.pruned = true;
  return Status::OK();
}

}  // namespace

Result<RetentionReport> RetainOutbox(PgConn& conn, const RetentionOptions& options, Logger& log) {
  RetentionReport report;
  SINKD_RETURN_IF_ERROR(FindFloor(conn, options, report, log));
  if (!report.pruned) return report;
  SINKD_ASSIGN_OR_RETURN(
      PgResult clock,
      conn.Exec("SELECT (extract(epoch FROM now()) * 1000000)::bigint - $1::bigint",
                {std::to_string(options.min_age.count() / 1000)}));
  const int64_t cutoff_micros = clock.Int(0, 0);
  Cursor after;  // scan position: rows at or before it were examined
  while (true) {
    SINKD_ASSIGN_OR_RETURN(
        PgResult rows,
        conn.Exec("SELECT o.txid::text AS txid_text, o.seq, o.payload->>'time' FROM outbox o "
                  "WHERE (o.txid, o.seq) <= ($1::xid8, $2::bigint) "
                  "AND (o.txid, o.seq) > ($3::xid8, $4::bigint) "
                  "ORDER BY o.txid, o.seq LIMIT $5",
                  {std::to_string(report.floor.txid), std::to_string(report.floor.seq),
                   std::to_string(after.txid), std::to_string(after.seq),
                   std::to_string(options.batch)}));
    if (rows.rows() == 0) break;
    std::string doomed = "{";
    for (int i = 0; i < rows.rows(); ++i) {
      const auto micros = sinks::ParseRfc3339Micros(rows.Text(i, 2));
      if (!micros) {
        ++report.kept_undated;
      } else if (*micros >= cutoff_micros) {
        ++report.kept_young;
      } else {
        if (doomed.size() > 1) doomed += ',';
        doomed += rows.Text(i, 1);
      }
    }
    doomed += "}";
    SINKD_ASSIGN_OR_RETURN(after.txid, ParseXid8(rows.Text(rows.rows() - 1, 0)));
    after.seq = rows.Int(rows.rows() - 1, 1);
    if (doomed.size() > 2) {
      SINKD_ASSIGN_OR_RETURN(PgResult del,
                             conn.Exec("DELETE FROM outbox WHERE seq = ANY($1::bigint[])", {doomed}));
      report.deleted += del.Affected();
      ++report.batches;
    }
    if (rows.rows() < options.batch) break;
  }
  return report;
}

}  // namespace sinkd::outbox
