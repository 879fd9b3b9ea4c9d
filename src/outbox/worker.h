// A Worker is one sink's loop body: Pass() does one pass (read after the cursor, deliver, save)
// under the sink's lease, and reports what the caller should do next. Each sink has its own
// Worker, PgConn, cursor and lease, so a slow or failing sink never delays another.
// This base holds what event and audit workers share: the connection (reconnected lazily after
// a failure), the lease check (a new epoch reloads the cursor), and the figures that status and
// metrics read.
// A Deliver (or Write) that never returns cannot be interrupted in C++: the worker says when its
// current delivery started (DeliveringSince), so the dispatcher can give up the sink's lease
// past deliver_timeout, and on shutdown Abandon() a worker still stuck in one. An abandoned
// worker touches nothing outside itself when (if ever) the call returns: Pass() returns
// kAbandoned at once, without saving, logging or reading the clock; the process keeps it parked.
// Threads: Pass() and Release() from one thread at a time (the sink's loop); Figures(),
// retry_at(), DeliveringSince(), Abandon() and finished() are safe from any thread (they read
// under a mutex or an atomic).
#pragma once

#include <atomic>
#include <mutex>
#include <optional>
#include <string>

#include "base/log.h"
#include "outbox/clock.h"
#include "outbox/cursor.h"
#include "outbox/delivery_plan.h"
#include "outbox/lease.h"
#include "outbox/pg.h"
#include "outbox/sink_store.h"
#include "sinks/event_sink.h"

namespace sinkd::outbox {

// Borrowed by every worker; all must outlive it.
struct WorkerContext {
  const Clock* clock = nullptr;
  Logger* logger = nullptr;
  LeaseKeeper* leases = nullptr;
  Backoff backoff = kDeliveryBackoff;
  std::string conninfo;
  const std::atomic<bool>* stop = nullptr;  // set when the process is stopping
};

enum class PassResult {
  kNotHolder,  // another process holds the lease: try again after acquire_every
  kIdle,       // nothing to read: wait the poll interval
  kWaiting,    // backing off until retry_at()
  kDelivered,  // delivered a short batch: caught up, wait the poll interval
  kMore,       // delivered a full batch or is bisecting: run the next pass at once
  kError,      // the database failed: wait a second and reconnect
  kAbandoned,  // the dispatcher gave up on this worker during its delivery: return, touch nothing
};

// A snapshot of one sink for `outbox status` and the metrics endpoint.
struct SinkFigures {
  std::string kind;  // "events" or "audit"
  std::string id;
  std::string lease;
  Cursor cursor;
  bool holder = false;     // this process holds the lease
  int64_t epoch = 0;
  uint64_t delivered = 0;  // events/records delivered by this process
  uint64_t failures = 0;   // failed deliver/write calls
  uint64_t dead_letters = 0;
  int attempts = 0;        // consecutive lone failures (events) or failed writes (audit)
  int suspect = 0;
  double retry_in_seconds = 0;
  std::string last_error;
};

// A Worker is its sink's CursorSaver (sinks/event_sink.h): a sink that commits to the outbox's
// own database saves the cursor in its transaction through it, fenced by this worker's lease.
class Worker : public sinks::CursorSaver {
 public:
  Worker(std::string kind, std::string id, std::string lease, SinkStore store,
         WorkerContext context);
  virtual ~Worker() = default;
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  virtual PassResult Pass() = 0;
  // Clean stop: marks the progress as released (the lease itself is released by the caller).
  void Release();

  SinkFigures Figures() const;
  TimePoint retry_at() const;
  // When the Deliver/Write in progress started; nullopt between deliveries.
  std::optional<TimePoint> DeliveringSince() const;
  // True when a delivery is in progress: the worker is then abandoned (see above). False when
  // none is, which leaves the worker as it was.
  bool Abandon();
  // Set by the sink's loop as the last thing it does (see Dispatcher::Run).
  void MarkFinished() { finished_.store(true); }
  bool finished() const { return finished_.load(); }
  const std::string& lease() const { return lease_; }
  const std::string& id() const { return id_; }

  // sinks::CursorSaver, from the sink's thread inside Deliver/Write.
  const std::string& conninfo() const override { return context_.conninfo; }
  Status SaveCursorIn(PgConn& conn, uint64_t txid, int64_t seq) override;

 protected:
  // Connects if needed. False (and the error logged once per outage) when it cannot.
  bool Connected();
  // The lease epoch when held; on a new epoch calls TakeOver first. 0 when not held or the
  // takeover failed.
  int64_t HolderEpoch();
  // Loads the cursor (and whatever else) for a new epoch.
  virtual Status TakeOver(int64_t epoch) = 0;
  // Logs a database failure, drops a broken connection and returns kError.
  PassResult DatabaseError(const Status& status);
  Fence fence() const { return Fence{lease_, context_.leases->holder(), epoch_}; }
  bool stopping() const { return context_.stop && context_.stop->load(); }
  TimePoint Now() const { return context_.clock->Now(); }
  Logger& log() { return *context_.logger; }
  // Publishes the current figures (call after every change); `attempts` counts consecutive
  // failures, `suspect` the suspect run (events only).
  void Publish(int attempts, int suspect);
  // Around every call into the sink. EndDelivery() false: the worker was abandoned meanwhile,
  // and the caller must return kAbandoned without touching anything else.
  void BeginDelivery();
  bool EndDelivery();

  const std::string kind_;
  const std::string id_;
  const std::string lease_;
  SinkStore store_;
  WorkerContext context_;
  std::optional<PgConn> conn_;
  int64_t epoch_ = 0;
  Cursor cursor_;
  TimePoint retry_at_{};
  uint64_t delivered_ = 0;
  uint64_t failures_ = 0;
  uint64_t dead_letters_ = 0;
  std::string last_error_;
  bool save_pending_ = false;  // a save failed: retried before the next delivery

 private:
  bool connect_error_logged_ = false;
  std::atomic<bool> finished_{false};
  mutable std::mutex delivery_mu_;
  std::optional<TimePoint> delivering_since_;  // guarded by delivery_mu_
  bool abandoned_ = false;                     // guarded by delivery_mu_
  mutable std::mutex mu_;
  SinkFigures figures_;            // guarded by mu_
  TimePoint published_retry_at_{};  // guarded by mu_
};

}  // namespace sinkd::outbox
