// What `sinkd outbox status` prints and the dispatcher's metrics endpoint serves, per sink: its
// cursor, its lag (committed rows after the cursor below the horizon, and the age of the oldest
// of them), its lease holder, its last error and failure count (sinkd_sink_progress), and for
// event sinks its dead-letter count. Read from the database, so `status` works from any machine,
// whether or not a dispatcher runs there.
// Threads: functions over one PgConn, one thread at a time; the report is a value.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "outbox/cursor.h"
#include "outbox/lease.h"
#include "outbox/pg.h"
#include "outbox/worker.h"

namespace sinkd::outbox {

struct SinkStatus {
  std::string kind;  // "events" or "audit"
  std::string id;
  bool has_cursor = false;       // false: a new sink, it starts at the origin
  Cursor cursor;
  int64_t lag_events = 0;        // committed rows after the cursor, below the horizon
  double lag_seconds = 0;        // age of the oldest of them (0 when none)
  std::optional<LeaseRow> lease;
  std::string last_error;        // "" when none recorded
  std::string last_error_at;
  int attempts = 0;              // consecutive failures recorded by the holder
  int64_t dead_letters = 0;      // outbox_dead_letters rows of this sink (events only)
};

// Reads the status of the given sinks (ids from the configuration). Tables that do not exist
// read as empty (no cursor, no lease, no dead letters).
Result<std::vector<SinkStatus>> ReadStatus(PgConn& conn, const std::vector<std::string>& event_ids,
                                           const std::vector<std::string>& audit_ids);

// One block of lines per sink, for a terminal.
std::string FormatStatus(const std::vector<SinkStatus>& sinks);
// The same as a JSON array.
std::string StatusJson(const std::vector<SinkStatus>& sinks);

// The Prometheus text exposition (0.0.4) of the status, plus this process's live figures
// (deliveries, failures, whether it holds each lease) when `live` is given.
std::string RenderPrometheus(const std::vector<SinkStatus>& sinks,
                             const std::vector<SinkFigures>& live);

}  // namespace sinkd::outbox
