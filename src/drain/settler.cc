#include "drain/settler.h"

namespace sinkd::drain {

Settler::Settler(SettleContext context, std::chrono::nanoseconds flush_timeout)
    : context_(std::move(context)) {
  context_.watch = flush_timeout.count() > 0 ? &watch_ : nullptr;
  context_.flush_timeout = flush_timeout;
  thread_ = std::thread([this] { Loop(); });
}

Settler::~Settler() {
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return settling_ == nullptr; });
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void Settler::Start(Batch& batch) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    settling_ = &batch;
    abandoned_ = false;
    finished_.reset();
  }
  cv_.notify_all();
}

std::optional<SettleReport> Settler::TakeFinished() {
  std::unique_lock<std::mutex> lock(mu_);
  if (settling_ != nullptr) {
    if (abandoned_ || !watch_.AbandonIfOverdue(std::chrono::steady_clock::now())) {
      return std::nullopt;
    }
    abandoned_ = true;
    Batch& batch = *settling_;
    // Outside the lock: the naks of a whole batch take a while, and the Settler's thread, should
    // the flush return meanwhile, only records that it did (it touches no message of an
    // abandoned batch), so nothing here races it.
    lock.unlock();
    return Abandon(batch, context_);
  }
  std::optional<SettleReport> report = std::move(finished_);
  finished_.reset();
  if (report && report->late) {
    late_->Clear();
    late_ = nullptr;
    if (context_.metrics != nullptr) context_.metrics->flush_stuck = false;
  }
  return report;
}

std::optional<SettleReport> Settler::WaitFor(std::chrono::milliseconds timeout) {
  {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, timeout, [&] { return settling_ == nullptr; });
  }
  return TakeFinished();
}

bool Settler::busy() const {
  std::lock_guard<std::mutex> lock(mu_);
  return settling_ != nullptr || late_ != nullptr;
}

bool Settler::stuck() const {
  std::lock_guard<std::mutex> lock(mu_);
  return (settling_ != nullptr && abandoned_) || late_ != nullptr;
}

void Settler::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [&] { return stopping_ || settling_ != nullptr; });
    if (settling_ == nullptr) return;  // stopping, nothing handed over
    Batch& batch = *settling_;
    lock.unlock();
    SettleReport report = Settle(batch, context_);
    lock.lock();
    if (report.late) late_ = &batch;
    finished_ = std::move(report);
    settling_ = nullptr;
    cv_.notify_all();
  }
}

}  // namespace sinkd::drain
