#include "outbox/sink_store.h"

namespace sinkd::outbox {

namespace {

// Applies only while the writer holds the lease under its epoch, locked FOR SHARE so that a
// takeover waits for the write or voids it. `n` is the number of the lease's parameter; the
// holder's and the epoch's follow it.
std::string LeaseFence(int n) {
  return "WHERE EXISTS (SELECT 1 FROM sinkd_leases l WHERE l.name = $" + std::to_string(n) +
         " AND l.holder = $" + std::to_string(n + 1) + " AND l.epoch = $" +
         std::to_string(n + 2) + "::bigint FOR SHARE) ";
}

// $1 txid, $2 seq, $3 key, the lease from $fence on. Applies only when the new position is
// greater (forward-only), and only under the writer's epoch: a holder whose lease was taken over
// (it was stuck in a delivery, or stalled) saves nothing, not even forward, because the new
// holder may be bisecting below that position.
std::string SaveCursorSql(SinkKind kind, int fence) {
  if (kind == SinkKind::kEvents) {
    return "INSERT INTO outbox_cursors AS c (name, stream, txid, seq, updated_at) "
           "SELECT $3, 'outbox', $1::xid8, $2::bigint, now() " + LeaseFence(fence) +
           "ON CONFLICT (name) DO UPDATE SET txid = EXCLUDED.txid, seq = EXCLUDED.seq, "
           "updated_at = EXCLUDED.updated_at WHERE (c.txid, c.seq) < (EXCLUDED.txid, EXCLUDED.seq)";
  }
  return "INSERT INTO audit_sink_cursors AS c (sink_id, txid, seq) "
         "SELECT $3, $1::xid8, $2::bigint " + LeaseFence(fence) +
         "ON CONFLICT (sink_id) DO UPDATE SET txid = EXCLUDED.txid, seq = EXCLUDED.seq "
         "WHERE (c.txid, c.seq) < (EXCLUDED.txid, EXCLUDED.seq)";
}

// $1 txid, $2 seq, $4 name, $5 suspect, $6 attempts, $7 next_size, $8 in_flight, $9 last_error,
// $10 lease, $11 holder, $12 epoch. Never moves the progress row back either.
constexpr char kWriteProgress[] =
    "INSERT INTO sinkd_sink_progress AS p (name, txid, seq, suspect, attempts, next_size, "
    "in_flight, last_error, last_error_at, updated_at) "
    "SELECT $4, $1::xid8, $2::bigint, $5::int, $6::int, $7::int, $8::bool, $9::text, "
    "CASE WHEN $9::text = '' THEN NULL ELSE now() END, now() "
    "WHERE EXISTS (SELECT 1 FROM sinkd_leases l WHERE l.name = $10 AND l.holder = $11 "
    "AND l.epoch = $12::bigint FOR SHARE) "
    "ON CONFLICT (name) DO UPDATE SET txid = EXCLUDED.txid, seq = EXCLUDED.seq, "
    "suspect = EXCLUDED.suspect, attempts = EXCLUDED.attempts, next_size = EXCLUDED.next_size, "
    "in_flight = EXCLUDED.in_flight, "
    "last_error = CASE WHEN EXCLUDED.last_error = '' THEN p.last_error "
    "ELSE EXCLUDED.last_error END, "
    "last_error_at = CASE WHEN EXCLUDED.last_error = '' THEN p.last_error_at "
    "ELSE EXCLUDED.last_error_at END, updated_at = EXCLUDED.updated_at "
    "WHERE (p.txid, p.seq) <= (EXCLUDED.txid, EXCLUDED.seq)";

std::vector<std::string> CursorParams(const Cursor& c, const std::string& key) {
  return {std::to_string(c.txid), std::to_string(c.seq), key};
}

}  // namespace

SinkStore::SinkStore(SinkKind kind, std::string sink_id, StoreTables tables)
    : kind_(kind),
      sink_id_(std::move(sink_id)),
      tables_(StoreTables{tables.cursors, tables.progress,
                          kind == SinkKind::kEvents && tables.dead_letters}),
      progress_name_((kind == SinkKind::kEvents ? "sink:" : "audit:") + sink_id_),
      cursor_key_(kind == SinkKind::kEvents ? "sink:" + sink_id_ : sink_id_) {
}

Result<Cursor> SinkStore::LoadCursor(PgConn& conn) const {
  if (!tables_.cursors) return Cursor{};
  SINKD_ASSIGN_OR_RETURN(
      PgResult r, conn.Exec(kind_ == SinkKind::kEvents
                                ? "SELECT txid::text, seq FROM outbox_cursors WHERE name = $1"
                                : "SELECT txid::text, seq FROM audit_sink_cursors WHERE sink_id = $1",
                            {cursor_key_}));
  if (r.rows() == 0) return Cursor{};
  Cursor c;
  SINKD_ASSIGN_OR_RETURN(c.txid, ParseXid8(r.Text(0, 0)));
  c.seq = r.Int(0, 1);
  return c;
}

Result<std::optional<Progress>> SinkStore::LoadProgress(PgConn& conn) const {
  if (!tables_.progress) return std::optional<Progress>();
  SINKD_ASSIGN_OR_RETURN(
      PgResult r, conn.Exec("SELECT txid::text, seq, suspect, attempts, next_size, in_flight, "
                            "last_error FROM sinkd_sink_progress WHERE name = $1",
                            {progress_name_}));
  if (r.rows() == 0) return std::optional<Progress>();
  Progress p;
  SINKD_ASSIGN_OR_RETURN(p.at.txid, ParseXid8(r.Text(0, 0)));
  p.at.seq = r.Int(0, 1);
  p.suspect = static_cast<int>(r.Int(0, 2));
  p.attempts = static_cast<int>(r.Int(0, 3));
  p.next_size = static_cast<int>(r.Int(0, 4));
  p.in_flight = r.Text(0, 5) == "t";
  p.last_error = r.Text(0, 6);
  return std::optional<Progress>(std::move(p));
}

Status SinkStore::WriteProgress(PgConn& conn, const Cursor* cursor, const Progress& progress,
                                const Fence& fence) const {
  const Cursor& at = cursor ? *cursor : progress.at;
  std::vector<std::string> params = CursorParams(at, cursor_key_);
  if (!tables_.progress) {
    if (cursor == nullptr || !tables_.cursors) return Status::OK();
    params.insert(params.end(), {fence.lease, fence.holder, std::to_string(fence.epoch)});
    return conn.Exec(SaveCursorSql(kind_, 4), params).status();
  }
  params.insert(params.end(),
                {progress_name_, std::to_string(progress.suspect),
                 std::to_string(progress.attempts), std::to_string(progress.next_size),
                 progress.in_flight ? "true" : "false", progress.last_error, fence.lease,
                 fence.holder, std::to_string(fence.epoch)});
  std::string sql;
  if (cursor != nullptr && tables_.cursors) {
    sql = "WITH c AS (" + SaveCursorSql(kind_, 10) + " RETURNING 1) " + kWriteProgress;
  } else {
    // $3 (the cursor key) is unused here; name its type so the server accepts it.
    sql = std::string("WITH k AS (SELECT $3::text) ") + kWriteProgress;
  }
  return conn.Exec(sql, params).status();
}

Status SinkStore::Save(PgConn& conn, const Cursor& cursor, const Progress& progress,
                       const Fence& fence) const {
  if (!tables_.cursors) return Status::OK();  // in memory: a new holder starts at the origin
  return WriteProgress(conn, &cursor, progress, fence).WithContext("save cursor " + progress_name_);
}

Status SinkStore::SaveCursorIn(PgConn& conn, const Cursor& cursor, const Fence& fence) const {
  if (!tables_.cursors) return Status::OK();
  SINKD_ASSIGN_OR_RETURN(
      PgResult held,
      conn.Exec("SELECT 1 FROM sinkd_leases l WHERE l.name = $1 AND l.holder = $2 AND "
                "l.epoch = $3::bigint FOR SHARE",
                {fence.lease, fence.holder, std::to_string(fence.epoch)}));
  if (held.rows() != 1) {
    return Status::Retry("save cursor " + progress_name_ + ": lease " + fence.lease +
                         " is no longer held under epoch " + std::to_string(fence.epoch));
  }
  std::vector<std::string> params = CursorParams(cursor, cursor_key_);
  params.insert(params.end(), {fence.lease, fence.holder, std::to_string(fence.epoch)});
  return conn.Exec(SaveCursorSql(kind_, 4), params)
      .status()
      .WithContext("save cursor " + progress_name_);
}

Status SinkStore::SaveProgress(PgConn& conn, const Progress& progress, const Fence& fence) const {
  if (!tables_.cursors) return Status::OK();
  return WriteProgress(conn, nullptr, progress, fence)
      .WithContext("save progress " + progress_name_);
}

Status SinkStore::DeadLetter(PgConn& conn, const sinks::Event& event, std::string_view error,
                             int attempts, const Cursor& cursor, const Progress& progress,
                             const Fence& fence) const {
  SINKD_RETURN_IF_ERROR(conn.Exec("BEGIN").status());
  Status s;
  if (tables_.dead_letters) {
    s = conn.Exec("INSERT INTO outbox_dead_letters (sink, txid, seq, event, error, attempts) "
                  "VALUES ($1, $2::xid8, $3::bigint, $4::jsonb, $5, $6::int) "
                  "ON CONFLICT DO NOTHING",
                  {sink_id_, std::to_string(event.txid), std::to_string(event.seq),
                   sinks::EventJson(event), std::string(error), std::to_string(attempts)})
            .status();
  }
  if (s.ok()) s = Save(conn, cursor, progress, fence);
  if (s.ok()) s = conn.Exec("COMMIT").status();
  if (!s.ok()) {
    (void)conn.Exec("ROLLBACK");
    return s.WithContext("dead-letter " + event.sequence + " for sink " + sink_id_);
  }
  return Status::OK();
}

Status SinkStore::Release(PgConn& conn, const Fence& fence) const {
  if (!tables_.progress || !tables_.cursors) return Status::OK();
  return conn
      .Exec("UPDATE sinkd_sink_progress SET in_flight = false, updated_at = now() "
            "WHERE name = $1 AND EXISTS (SELECT 1 FROM sinkd_leases l WHERE l.name = $2 AND "
            "l.holder = $3 AND l.epoch = $4::bigint)",
            {progress_name_, fence.lease, fence.holder, std::to_string(fence.epoch)})
      .status();
}

}  // namespace sinkd::outbox
