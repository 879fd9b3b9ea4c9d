// Backoff is sinkd's one schedule of waits between retries: the wait after the n-th failure in a
// row has the ceiling min(cap, initial·factor^(n-1)); with jitter j, the wait is the ceiling's
// fixed share (1-j) plus a random share j of it, so waits still grow under jitter. Its callers:
//   drain  nak delay and pause after a failed flush, 1 s doubling to 2 min; fetch errors 100 ms
//          doubling to 5 s (drain/drain.h), no jitter;
//   outbox a sink's retry after a failed delivery, 1 s doubling to 5 min (outbox/delivery_plan.h);
//   s3     a request the store may answer next time, 100 ms doubling to 20 s, jitter 0.5
//          (s3/retry_policy.h): drains sharing one durable would otherwise retry in lockstep.
// Why one type: three hand-written schedules had three overflow guards and three notions of
// "capped"; one place decides them.
// BackoffCounter counts the failures in a row for a caller that does not count them itself.
// Threads: Backoff is an immutable value, share freely; BackoffCounter is one thread at a time.
// Pure: no clock; the randomness is the caller's `unit`.
#pragma once

#include <chrono>

#include "base/status.h"

namespace sinkd {

struct Backoff {
  std::chrono::milliseconds initial{1000};  // the wait after the first failure (its ceiling)
  std::chrono::milliseconds cap{60'000};    // no wait is longer
  double factor = 2.0;                      // growth of the ceiling per failure in a row
  double jitter = 0.0;                      // random share of each wait, in [0, 1]

  // Refuse (naming `what`) unless initial > 0, cap >= initial, factor >= 1 and jitter in [0, 1].
  Status Validate(std::string_view what = "backoff") const;

  // The wait after `failures` failures in a row, with `unit` uniform in [0, 1) (ignored without
  // jitter): truncated to whole milliseconds, never above cap, never overflowing however many
  // failures. REQUIRES: Validate().ok(); failures < 1 counts as 1.
  std::chrono::milliseconds Wait(int failures, double unit = 0.0) const;
};

class BackoffCounter {
 public:
  explicit BackoffCounter(Backoff backoff) : backoff_(backoff) {}

  // Counts one more failure and returns its wait: initial, then `factor` times longer each time,
  // up to cap.
  std::chrono::milliseconds Next(double unit = 0.0) { return backoff_.Wait(++failures_, unit); }
  // A success: the next failure waits `initial` again.
  void Reset() { failures_ = 0; }
  int failures() const { return failures_; }
  const Backoff& backoff() const { return backoff_; }

 private:
  Backoff backoff_;
  int failures_ = 0;
};

}  // namespace sinkd
