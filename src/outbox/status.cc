#include "outbox/status.h"

#include <fmt/format.h>

#include "base/log.h"
#include "outbox/schema.h"
#include "sinks/rfc3339.h"

namespace sinkd::outbox {

namespace {

struct Tables {
  bool outbox, cursors, dead_letters, audit, audit_cursors, leases, progress;
};

Result<Tables> Present(PgConn& conn) {
  SINKD_ASSIGN_OR_RETURN(
      PgResult r, conn.Exec("SELECT to_regclass('outbox') IS NOT NULL, to_regclass("
                            "'outbox_cursors') IS NOT NULL, to_regclass('outbox_dead_letters') IS "
                            "NOT NULL, to_regclass('audit_events') IS NOT NULL, to_regclass("
                            "'audit_sink_cursors') IS NOT NULL, to_regclass('sinkd_leases') IS NOT "
                            "NULL, to_regclass('sinkd_sink_progress') IS NOT NULL"));
  const auto t = [&](int c) { return r.Text(0, c) == "t"; };
  return Tables{t(0), t(1), t(2), t(3), t(4), t(5), t(6)};
}

Status ReadLag(PgConn& conn, bool events, SinkStatus& s) {
  const std::vector<std::string> at = {std::to_string(s.cursor.txid), std::to_string(s.cursor.seq)};
  const char* count_sql =
      events ? "SELECT count(*) FROM outbox o WHERE o.txid < pg_snapshot_xmin(pg_current_snapshot"
               "()) AND (o.txid, o.seq) > ($1::xid8, $2::bigint)"
             : "SELECT count(*) FROM audit_events a WHERE a.txid < pg_snapshot_xmin("
               "pg_current_snapshot()) AND (a.txid, a.seq) > ($1::xid8, $2::bigint)";
  SINKD_ASSIGN_OR_RETURN(PgResult count, conn.Exec(count_sql, at));
  s.lag_events = count.Int(0, 0);
  if (s.lag_events == 0) return Status::OK();
  // The outbox has no timestamp column: an event's age is its payload time against the server's.
  const char* oldest_sql =
      events ? "SELECT o.payload->>'time', (extract(epoch FROM now()) * 1000000)::bigint FROM "
               "outbox o WHERE (o.txid, o.seq) > ($1::xid8, $2::bigint) ORDER BY o.txid, o.seq "
               "LIMIT 1"
             : "SELECT to_char(a.time AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"'), "
               "(extract(epoch FROM now()) * 1000000)::bigint FROM audit_events a WHERE (a.txid, "
               "a.seq) > ($1::xid8, $2::bigint) ORDER BY a.txid, a.seq LIMIT 1";
  SINKD_ASSIGN_OR_RETURN(PgResult oldest, conn.Exec(oldest_sql, at));
  if (oldest.rows() == 1) {
    const auto t = sinks::ParseRfc3339Micros(oldest.Text(0, 0));
    if (t) s.lag_seconds = std::max(0.0, (oldest.Int(0, 1) - *t) / 1e6);
  }
  return Status::OK();
}

Status ReadOne(PgConn& conn, const Tables& t, bool events, SinkStatus& s) {
  const bool cursors = events ? t.cursors : t.audit_cursors;
  if (cursors) {
    SINKD_ASSIGN_OR_RETURN(
        PgResult r, conn.Exec(events ? "SELECT txid::text, seq FROM outbox_cursors WHERE name = $1"
                                     : "SELECT txid::text, seq FROM audit_sink_cursors WHERE "
                                       "sink_id = $1",
                              {events ? "sink:" + s.id : s.id}));
    if (r.rows() == 1) {
      s.has_cursor = true;
      SINKD_ASSIGN_OR_RETURN(s.cursor.txid, ParseXid8(r.Text(0, 0)));
      s.cursor.seq = r.Int(0, 1);
    }
  }
  if (events ? t.outbox : t.audit) SINKD_RETURN_IF_ERROR(ReadLag(conn, events, s));
  if (t.leases) {
    SINKD_ASSIGN_OR_RETURN(s.lease, ReadLease(conn, events ? EventLeaseName(s.id)
                                                           : AuditLeaseName(s.id)));
  }
  if (t.progress) {
    SINKD_ASSIGN_OR_RETURN(
        PgResult r, conn.Exec("SELECT last_error, coalesce(last_error_at::text, ''), attempts "
                              "FROM sinkd_sink_progress WHERE name = $1",
                              {(events ? "sink:" : "audit:") + s.id}));
    if (r.rows() == 1) {
      s.last_error = r.Text(0, 0);
      s.last_error_at = r.Text(0, 1);
      s.attempts = static_cast<int>(r.Int(0, 2));
    }
  }
  if (events && t.dead_letters) {
    SINKD_ASSIGN_OR_RETURN(
        PgResult r, conn.Exec("SELECT count(*) FROM outbox_dead_letters WHERE sink = $1", {s.id}));
    s.dead_letters = r.Int(0, 0);
  }
  return Status::OK();
}

std::string Label(std::string_view value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

}  // namespace

Result<std::vector<SinkStatus>> ReadStatus(PgConn& conn, const std::vector<std::string>& event_ids,
                                           const std::vector<std::string>& audit_ids) {
  SINKD_ASSIGN_OR_RETURN(Tables tables, Present(conn));
  std::vector<SinkStatus> out;
  for (const auto& [ids, events] : {std::pair{&event_ids, true}, std::pair{&audit_ids, false}}) {
    for (const std::string& id : *ids) {
      SinkStatus s;
      s.kind = events ? "events" : "audit";
      s.id = id;
      SINKD_RETURN_IF_ERROR(ReadOne(conn, tables, events, s).WithContext(s.kind + " sink " + id));
      out.push_back(std::move(s));
    }
  }
  return out;
}

std::string FormatStatus(const std::vector<SinkStatus>& sinks) {
  std::string out;
  for (const SinkStatus& s : sinks) {
    out += fmt::format("{} sink {}\n", s.kind, s.id);
    out += fmt::format("  cursor        {}\n",
                       s.has_cursor ? FormatCursor(s.cursor) : "none (starts at the origin)");
    out += fmt::format("  lag           {} event(s), oldest {:.1f} s\n", s.lag_events,
                       s.lag_seconds);
    if (s.lease) {
      out += fmt::format("  lease holder  {} (epoch {}, {} {})\n", s.lease->holder,
                         s.lease->epoch, s.lease->expired ? "expired" : "until",
                         s.lease->expires_at);
    } else {
      out += "  lease holder  none\n";
    }
    out += fmt::format("  last error    {}\n",
                       s.last_error.empty() ? "none" : s.last_error + " (at " + s.last_error_at +
                                                           ", failures in a row: " +
                                                           std::to_string(s.attempts) + ")");
    if (s.kind == "events") out += fmt::format("  dead letters  {}\n", s.dead_letters);
  }
  return out;
}

std::string StatusJson(const std::vector<SinkStatus>& sinks) {
  std::string out = "[";
  for (const SinkStatus& s : sinks) {
    if (out.size() > 1) out += ",";
    out += "{\"kind\":";
    AppendJsonString(out, s.kind);
    out += ",\"id\":";
    AppendJsonString(out, s.id);
    out += ",\"cursor\":";
    if (s.has_cursor) {
      AppendJsonString(out, FormatCursor(s.cursor));
    } else {
      out += "null";
    }
    out += fmt::format(",\"lag_events\":{},\"lag_seconds\":{:.3f},\"lease_holder\":",
                       s.lag_events, s.lag_seconds);
    if (s.lease && !s.lease->expired) {
      AppendJsonString(out, s.lease->holder);
    } else {
      out += "null";
    }
    out += fmt::format(",\"lease_epoch\":{},\"last_error\":", s.lease ? s.lease->epoch : 0);
    AppendJsonString(out, s.last_error);
    out += fmt::format(",\"failures_in_a_row\":{},\"dead_letters\":{}}}", s.attempts,
                       s.dead_letters);
  }
  return out + "]\n";
}

std::string RenderPrometheus(const std::vector<SinkStatus>& sinks,
                             const std::vector<SinkFigures>& live) {
  std::string out;
  const auto gauge = [&](const char* name, const char* help, auto value_of) {
    out += fmt::format("# HELP {} {}\n# TYPE {} gauge\n", name, help, name);
    for (const SinkStatus& s : sinks) {
      out += fmt::format("{}{{kind=\"{}\",sink=\"{}\"}} {}\n", name, s.kind, Label(s.id),
                         value_of(s));
    }
  };
  gauge("sinkd_outbox_lag_events", "committed rows after the sink's cursor",
        [](const SinkStatus& s) { return std::to_string(s.lag_events); });
  gauge("sinkd_outbox_lag_seconds", "age of the oldest row not yet delivered to the sink",
        [](const SinkStatus& s) { return fmt::format("{:.3f}", s.lag_seconds); });
  gauge("sinkd_outbox_cursor_seq", "seq of the sink's cursor (0: none yet)",
        [](const SinkStatus& s) { return std::to_string(s.cursor.seq); });
  gauge("sinkd_outbox_cursor_txid", "txid of the sink's cursor (0: none yet)",
        [](const SinkStatus& s) { return std::to_string(s.cursor.txid); });
  gauge("sinkd_outbox_dead_letters", "outbox_dead_letters rows of the sink",
        [](const SinkStatus& s) { return std::to_string(s.dead_letters); });
  gauge("sinkd_outbox_failures_in_a_row", "consecutive failed deliveries recorded for the sink",
        [](const SinkStatus& s) { return std::to_string(s.attempts); });
  gauge("sinkd_outbox_lease_epoch", "epoch of the sink's lease (0: never taken)",
        [](const SinkStatus& s) { return std::to_string(s.lease ? s.lease->epoch : 0); });
  out += "# HELP sinkd_outbox_lease_holder_info the process holding the sink's lease\n"
         "# TYPE sinkd_outbox_lease_holder_info gauge\n";
  for (const SinkStatus& s : sinks) {
    if (!s.lease || s.lease->expired) continue;
    out += fmt::format("sinkd_outbox_lease_holder_info{{kind=\"{}\",sink=\"{}\",holder=\"{}\"}} 1\n",
                       s.kind, Label(s.id), Label(s.lease->holder));
  }
  out += "# HELP sinkd_outbox_last_error_info the last delivery error recorded for the sink\n"
         "# TYPE sinkd_outbox_last_error_info gauge\n";
  for (const SinkStatus& s : sinks) {
    if (s.last_error.empty()) continue;
    out += fmt::format("sinkd_outbox_last_error_info{{kind=\"{}\",sink=\"{}\",error=\"{}\"}} 1\n",
                       s.kind, Label(s.id), Label(s.last_error.substr(0, 200)));
  }
  if (live.empty()) return out;
  const auto counter = [&](const char* name, const char* help, auto value_of) {
    out += fmt::format("# HELP {} {}\n# TYPE {} counter\n", name, help, name);
    for (const SinkFigures& f : live) {
      out += fmt::format("{}{{kind=\"{}\",sink=\"{}\"}} {}\n", name, f.kind, Label(f.id),
                         value_of(f));
    }
  };
  counter("sinkd_outbox_delivered_total", "rows this process delivered to the sink",
          [](const SinkFigures& f) { return f.delivered; });
  counter("sinkd_outbox_delivery_failures_total", "failed deliver/write calls of this process",
          [](const SinkFigures& f) { return f.failures; });
  counter("sinkd_outbox_dead_lettered_total", "events this process dead-lettered",
          [](const SinkFigures& f) { return f.dead_letters; });
  out += "# HELP sinkd_outbox_lease_held whether this process holds the sink's lease\n"
         "# TYPE sinkd_outbox_lease_held gauge\n";
  for (const SinkFigures& f : live) {
    out += fmt::format("sinkd_outbox_lease_held{{kind=\"{}\",sink=\"{}\"}} {}\n", f.kind,
                       Label(f.id), f.holder ? 1 : 0);
  }
  return out;
}

}  // namespace sinkd::outbox
