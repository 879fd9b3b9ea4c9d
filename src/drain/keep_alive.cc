#include "drain/keep_alive.h"

#include <algorithm>
#include <functional>

namespace sinkd::drain {

namespace {

// InProgress acks sent per hold of the lock: a fetch's worth goes out together, and a drain thread
// waiting to settle (Release) gets in between chunks of a larger backlog.
constexpr int kChunk = 512;
// Released entries tolerated beyond the live ones before the schedule is rebuilt without them.
constexpr size_t kReleasedSlack = 4096;

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
      const jetstream::AckAddress* address = m.ack_address();
      if (address == nullptr || live_.contains(address)) continue;
      const uint64_t generation = ++next_generation_;
      live_.emplace(address, generation);
      Push({delivered_at + every_, address, generation});
    }
  }
  cv_.notify_all();
}

void KeepAlive::Release(const jetstream::Message& message) {
  Release(std::span<const jetstream::Message>(&message, 1));
}

void KeepAlive::Release(std::span<const jetstream::Message> messages) {
  std::lock_guard<std::mutex> lock(mu_);
  for (const jetstream::Message& m : messages) {
    if (m.ack_address() != nullptr) released_in_schedule_ += live_.erase(m.ack_address());
  }
  if (released_in_schedule_ > live_.size() + kReleasedSlack) DropReleased();
}

void KeepAlive::Push(Due due) {
  schedule_.push_back(due);
  std::push_heap(schedule_.begin(), schedule_.end(), std::greater<Due>());
}

void KeepAlive::DropReleased() {
  std::erase_if(schedule_, [&](const Due& d) {
    auto live = live_.find(d.address);
    return live == live_.end() || live->second != d.generation;
  });
  std::make_heap(schedule_.begin(), schedule_.end(), std::greater<Due>());
  released_in_schedule_ = 0;
}

size_t KeepAlive::tracked() const {
  std::lock_guard<std::mutex> lock(mu_);
  return live_.size();
}

size_t KeepAlive::scheduled() const {
  std::lock_guard<std::mutex> lock(mu_);
  return schedule_.size();
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
    const auto first = schedule_.front().at;
    if (first > std::chrono::steady_clock::now()) {
      cv_.wait_until(lock, first);  // woken early by Track (maybe sooner) or stopping
      continue;
    }
    const auto now = std::chrono::steady_clock::now();
    for (int n = 0; n < kChunk && !schedule_.empty() && schedule_.front().at <= now; ++n) {
      std::pop_heap(schedule_.begin(), schedule_.end(), std::greater<Due>());
      const Due due = schedule_.back();
      schedule_.pop_back();
      auto live = live_.find(due.address);
      if (live == live_.end() || live->second != due.generation) {  // released
        --released_in_schedule_;
        continue;
      }
      if (jetstream::Message::InProgress(*due.address).ok()) {
        ++sent_;
      } else {
        ++failed_;
      }
      Push({std::chrono::steady_clock::now() + every_, due.address, due.generation});
    }
    lock.unlock();
    std::this_thread::yield();
    lock.lock();
  }
}

}  // namespace sinkd::drain
