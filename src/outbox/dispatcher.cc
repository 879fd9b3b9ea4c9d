#include "outbox/dispatcher.h"

#include <set>
#include <thread>

#include "outbox/audit_worker.h"
#include "outbox/event_worker.h"

namespace sinkd::outbox {

namespace {

// Ids name cursors: two sinks with one id would share a cursor, so they are refused.
Status CheckIds(const std::vector<std::string>& ids, const char* kind) {
  std::set<std::string> seen;
  for (const std::string& id : ids) {
    if (id.empty()) {
      return Status::Refuse(std::string("INVALID_CONFIG: an ") + kind +
                            " sink has an empty id; every sink needs a non-empty id, which "
                            "names its cursor");
    }
    if (!seen.insert(id).second) {
      return Status::Refuse(std::string("INVALID_CONFIG: two ") + kind + " sinks have the id \"" +
                            id + "\"; ids must be unique, since the id names the sink's cursor");
    }
  }
  return Status::OK();
}

Status CheckSchema(const SchemaReport& schema, bool events, bool audit, Logger& log) {
  std::vector<std::string> used = {kLeaseTable, kProgressTable};
  if (events) used.insert(used.end(), {kOutboxTable, kCursorTable, kDeadLetterTable});
  if (audit) used.insert(used.end(), {kAuditTable, kAuditCursorTable});
  std::string differences;
  for (const std::string& table : used) {
    const TableCheck* t = schema.Find(table);
    for (const std::string& d : t->differences) differences += "; " + table + ": " + d;
    for (const std::string& w : t->warnings) log.Warn("outbox: " + table + ": " + w);
  }
  if (!differences.empty()) {
    return Status::Refuse("the database's tables differ from what dispatch expects" +
                          differences + "; sinkd never alters them: fix them or use another "
                          "schema (see `sinkd outbox migrate`)");
  }
  const auto require = [&](const char* table) -> Status {
    if (schema.Find(table)->present) return Status::OK();
    return Status::Refuse(std::string("no table ") + table +
                          " in the database: run `sinkd outbox migrate --config <file>` first");
  };
  SINKD_RETURN_IF_ERROR(require(kLeaseTable));
  if (events) SINKD_RETURN_IF_ERROR(require(kOutboxTable));
  if (audit) SINKD_RETURN_IF_ERROR(require(kAuditTable));
  if (events && !schema.Find(kCursorTable)->present) {
    log.Warn("outbox: no outbox_cursors table: cursors live in memory, and a new lease holder "
             "starts every event sink at the origin");
  }
  if (events && !schema.Find(kDeadLetterTable)->present) {
    log.Warn("outbox: no outbox_dead_letters table: a poison event is only logged, and the "
             "cursor still moves past it");
  }
  if (audit && !schema.Find(kAuditCursorTable)->present) {
    log.Warn("outbox: no audit_sink_cursors table: audit cursors live in memory, and a new "
             "lease holder starts every audit sink at the origin");
  }
  if (!schema.Find(kProgressTable)->present) {
    log.Warn("outbox: no sinkd_sink_progress table: failure counts live in memory, so a "
             "crash-looping dispatcher may never dead-letter a poison event");
  }
  return Status::OK();
}

}  // namespace

Dispatcher::Dispatcher(DispatcherOptions options) : options_(std::move(options)) {}

Dispatcher::~Dispatcher() = default;

Result<std::unique_ptr<Dispatcher>> Dispatcher::Make(
    DispatcherOptions options, std::vector<EventSinkEntry> event_sinks,
    std::vector<std::unique_ptr<sinks::AuditSink>> audit_sinks) {
  if (options.clock == nullptr || options.logger == nullptr || options.holder.empty()) {
    return Status::Internal("Dispatcher::Make needs a clock, a logger and a holder name");
  }
  if (options.batch_size < 1 || options.audit_batch < 1) {
    return Status::Refuse("INVALID_CONFIG: batch sizes must be at least 1");
  }
  if (options.deliver_timeout <= Duration::zero()) {
    return Status::Refuse("INVALID_CONFIG: deliver_timeout must be more than 0");
  }
  SINKD_RETURN_IF_ERROR(options.backoff.Validate("INVALID_CONFIG: the delivery back-off"));
  std::vector<std::string> ids;
  for (const EventSinkEntry& e : event_sinks) ids.push_back(e.sink->id());
  SINKD_RETURN_IF_ERROR(CheckIds(ids, "event"));
  ids.clear();
  for (const auto& a : audit_sinks) ids.push_back(a->id());
  SINKD_RETURN_IF_ERROR(CheckIds(ids, "audit"));

  std::unique_ptr<Dispatcher> d(new Dispatcher(std::move(options)));
  const DispatcherOptions& o = d->options_;
  SINKD_ASSIGN_OR_RETURN(PgConn conn, PgConn::Connect(o.conninfo, "sinkd-dispatch"));
  SINKD_ASSIGN_OR_RETURN(d->schema_, InspectSchema(conn));
  SINKD_RETURN_IF_ERROR(
      CheckSchema(d->schema_, !event_sinks.empty(), !audit_sinks.empty(), *o.logger));
  d->lease_conn_ = std::make_unique<PgConn>(std::move(conn));
  d->leases_ = std::make_unique<LeaseKeeper>(o.holder, o.lease, *o.clock);

  StoreTables tables;
  tables.cursors = d->schema_.Find(kCursorTable)->present;
  tables.dead_letters = d->schema_.Find(kDeadLetterTable)->present;
  tables.progress = d->schema_.Find(kProgressTable)->present;
  StoreTables audit_tables = tables;
  audit_tables.cursors = d->schema_.Find(kAuditTable)->present &&
                         d->schema_.Find(kAuditCursorTable)->present;
  WorkerContext context{o.clock, o.logger, d->leases_.get(), o.backoff, o.conninfo, &d->stop_};

  for (EventSinkEntry& e : event_sinks) {
    const int batch = e.batch_size > 0 ? e.batch_size : o.batch_size;
    auto worker = std::make_unique<EventWorker>(std::move(e.sink), 4 * batch, tables, context);
    worker->sink().Bind(*worker);
    SINKD_RETURN_IF_ERROR(worker->sink().Open().WithContext("open event sink " + worker->id()));
    d->leases_->Want(worker->lease());
    d->event_workers_.push_back(std::move(worker));
  }
  for (auto& a : audit_sinks) {
    auto worker = std::make_unique<AuditWorker>(std::move(a), o.audit_batch, audit_tables, context);
    worker->sink().Bind(*worker);
    SINKD_RETURN_IF_ERROR(worker->sink().Open().WithContext("open audit sink " + worker->id()));
    d->leases_->Want(worker->lease());
    d->audit_workers_.push_back(std::move(worker));
  }
  d->suspended_.assign(d->event_workers_.size() + d->audit_workers_.size(), false);
  return d;
}

bool Dispatcher::LeaseConnection() {
  if (lease_conn_ && lease_conn_->healthy()) return true;
  lease_conn_.reset();
  auto conn = PgConn::Connect(options_.conninfo, "sinkd-dispatch-leases");
  if (!conn.ok()) return false;
  lease_conn_ = std::make_unique<PgConn>(std::move(conn).value());
  return true;
}

Status Dispatcher::Tick() {
  Status status;
  if (!LeaseConnection()) {
    status = Status::Retry("postgres: cannot connect for the leases");
  } else {
    status = leases_->Refresh(*lease_conn_, /*force=*/true);
  }
  for (auto& w : event_workers_) (void)w->Pass();
  for (auto& w : audit_workers_) (void)w->Pass();
  return status;
}

void Dispatcher::Release() {
  for (auto& w : event_workers_) w->Release();
  for (auto& w : audit_workers_) w->Release();
  if (LeaseConnection()) leases_->ReleaseAll(*lease_conn_);
}

void Dispatcher::Sleep(Duration d, const std::atomic<bool>& stop) const {
  // Real time, not the injected clock: Run() is the production loop; tests of timing use Tick().
  const auto until = std::chrono::steady_clock::now() + d;
  while (!stop.load()) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= until) return;
    std::this_thread::sleep_for(std::min<Duration>(until - now, std::chrono::milliseconds(50)));
  }
}

std::vector<std::shared_ptr<Worker>> Dispatcher::Workers() const {
  std::vector<std::shared_ptr<Worker>> all(event_workers_.begin(), event_workers_.end());
  all.insert(all.end(), audit_workers_.begin(), audit_workers_.end());
  return all;
}

void Dispatcher::RunWorker(Worker& worker, bool audit) {
  using std::chrono::seconds;
  const Duration caught_up = audit ? options_.audit_interval : options_.poll_interval;
  while (!stop_.load()) {
    switch (worker.Pass()) {
      // Run() gave up on this worker while it delivered, and may be gone: touch nothing.
      case PassResult::kAbandoned: return;
      case PassResult::kMore: break;
      case PassResult::kIdle:
      case PassResult::kDelivered: Sleep(caught_up, stop_); break;
      case PassResult::kWaiting: {
        const Duration left = worker.retry_at() - options_.clock->Now();
        Sleep(std::clamp<Duration>(left, Duration::zero(), seconds(1)), stop_);
        break;
      }
      case PassResult::kNotHolder: Sleep(options_.lease.acquire_every, stop_); break;
      case PassResult::kError: Sleep(seconds(1), stop_); break;
    }
  }
  worker.Release();
  worker.MarkFinished();  // the last touch: Run() may join and go on at once
}

void Dispatcher::WatchDeliveries() {
  const TimePoint now = options_.clock->Now();
  const std::vector<std::shared_ptr<Worker>> workers = Workers();
  for (size_t i = 0; i < workers.size(); ++i) {
    Worker& w = *workers[i];
    const std::optional<TimePoint> since = w.DeliveringSince();
    const bool stuck = since && now - *since >= options_.deliver_timeout;
    if (stuck && !suspended_[i]) {
      leases_->Suspend(w.lease());
      suspended_[i] = true;
      options_.logger->Error(
          "outbox: a delivery has not returned within deliver_timeout; this process stops "
          "renewing the sink's lease so that another dispatcher can take the sink",
          {{"sink", w.id()}, {"lease", w.lease()},
           {"deliver_timeout_seconds",
            std::chrono::duration<double>(options_.deliver_timeout).count()},
           {"delivering_seconds", std::chrono::duration<double>(now - *since).count()}});
    } else if (!stuck && suspended_[i]) {
      leases_->Resume(w.lease());
      suspended_[i] = false;
      options_.logger->Warn("outbox: the stuck delivery returned; the sink's lease is renewed if "
                            "nobody took it meanwhile, else taken again when free",
                            {{"sink", w.id()}, {"lease", w.lease()}});
    }
  }
}

void Dispatcher::RunLeases() {
  const Duration step = std::min(options_.lease.renew_every, options_.lease.acquire_every) / 2;
  bool logged = false;
  while (!leases_stop_.load()) {
    WatchDeliveries();
    Status s = LeaseConnection() ? leases_->Refresh(*lease_conn_)
                                 : Status::Retry("postgres: cannot connect for the leases");
    if (!s.ok() && !logged) {
      options_.logger->Warn("outbox: lease refresh failed; retrying", {{"error", s.message()}});
    }
    logged = !s.ok();
    Sleep(step, leases_stop_);
  }
}

Status Dispatcher::Run(const std::atomic<bool>& stop) {
  stop_ = false;
  leases_stop_ = false;
  std::thread lease_thread([this] { RunLeases(); });
  const std::vector<std::shared_ptr<Worker>> workers = Workers();
  std::vector<std::thread> threads;
  for (size_t i = 0; i < workers.size(); ++i) {
    const bool audit = i >= event_workers_.size();
    // The thread shares its worker: an abandoned one lives until its call returns, if ever.
    threads.emplace_back([this, w = workers[i], audit] { RunWorker(*w, audit); });
  }
  while (!stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  stop_ = true;
  // Each loop ends after its pass; the leases are kept meanwhile, so a delivery finishing now
  // is still saved. A delivery past deliver_timeout is not waited for.
  size_t abandoned = 0;
  for (size_t i = 0; i < workers.size(); ++i) {
    Worker& w = *workers[i];
    bool gave_up = false;
    while (!w.finished() && !gave_up) {
      const std::optional<TimePoint> since = w.DeliveringSince();
      gave_up = since && options_.clock->Now() - *since >= options_.deliver_timeout && w.Abandon();
      if (!gave_up) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (!gave_up) {
      threads[i].join();
      continue;
    }
    ++abandoned;
    threads[i].detach();
    options_.logger->Error(
        "outbox: shutdown: a delivery has not returned within deliver_timeout; its thread is "
        "left parked in the sink (if the call ever returns, its result is dropped, nothing is "
        "saved) and the sink's lease is released",
        {{"sink", w.id()}, {"lease", w.lease()}});
  }
  leases_stop_ = true;
  lease_thread.join();
  if (LeaseConnection()) leases_->ReleaseAll(*lease_conn_);
  options_.logger->Info("outbox: dispatch stopped; leases released",
                        {{"abandoned_deliveries", static_cast<int64_t>(abandoned)}});
  return Status::OK();
}

std::vector<SinkFigures> Dispatcher::Figures() const {
  std::vector<SinkFigures> out;
  for (const auto& w : event_workers_) out.push_back(w->Figures());
  for (const auto& w : audit_workers_) out.push_back(w->Figures());
  return out;
}

}  // namespace sinkd::outbox
