// ReadAhead reads a healthy sink's next batch on a second connection while the sink delivers the
// current one, so the database's work (scan, jsonb extraction, transfer) overlaps the sink's
// (Parquet encoding, fsync) instead of alternating with it. Reading early is as safe as reading
// late: a batch below the fence never changes, and whatever commits later lies after its end.
// A batch read ahead is used only if the worker asks for exactly the same (cursor, size); after
// a failure, a bisection or a takeover it is dropped and the worker reads for itself.
// Ownership: owns its connection and at most one read in flight (waited for on destruction).
// Threads: one thread at a time calls it; the read runs on a thread of its own.
#pragma once

#include <future>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "outbox/cursor.h"
#include "outbox/pg.h"
#include "sinks/event_sink.h"

namespace sinkd::outbox {

class ReadAhead {
 public:
  ReadAhead(std::string conninfo, std::string application_name)
      : conninfo_(std::move(conninfo)), application_name_(std::move(application_name)) {}
  ~ReadAhead() { Drop(); }
  ReadAhead(const ReadAhead&) = delete;
  ReadAhead& operator=(const ReadAhead&) = delete;

  // Starts reading up to `limit` events after `after`. REQUIRES: nothing in flight (Take/Drop).
  void Start(const Cursor& after, int limit);
  // The batch started for exactly (after, limit); nullopt when none was started for it or the
  // read failed (the caller then reads itself). Always waits for and clears the read in flight.
  std::optional<std::vector<sinks::Event>> Take(const Cursor& after, int limit);
  // Waits for a read in flight and throws its result away.
  void Drop();

 private:
  Result<std::vector<sinks::Event>> Read(Cursor after, int limit);

  const std::string conninfo_;
  const std::string application_name_;
  std::optional<PgConn> conn_;  // used only by the read in flight
  std::future<Result<std::vector<sinks::Event>>> pending_;
  Cursor after_;
  int limit_ = 0;
};

}  // namespace sinkd::outbox
