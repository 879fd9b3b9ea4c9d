// Dispatcher is `sinkd dispatch`: it delivers every committed outbox event to each event sink and
// every committed audit_events row to each audit sink, at least once, in (txid, seq) order, each
// sink with its own cursor, lease, connection and loop (a thread per sink), so a slow or failing
// sink never delays another. A further thread keeps the leases (renewing what it holds, taking
// what is free), so a slow Deliver keeps its lease, up to deliver_timeout.
// deliver_timeout (60 s): a Deliver/Write that has not returned by then is stuck. The lease
// thread logs an error and stops renewing that sink's lease (LeaseKeeper::Suspend), so another
// dispatcher takes the sink within deliver_timeout + lease ttl; this process does not take it
// back while the call hangs. A thread stuck in a sink cannot be killed in C++: if the call ever
// returns, its cursor and progress saves carry the old epoch and are refused once another holder
// took the lease (SinkStore's fence), and the lease is renewed or taken again as usual.
// Make() refuses before anything is read: a duplicate or empty sink id (INVALID_CONFIG), a missing
// outbox / audit_events / sinkd_leases table, a table that differs from its expected shape, or a
// sink whose Open() fails. Missing optional tables are logged once and degrade (schema.h).
// Tick() runs one pass over every sink in the calling thread (tests drive it with a ManualClock);
// Run() runs the loops until `stop` is set, then releases the leases so a successor need not wait.
// Shutdown waits for each loop to finish its pass, but not for a delivery past deliver_timeout:
// such a worker is abandoned (logged as an error) and its thread detached, parked in the call. The
// thread shares the worker (and its sink), so if the call ever returns it returns into valid
// memory, saves and logs nothing, and frees the worker as the thread ends.
// So Run() returns at most about deliver_timeout after `stop` (plus a database round trip).
// Tick() cannot watch deliver_timeout: its Deliver runs on the calling thread.
// Ownership: owns the sinks (each worker shared with its loop's thread). Borrows the clock and the logger (they must outlive it).
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
  Backoff backoff = kDeliveryBackoff;  // 1 s doubling to 5 min
  Duration deliver_timeout = std::chrono::seconds(60);  // a Deliver/Write past it is stuck
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
  std::vector<std::shared_ptr<Worker>> Workers() const;  // events, then audit
  void RunWorker(Worker& worker, bool audit);
  void RunLeases();
  // Suspends the lease of each sink stuck in a delivery past deliver_timeout, resumes it once
  // the call returned. Called by the lease thread before each refresh.
  void WatchDeliveries();
  bool LeaseConnection();
  // Sleeps `d`, waking early when `stop` is set.
  void Sleep(Duration d, const std::atomic<bool>& stop) const;

  DispatcherOptions options_;
  SchemaReport schema_;
  std::unique_ptr<LeaseKeeper> leases_;
  std::unique_ptr<PgConn> lease_conn_;
  std::atomic<bool> stop_{false};  // the workers' stop flag, set by Run when `stop` is
  std::atomic<bool> leases_stop_{false};  // the lease thread's, set once the workers are done
  // Shared with the loops' threads (see Run).
  std::vector<std::shared_ptr<Worker>> event_workers_;
  std::vector<std::shared_ptr<Worker>> audit_workers_;
  std::vector<bool> suspended_;  // per worker (events, then audit); the lease thread's only
};

}  // namespace sinkd::outbox
