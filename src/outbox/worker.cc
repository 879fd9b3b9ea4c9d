#include "outbox/worker.h"

namespace sinkd::outbox {

Worker::Worker(std::string kind, std::string id, std::string lease, SinkStore store,
               WorkerContext context)
    : kind_(std::move(kind)),
      id_(std::move(id)),
      lease_(std::move(lease)),
      store_(std::move(store)),
      context_(std::move(context)) {
  figures_.kind = kind_;
  figures_.id = id_;
  figures_.lease = lease_;
}

bool Worker::Connected() {
  if (conn_ && conn_->healthy()) return true;
  conn_.reset();
  auto conn = PgConn::Connect(context_.conninfo, "sinkd-dispatch-" + kind_ + ":" + id_);
  if (!conn.ok()) {
    if (!connect_error_logged_) {
      log().Error("outbox: cannot connect to the database; retrying",
                  {{"sink", id_}, {"kind", kind_}, {"error", conn.status().message()}});
      connect_error_logged_ = true;
    }
    return false;
  }
  connect_error_logged_ = false;
  conn_.emplace(std::move(conn).value());
  return true;
}

int64_t Worker::HolderEpoch() {
  const int64_t epoch = context_.leases->HeldEpoch(lease_);
  if (epoch == 0) {
    if (epoch_ != 0) {
      log().Warn("outbox: lease lost; this process stops delivering to the sink",
                 {{"sink", id_}, {"kind", kind_}, {"lease", lease_}, {"epoch", epoch_}});
      epoch_ = 0;
      Publish(0, 0);
    }
    return 0;
  }
  if (epoch != epoch_) {
    Status s = TakeOver(epoch);
    if (!s.ok()) {
      (void)DatabaseError(s.WithContext("take over " + lease_));
      return 0;
    }
  }
  return epoch_;
}

PassResult Worker::DatabaseError(const Status& status) {
  log().Warn("outbox: database step failed; retrying",
             {{"sink", id_}, {"kind", kind_}, {"error", status.message()}});
  if (conn_ && !conn_->healthy()) conn_.reset();
  return PassResult::kError;
}

Status Worker::SaveCursorIn(PgConn& conn, uint64_t txid, int64_t seq) {
  return store_.SaveCursorIn(conn, Cursor{txid, seq}, fence());
}

void Worker::Release() {
  if (epoch_ == 0 || !conn_) return;
  Status s = store_.Release(*conn_, fence());
  if (!s.ok()) {
    log().Warn("outbox: could not mark the sink released",
               {{"sink", id_}, {"error", s.message()}});
  }
}

void Worker::Publish(int attempts, int suspect) {
  std::lock_guard<std::mutex> lock(mu_);
  figures_.cursor = cursor_;
  figures_.holder = epoch_ != 0;
  figures_.epoch = epoch_;
  figures_.delivered = delivered_;
  figures_.failures = failures_;
  figures_.dead_letters = dead_letters_;
  figures_.last_error = last_error_;
  figures_.attempts = attempts;
  figures_.suspect = suspect;
  published_retry_at_ = retry_at_;
  const Duration left = retry_at_ - Now();
  figures_.retry_in_seconds =
      left.count() > 0 ? std::chrono::duration<double>(left).count() : 0.0;
}

void Worker::BeginDelivery() {
  const TimePoint now = Now();
  std::lock_guard<std::mutex> lock(delivery_mu_);
  delivering_since_ = now;
}

bool Worker::EndDelivery() {
  std::lock_guard<std::mutex> lock(delivery_mu_);
  delivering_since_.reset();
  return !abandoned_;
}

std::optional<TimePoint> Worker::DeliveringSince() const {
  std::lock_guard<std::mutex> lock(delivery_mu_);
  return delivering_since_;
}

bool Worker::Abandon() {
  std::lock_guard<std::mutex> lock(delivery_mu_);
  if (!delivering_since_) return false;
  abandoned_ = true;
  return true;
}

SinkFigures Worker::Figures() const {
  std::lock_guard<std::mutex> lock(mu_);
  return figures_;
}

TimePoint Worker::retry_at() const {
  std::lock_guard<std::mutex> lock(mu_);
  return published_retry_at_;
}

}  // namespace sinkd::outbox
