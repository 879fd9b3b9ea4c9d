#include "drain/keep_alive.h"

namespace sinkd::drain {

namespace {

// InProgress acks sent per hold of the lock: a fetch's worth goes out together, and a drain thread
// waiting to settle (Release) gets in between chunks of a larger backlog.
constexpr int kChunk = 512;

}  // namespace

KeepAlive::KeepAlive(std::chrono::milliseconds every) : every_(every) {
  thread_ = std::thread([this] { Loop(); });
}

KeepAlive::~KeepAlive() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void KeepAlive::Track(std::span<const jetstream::Message> messages,
                      std::chrono::steady_clock::time_point delivered_at) {
  if (messages.empty()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const jetstream::Message& m : messages) {
      natsMsg* raw = m.raw();
      if (raw == nullptr || live_.contains(raw)) continue;
      const uint64_t generation = ++next_generation_;
      live_.emplace(raw, generation);
      schedule_.push({delivered_at + every_, raw, generation});
    }
  }
  cv_.notify_all();
}

void KeepAlive::Release(const jetstream::Message& message) {
  if (message.raw() == nullptr) return;
  std::lock_guard<std::mutex> lock(mu_);
  live_.erase(message.raw());
}

void KeepAlive::Release(std::span<const jetstream::Message> messages) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const jetstream::Message& m : messages) {
    if (m.raw() != nullptr) live_.erase(m.raw());
  }
}

size_t KeepAlive::tracked() const {
  std::lock_guard<std::mutex> lock(mu_);
  return live_.size();
}

uint64_t KeepAlive::sent() const {
  std::lock_guard<std::mutex> lock(mu_);
  return sent_;
}

uint64_t KeepAlive::failed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return failed_;
}

// The InProgress goes out under the lock, so Release (which takes it) cannot return while one
// for that message is on its way, and the owner's Ack, Nak or Term is published after it.
void KeepAlive::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    if (schedule_.empty()) {
      cv_.wait(lock, [&] { return stopping_ || !schedule_.empty(); });
      continue;
    }
    const auto first = schedule_.top().at;
    if (first > std::chrono::steady_clock::now()) {
      cv_.wait_until(lock, first);  // woken early by Track (maybe sooner) or stopping
      continue;
    }
    const auto now = std::chrono::steady_clock::now();
    for (int n = 0; n < kChunk && !schedule_.empty() && schedule_.top().at <= now; ++n) {
      const Due due = schedule_.top();
      schedule_.pop();
      auto live = live_.find(due.msg);
      if (live == live_.end() || live->second != due.generation) continue;  // released
      if (jetstream::Message::InProgress(due.msg).ok()) {
        ++sent_;
      } else {
        ++failed_;
      }
      schedule_.push({std::chrono::steady_clock::now() + every_, due.msg, due.generation});
    }
    lock.unlock();
    std::this_thread::yield();
    lock.lock();
  }
}

}  // namespace sinkd::drain
