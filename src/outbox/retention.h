// Retention of the outbox: deletes rows only behind the lowest cursor of the `outbox` stream
// (every outbox_cursors row with stream 'outbox' counts, configured or not) and older than a
// minimum age, in bounded batches, so a sink that stopped delivering holds the outbox back and
// nothing a sink still needs can go. With no cursor at all, or a configured event sink that has
// no cursor yet (it starts at the origin), nothing is deleted. A cursor row of a sink that is no
// longer configured is reported (it holds retention back until someone deletes it).
// A row's age is its payload's `time` (the outbox has no timestamp column) against the database's
// clock; a row whose time cannot be read is kept and counted. Dead letters are never pruned.
// Each batch is one short autocommit DELETE, so retention never holds the horizon for long.
// Threads: one PgConn, one thread at a time.
#pragma once

#include <string>
#include <vector>

#include "base/log.h"
#include "base/result.h"
#include "outbox/clock.h"
#include "outbox/cursor.h"
#include "outbox/pg.h"

namespace sinkd::outbox {

struct RetentionOptions {
  std::chrono::nanoseconds min_age{};       // rows younger than this stay
  int batch = 5000;                         // rows examined (and at most deleted) per statement
  std::vector<std::string> configured_sinks;  // event sink ids of the configuration
};

struct RetentionReport {
  bool pruned = false;          // false: nothing could be deleted (no cursor, a missing one …)
  std::string reason;           // why not, when !pruned
  Cursor floor;                 // the lowest cursor
  std::string floor_name;       // whose it is (sink:<id>)
  int64_t deleted = 0;
  int64_t kept_young = 0;       // behind the floor but younger than min_age
  int64_t kept_undated = 0;     // behind the floor, time unreadable
  int batches = 0;
  std::vector<std::string> unconfigured;  // cursor rows of sinks no longer configured
  std::vector<std::string> missing;       // configured sinks without a cursor row
};

Result<RetentionReport> RetainOutbox(PgConn& conn, const RetentionOptions& options,
                                     Logger& log);

}  // namespace sinkd::outbox
