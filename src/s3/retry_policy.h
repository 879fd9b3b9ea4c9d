// How often and how long to retry a request the store may answer next time (5xx, SlowDown,
// timeouts, resets): exponential backoff with jitter, bounded in attempts and in the longest wait.
// Why jitter: drains sharing one durable flush at the same moments; without it they retry in
// lockstep and a throttling store sees the same burst again and again.
// Threads: immutable, share freely.
#pragma once

#include <chrono>

#include "base/status.h"

namespace sinkd::s3 {

struct RetryPolicy {
  // Tries per request, the first included. Default 6: about 0.1+0.2+0.4+0.8+1.6 s of waiting
  // (at most twice that with jitter) before a flush gives up and its batch is redelivered.
  int attempts = 6;
  // The first wait's ceiling; each later ceiling doubles. Default 100 ms.
  std::chrono::milliseconds base{100};
  // No wait is longer than this. Default 20 s (what AWS's SDKs cap at).
  std::chrono::milliseconds max{20'000};

  // Refuse when attempts < 1, base <= 0 or max < base.
  Status Validate() const;

  // The wait after failed attempt `attempt` (1-based), with `unit` uniform in [0, 1):
  // "equal jitter", half of the ceiling min(max, base·2^(attempt-1)) plus a random half, so waits
  // still grow under jitter.
  std::chrono::milliseconds Backoff(int attempt, double unit) const;
};

}  // namespace sinkd::s3
