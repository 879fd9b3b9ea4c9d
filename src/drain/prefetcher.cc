#include "drain/prefetcher.h"

namespace sinkd::drain {

Prefetcher::Prefetcher(jetstream::PullConsumer& source, KeepAlive& keepalive, int fetch_max,
                       std::chrono::milliseconds fetch_wait)
    : source_(source), keepalive_(keepalive), fetch_max_(fetch_max), fetch_wait_(fetch_wait) {
  thread_ = std::thread([this] { Loop(); });
}

Prefetcher::~Prefetcher() { keepalive_.Release(Stop()); }

void Prefetcher::Loop() {
  std::vector<jetstream::Message> got;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || !filled_; });
      if (stopping_) return;
    }
    got.clear();
    const auto asked = std::chrono::steady_clock::now();
    Status status = source_.Fetch(fetch_max_, fetch_wait_, got);
    if (status.ok() && got.empty()) continue;  // nothing came: ask again
    keepalive_.Track(got, asked);
    std::lock_guard<std::mutex> lock(mu_);
    // Even when stopping, keep what came: Stop hands it back to be nak'd.
    slot_status_ = std::move(status);
    slot_ = std::move(got);
    got.clear();  // a moved-from vector is valid but unspecified
    filled_ = true;
    cv_.notify_all();
  }
}

Status Prefetcher::Take(std::chrono::milliseconds timeout, std::vector<jetstream::Message>& out) {
  std::unique_lock<std::mutex> lock(mu_);
  if (!cv_.wait_for(lock, timeout, [&] { return filled_; })) return Status::OK();
  for (jetstream::Message& m : slot_) out.push_back(std::move(m));
  slot_.clear();
  Status status = std::move(slot_status_);
  slot_status_ = Status::OK();
  filled_ = false;
  cv_.notify_all();
  return status;
}

std::vector<jetstream::Message> Prefetcher::Stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    cv_.notify_all();
  }
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<jetstream::Message> left = std::move(slot_);
  slot_.clear();
  filled_ = false;
  return left;
}

}  // namespace sinkd::drain
