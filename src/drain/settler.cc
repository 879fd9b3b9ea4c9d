#include "drain/settler.h"

namespace sinkd::drain {

Settler::Settler(SettleContext context) : context_(std::move(context)) {
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
    finished_.reset();
  }
  cv_.notify_all();
}

std::optional<SettleReport> Settler::WaitIdle() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return settling_ == nullptr; });
  std::optional<SettleReport> report = std::move(finished_);
  finished_.reset();
  return report;
}

std::optional<SettleReport> Settler::TakeFinished() {
  std::lock_guard<std::mutex> lock(mu_);
  if (settling_ != nullptr) return std::nullopt;
  std::optional<SettleReport> report = std::move(finished_);
  finished_.reset();
  return report;
}

bool Settler::busy() const {
  std::lock_guard<std::mutex> lock(mu_);
  return settling_ != nullptr;
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
    finished_ = std::move(report);
    settling_ = nullptr;
    cv_.notify_all();
  }
}

}  // namespace sinkd::drain
