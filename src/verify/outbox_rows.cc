#include "verify/outbox_rows.h"

namespace sinkd::verify {

namespace {

Status AddRanges(outbox::PgConn& conn, const std::string& rows_sql,
                 const std::vector<std::string>& params, std::vector<lake::SequenceRange>& out) {
  // Consecutive seqs share seq - row_number(): one output row per island.
  const std::string sql = "SELECT min(seq), max(seq) FROM (SELECT seq, seq - row_number() OVER "
                          "(ORDER BY seq) AS island FROM (" + rows_sql +
                          ") rows) islands GROUP BY island ORDER BY 1";
  SINKD_ASSIGN_OR_RETURN(outbox::PgResult r, conn.Exec(sql, params));
  for (int i = 0; i < r.rows(); ++i) {
    const int64_t first = r.Int(i, 0), last = r.Int(i, 1);
    if (first < 0 || last < first) continue;
    out.push_back({static_cast<uint64_t>(first), static_cast<uint64_t>(last)});
  }
  return Status::OK();
}

}  // namespace

Status AddOutboxRows(outbox::PgConn& conn, OutboxTable table, const std::string& sink_id,
                     VerifyInput& input) {
  const bool events = table == OutboxTable::kEvents;
  SINKD_ASSIGN_OR_RETURN(
      outbox::PgResult cursor,
      conn.Exec(events ? "SELECT txid::text, seq FROM outbox_cursors WHERE name = $1"
                       : "SELECT txid::text, seq FROM audit_sink_cursors WHERE sink_id = $1",
                {events ? "sink:" + sink_id : sink_id}));
  const std::string space = "outbox:" + sink_id;
  std::vector<lake::SequenceRange>& expected = input.expected[space];
  if (cursor.rows() == 0) return Status::OK();
  const std::vector<std::string> position = {std::string(cursor.Text(0, 0)),
                                             std::to_string(cursor.Int(0, 1))};
  const std::string rows = events
      ? "SELECT seq FROM outbox WHERE (txid, seq) <= ($1::xid8, $2::bigint)"
      : "SELECT seq FROM audit_events WHERE (txid, seq) <= ($1::xid8, $2::bigint)";
  SINKD_RETURN_IF_ERROR(AddRanges(conn, rows, position, expected)
                            .WithContext("read the rows sink " + sink_id + " has passed"));
  if (events) {
    Status dead = AddRanges(conn, "SELECT seq FROM outbox_dead_letters WHERE sink = $1",
                            {sink_id}, input.dead_letters[space]);
    // No dead-letter table: the sink could only move its cursor past a dead event (sink_store.h).
    if (!dead.ok() && !dead.IsNotFound()) return dead.WithContext("read sink " + sink_id + "'s dead letters");
  }
  return Status::OK();
}

}  // namespace sinkd::verify
