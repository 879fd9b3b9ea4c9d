// Dispatcher is `sinkd dispatch`: it delivers every committed outbox event to each event sink and
// every committed audit_events row to each audit sink, at least once, in (txid, seq) order, each
// sink with its own cursor, lease, connection and loop (a thread per sink), so a slow or failing
// sink never delays another. A further thread keeps the leases (renewing what it holds, taking
// what is free), so a slow Deliver never costs the lease.
// Make() refuses before anything is read: a duplicate or empty sink id (INVALID_CONFIG), a missing
// outbox / audit_events / sinkd_leases table, a table that differs from its expected shape, or a
// sink whose Open() fails. Missing optional tables are logged once and degrade (schema.h).
// Tick() runs one pass over every sink in the calling thread (tests drive it with a ManualClock);
// Run() runs the loops until `stop` is set, then releases the leases so a successor need not wait.
// Ownership: owns the sinks. Borrows the clock and the logger (they must outlive it).
// Threads: Tick() and Run() from one thread at a time (never both); Figures() from any thread.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "base/log.h"
#include "base/result.h"
#include "outbox/clock.h"
#include "outbox/delivery_plan.h"
#include "outbox/lease.h"
#include "outbox/schema.h"
#include "outbox/worker.h"
#include "sinks/event_sink.h"

namespace sinkd::outbox {

struct DispatcherOptions {
  std::string conninfo;  // libpq URI or key=value; never logged
  std::string holder;    // unique per process, e.g. <hostname>-<pid>-<random>; names the lease holder
  int batch_size = 32;   // worker.batchSize: a pass reads up to 4 × batch_size events per sink
  Duration poll_interval = std::chrono::milliseconds(500);  // between passes of a caught-up sink
  Duration audit_interval = std::chrono::seconds(5);        // between audit passes
  int audit_batch = kAuditBatchDefault;                     // records per AuditSink::Write
  LeaseOptions lease;
  BackoffPolicy backoff;  // 1 s doubling to 5 min
  const Clock* clock = nullptr;  // required
  Logger* logger = nullptr;      // required

  static constexpr int kAuditBatchDefault = 500;
};

struct EventSinkEntry {
  std::unique_ptr<sinks::EventSink> sink;
  int batch_size = 0;  // 0: DispatcherOptions::batch_size
};

class Dispatcher {
 public:
  static Result<std::unique_ptr<Dispatcher>> Make(
      DispatcherOptions options, std::vector<EventSinkEntry> event_sinks,
      std::vector<std::unique_ptr<sinks::AuditSink>> audit_sinks);
  ~Dispatcher();

  // One pass over every sink: refreshes the leases (taking free ones at once), then one Pass()
  // of each sink. Returns the first database error of the lease refresh, if any.
  Status Tick();
  // The loops, until `stop` becomes true; then every worker marks its progress released and the
  // leases are released.
  Status Run(const std::atomic<bool>& stop);
  // Clean handover after Tick()s: marks progress released and releases the leases.
  void Release();

  std::vector<SinkFigures> Figures() const;
  const SchemaReport& schema() const { return schema_; }
  const DispatcherOptions& options() const { return options_; }

 private:
  explicit Dispatcher(DispatcherOptions options);
  void RunWorker(Worker& worker, bool audit);
  void RunLeases();
  bool LeaseConnection();
  // Sleeps `d`, waking early when stopping.
  void Sleep(Duration d) const;

  DispatcherOptions options_;
  SchemaReport schema_;
  std::unique_ptr<LeaseKeeper> leases_;
  std::unique_ptr<PgConn> lease_conn_;
  std::atomic<bool> stop_{false};  // the workers' stop flag, set by Run when `stop` is
  std::vector<std::unique_ptr<Worker>> event_workers_;
  std::vector<std::unique_ptr<Worker>> audit_workers_;
};

}  // namespace sinkd::outbox
