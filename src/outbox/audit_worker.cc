#include "outbox/audit_worker.h"

#include "outbox/reader.h"

namespace sinkd::outbox {

AuditWorker::AuditWorker(std::unique_ptr<sinks::AuditSink> sink, int batch, StoreTables tables,
                         WorkerContext context)
    : Worker("audit", sink->id(), AuditLeaseName(sink->id()),
             SinkStore(SinkKind::kAudit, sink->id(), tables), std::move(context)),
      sink_(std::move(sink)),
      batch_(batch) {}

Progress AuditWorker::CurrentProgress(const std::string& error) const {
  Progress p;
  p.at = cursor_;
  p.attempts = failures_in_a_row_;
  p.next_size = batch_;
  p.last_error = error;
  return p;
}

Status AuditWorker::TakeOver(int64_t epoch) {
  SINKD_ASSIGN_OR_RETURN(Cursor cursor, store_.LoadCursor(*conn_));
  SINKD_ASSIGN_OR_RETURN(std::optional<Progress> progress, store_.LoadProgress(*conn_));
  failures_in_a_row_ = 0;
  if (progress && progress->at == cursor) {
    failures_in_a_row_ = progress->attempts;
    last_error_ = progress->last_error;
  }
  epoch_ = epoch;
  cursor_ = cursor;
  retry_at_ = TimePoint{};
  save_pending_ = false;
  log().Info("outbox: audit lease acquired; resuming from the saved cursor",
             {{"sink", id_}, {"lease", lease_}, {"epoch", epoch},
              {"cursor", FormatCursor(cursor)}});
  Publish(failures_in_a_row_, 0);
  return Status::OK();
}

PassResult AuditWorker::Pass() {
  if (!Connected()) return PassResult::kError;
  if (HolderEpoch() == 0) return conn_ ? PassResult::kNotHolder : PassResult::kError;
  if (save_pending_) {
    Status s = store_.Save(*conn_, cursor_, CurrentProgress(""), fence());
    if (!s.ok()) return DatabaseError(s);
    save_pending_ = false;
  }
  if (Now() < retry_at_) return PassResult::kWaiting;
  PassResult result = PassResult::kIdle;
  // Until a batch comes back short, while this process still holds the lease.
  while (!stopping() && context_.leases->HeldEpoch(lease_) == epoch_) {
    auto records = ReadAuditRecords(*conn_, cursor_, batch_);
    if (!records.ok()) return DatabaseError(records.status().WithContext("read audit_events"));
    if (records->empty()) return result;
    BeginDelivery();
    const Status st = sink_->Write(*records);
    if (!EndDelivery()) return PassResult::kAbandoned;
    if (!st.ok()) {
      ++failures_;
      ++failures_in_a_row_;
      last_error_ = st.message().empty() ? st.ToString() : st.message();
      retry_at_ = Now() + context_.backoff.Wait(failures_in_a_row_);
      log().Warn("outbox: audit write failed; retrying the whole batch after a back-off",
                 {{"sink", id_}, {"records", static_cast<int64_t>(records->size())},
                  {"first", records->front().sequence}, {"attempt", failures_in_a_row_},
                  {"retry_in_seconds",
                   std::chrono::duration<double>(retry_at_ - Now()).count()},
                  {"error", last_error_}});
      Status s = store_.SaveProgress(*conn_, CurrentProgress(last_error_), fence());
      if (!s.ok()) log().Warn("outbox: could not save the audit failure", {{"error", s.message()}});
      Publish(failures_in_a_row_, 0);
      return PassResult::kWaiting;
    }
    failures_in_a_row_ = 0;
    cursor_ = PositionOf(records->back());
    delivered_ += records->size();
    Status s = store_.Save(*conn_, cursor_, CurrentProgress(""), fence());
    Publish(0, 0);
    if (!s.ok()) {
      save_pending_ = true;
      return DatabaseError(s);
    }
    result = PassResult::kDelivered;
    if (static_cast<int>(records->size()) < batch_) return result;
  }
  return result;
}

}  // namespace sinkd::outbox
