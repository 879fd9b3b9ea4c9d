// How often and how long to retry a request the store may answer next time (5xx, SlowDown,
// timeouts, resets): a bounded number of attempts, waiting by sinkd's one Backoff (base/backoff.h)
// between them, with jitter.
// Why jitter: drains sharing one durable flush at the same moments; without it they retry in
// lockstep and a throttling store sees the same burst again and again.
// Threads: immutable, share freely.
#pragma once

#include <chrono>

#include "base/backoff.h"
#include "base/status.h"

namespace sinkd::s3 {

struct RetryPolicy {
  // Tries per request, the first included. Default 6: about 0.1+0.2+0.4+0.8+1.6 s of waiting
  // (at most twice that with jitter) before a flush gives up and its batch is redelivered.
  int attempts = 6;
  // The wait after failed attempt n: "equal jitter", half of the ceiling
  // min(cap, initial·2^(n-1)) plus a random half. The first ceiling is 100 ms; the cap 20 s
  // (what AWS's SDKs cap at), set by --s3-retry-max-backoff.
  Backoff backoff{std::chrono::milliseconds(100), std::chrono::seconds(20), 2.0, 0.5};

  // Refuse when attempts < 1 or the back-off is not valid (a cap below its first wait).
  Status Validate() const;
};

}  // namespace sinkd::s3
