// Backoff is the drain's retry policy as an object: the delay before the next attempt grows
// geometrically from `initial` to `max` with each consecutive failure and returns to `initial`
// after a success. It decides how long a nak'd batch waits before JetStream redelivers it
// (NakWithDelay) and how long the loop pauses after a failed fetch or flush, so a destination
// that is down costs one attempt per delay, never a hot loop.
// Threads: one thread at a time. Pure: no clock, no randomness.
#pragma once

#include <chrono>

namespace sinkd::drain {

struct BackoffPolicy {
  std::chrono::milliseconds initial{1000};  // first delay after a success
  std::chrono::milliseconds max{120'000};   // the cap: a retry at least this often
  double factor = 2.0;                      // growth per consecutive failure
};

class Backoff {
 public:
  explicit Backoff(BackoffPolicy policy = {}) : policy_(policy), next_(policy.initial) {}

  // The delay for this failure; the one after it is `factor` times longer, up to `max`.
  std::chrono::milliseconds Next();
  void Reset();
  int failures() const { return failures_; }

 private:
  BackoffPolicy policy_;
  std::chrono::milliseconds next_;
  int failures_ = 0;
};

}  // namespace sinkd::drain
