// The dispatcher's clock, injected so back-off tests can move time by hand instead of sleeping
// five minutes (LevelDB passes its Env the same way). Now() is monotonic: waits, back-offs and the
// local view of a lease are measured on it; the wall clock never decides anything here (lease
// expiry is the server's now()).
// Threads: implementations must be safe for concurrent use (sink loops read it concurrently).
#pragma once

#include <atomic>
#include <chrono>

namespace sinkd::outbox {

using Duration = std::chrono::steady_clock::duration;
using TimePoint = std::chrono::steady_clock::time_point;

class Clock {
 public:
  virtual ~Clock() = default;
  virtual TimePoint Now() const = 0;
};

class SteadyClock final : public Clock {
 public:
  TimePoint Now() const override { return std::chrono::steady_clock::now(); }
};

// A clock that moves only when told to. Safe for concurrent use (one atomic).
class ManualClock final : public Clock {
 public:
  TimePoint Now() const override { return TimePoint(Duration(now_.load())); }
  void Advance(Duration d) { now_ += d.count(); }

 private:
  std::atomic<Duration::rep> now_{std::chrono::duration_cast<Duration>(std::chrono::hours(1)).count()};
};

}  // namespace sinkd::outbox
