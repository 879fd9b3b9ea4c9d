#include "outbox/dead_letters.h"

namespace sinkd::outbox {

namespace {

Result<bool> TableExists(PgConn& conn, const char* table) {
  SINKD_ASSIGN_OR_RETURN(PgResult r, conn.Exec("SELECT to_regclass($1) IS NOT NULL", {table}));
  return r.Text(0, 0) == "t";
}

}  // namespace

bool OutboxDeadSelection::everything() const {
  return positions.empty() && sink.empty() && since.empty() && until.empty() && !unreplayed;
}

Result<std::vector<OutboxDeadLetter>> ListOutboxDeadLetters(PgConn& conn,
                                                            const OutboxDeadSelection& selection) {
  SINKD_ASSIGN_OR_RETURN(bool dead, TableExists(conn, kDeadLetterTable));
  if (!dead) {
    return Status::NotFound(std::string("no ") + kDeadLetterTable +
                            " table: run `sinkd outbox migrate`");
  }
  SINKD_ASSIGN_OR_RETURN(bool replays, TableExists(conn, kReplayTable));
  // Positions travel as one text array of "txid:seq" and are split in SQL, so a selection of any
  // size is one statement with fixed parameters.
  std::string positions = "{";
  for (const Cursor& c : selection.positions) {
    if (positions.size() > 1) positions += ',';
    positions += FormatCursor(c);
  }
  positions += "}";
  const std::string replay_join =
      replays ? "LEFT JOIN sinkd_dead_letter_replays r USING (sink, txid, seq)" : "";
  const std::string replay_seq = replays ? "r.outbox_seq" : "NULL::bigint";
  SINKD_ASSIGN_OR_RETURN(
      PgResult r,
      conn.Exec("SELECT d.sink, d.txid::text, d.seq, coalesce(d.event->>'id', ''), "
                "coalesce(d.event->>'type', ''), d.event::text, d.error, d.attempts, "
                "to_char(d.dead_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'), " +
                    replay_seq + " FROM outbox_dead_letters d " + replay_join +
                    // NULLIF: an unset bound is never cast, as ''::timestamptz is an error.
                    " WHERE ($1 = '' OR d.sink = $1)"
                    " AND d.dead_at >= coalesce(NULLIF($2, '')::timestamptz, '-infinity')"
                    " AND d.dead_at < coalesce(NULLIF($3, '')::timestamptz, 'infinity')"
                    " AND (cardinality($4::text[]) = 0"
                    " OR (d.txid::text || ':' || d.seq) = ANY ($4::text[]))" +
                    (selection.unreplayed && replays ? " AND r.outbox_seq IS NULL" : "") +
                    " ORDER BY d.sink, d.txid, d.seq",
                {selection.sink, selection.since, selection.until, positions}));
  std::vector<OutboxDeadLetter> out;
  for (int i = 0; i < r.rows(); ++i) {
    OutboxDeadLetter d;
    d.sink = std::string(r.Text(i, 0));
    SINKD_ASSIGN_OR_RETURN(d.position.txid, ParseXid8(r.Text(i, 1)));
    d.position.seq = r.Int(i, 2);
    d.event_id = std::string(r.Text(i, 3));
    d.type = std::string(r.Text(i, 4));
    d.event_json = std::string(r.Text(i, 5));
    d.error = std::string(r.Text(i, 6));
    d.attempts = static_cast<int>(r.Int(i, 7));
    d.dead_at = std::string(r.Text(i, 8));
    if (!r.IsNull(i, 9)) d.replayed_as = r.Int(i, 9);
    out.push_back(std::move(d));
  }
  return out;
}

Result<ReplayOutcome> ReplayOutboxDeadLetter(PgConn& conn, const Cursor& position) {
  const std::string where = "replay of outbox dead letter " + FormatCursor(position);
  SINKD_ASSIGN_OR_RETURN(bool replays, TableExists(conn, kReplayTable));
  if (!replays) {
    return Status::Refuse(where + ": no " + kReplayTable +
                          " table, which keeps a replay from running twice: run `sinkd outbox "
                          "migrate`");
  }
  const std::vector<std::string> key = {std::to_string(position.txid),
                                        std::to_string(position.seq)};
  SINKD_RETURN_IF_ERROR(conn.Exec("BEGIN").status());
  auto run = [&]() -> Result<ReplayOutcome> {
    // Claims the dead letters first: a concurrent replay of them waits here until this one
    // commits and then claims nothing.
    SINKD_ASSIGN_OR_RETURN(
        PgResult claim,
        conn.Exec("INSERT INTO sinkd_dead_letter_replays (sink, txid, seq, outbox_seq) "
                  "SELECT sink, txid, seq, 0 FROM outbox_dead_letters WHERE txid = $1::xid8 AND "
                  "seq = $2::bigint ON CONFLICT DO NOTHING",
                  key));
    if (claim.Affected() == 0) {
      SINKD_ASSIGN_OR_RETURN(
          PgResult before,
          conn.Exec("SELECT max(outbox_seq) FROM sinkd_dead_letter_replays WHERE txid = $1::xid8 "
                    "AND seq = $2::bigint",
                    key));
      if (before.IsNull(0, 0)) return Status::NotFound("no dead letter at this position");
      return ReplayOutcome{false, before.Int(0, 0)};
    }
    // One row however many sinks dead-lettered it: the new row reaches every sink anyway.
    SINKD_ASSIGN_OR_RETURN(
        PgResult inserted,
        conn.Exec("INSERT INTO outbox (topic, payload) SELECT coalesce(o.topic, d.event->>'type', "
                  "''), coalesce(o.payload, d.event - 'sequence') FROM (SELECT * FROM "
                  "outbox_dead_letters WHERE txid = $1::xid8 AND seq = $2::bigint ORDER BY sink "
                  "LIMIT 1) d LEFT JOIN outbox o ON o.txid = d.txid AND o.seq = d.seq "
                  "RETURNING seq",
                  key));
    if (inserted.rows() != 1) return Status::Internal("the claimed dead letter vanished");
    const int64_t seq = inserted.Int(0, 0);
    SINKD_RETURN_IF_ERROR(
        conn.Exec("UPDATE sinkd_dead_letter_replays SET outbox_seq = $3::bigint WHERE "
                  "txid = $1::xid8 AND seq = $2::bigint AND outbox_seq = 0",
                  {key[0], key[1], std::to_string(seq)})
            .status());
    return ReplayOutcome{true, seq};
  };
  Result<ReplayOutcome> outcome = run();
  if (!outcome.ok()) {
    (void)conn.Exec("ROLLBACK");
    return outcome.status().WithContext(where);
  }
  SINKD_RETURN_IF_ERROR(conn.Exec("COMMIT").status().WithContext(where));
  return outcome;
}

}  // namespace sinkd::outbox
