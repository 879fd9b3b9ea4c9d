// KeepAlive is the one owner of the drain's InProgress acks. JetStream redelivers a message its
// consumer has held unacked for ack_wait; the drain holds messages far longer than that on
// purpose (fetched ahead while a flush runs, buffered until the batch closes, settling while the
// store is slow), and every one of them must stay ours until it is acked, nak'd or terminated.
//   From when: Track, called by the fetching thread as the fetch returns, with the time the fetch
//     was ASKED for: the server cannot have delivered before that, so the clock never starts late.
//   How often: one InProgress per message `every` (ack_wait / 3) after its delivery, then `every`
//     after its last InProgress; each message on its own schedule, so messages fetched together
//     are refreshed together and a batch of 250,000 gathered over minutes is not one burst.
//   Until when: Release, called right before the message's Ack, Nak or Term (or before it is
//     destroyed unsettled). Once Release returns, this thread never touches that message again:
//     a late InProgress after a nak would postpone its redelivery by a whole ack wait, and one
//     after its Message is destroyed would read freed memory.
// A lost InProgress (the connection is down) is not retried early: the next one follows `every`
// later, and at worst the message is redelivered and written twice (at-least-once, never a gap).
// Ownership: borrows each tracked message's AckAddress (the Message owning it must stay alive
//   until Release returns; its payload may be released before, jetstream/message.h) and, through
//   it, the connection (must outlive the KeepAlive). Owns one thread.
// Threads: Track, Release and the counters from any thread; the AckAddress is only read here,
//   and the owner's settle call follows Release.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <span>
#include <thread>
#include <unordered_map>
#include <vector>

#include "jetstream/message.h"

namespace sinkd::drain {

class KeepAlive {
 public:
  explicit KeepAlive(std::chrono::milliseconds every);
  ~KeepAlive();  // stops the thread; messages still tracked simply get no more InProgress
  KeepAlive(const KeepAlive&) = delete;
  KeepAlive& operator=(const KeepAlive&) = delete;

  // Keeps `messages` alive from `delivered_at` on. Tracking a message twice keeps one schedule.
  void Track(std::span<const jetstream::Message> messages,
             std::chrono::steady_clock::time_point delivered_at);
  // Stops keeping `message` alive; returns once no InProgress for it is being sent. Untracked
  // messages are ignored.
  void Release(const jetstream::Message& message);
  void Release(std::span<const jetstream::Message> messages);

  size_t tracked() const;
  size_t scheduled() const;  // schedule entries, released ones included (bounded: ~2 × tracked)
  uint64_t sent() const;    // InProgress acks handed to the connection
  uint64_t failed() const;  // InProgress acks the client refused (connection closed, …)

 private:
  struct Due {
    std::chrono::steady_clock::time_point at;
    const jetstream::AckAddress* address;
    uint64_t generation;  // a freed address may be reused: only the live generation is sent
    bool operator>(const Due& o) const { return at > o.at; }
  };
  void Loop();
  void Push(Due due);
  void DropReleased();  // when released entries outnumber live ones: memory stays ~ held messages


  const std::chrono::milliseconds every_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  uint64_t next_generation_ = 0;
  std::unordered_map<const jetstream::AckAddress*, uint64_t> live_;  // tracked → its generation
  // A min-heap on `at` (std::push_heap with std::greater): one entry per live message, plus
  // entries of released ones, dropped when they come up or by DropReleased.
  std::vector<Due> schedule_;
  size_t released_in_schedule_ = 0;
  uint64_t sent_ = 0;
  uint64_t failed_ = 0;
  std::thread thread_;
};

}  // namespace sinkd::drain
