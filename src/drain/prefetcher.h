// Prefetcher keeps the next fetch in flight while the drain decodes and flushes the previous
// one: on two cores the broker's send and our encode then overlap instead of taking turns (a
// drain that fetched only when idle ran at 0.68 of the slower of its two limits; see
// BENCHMARKS.md).
// Pacing: one fetch at a time, and the next only once the last result was taken. It holds at
// most ONE fetched, untaken result, so a pausing drain (a slow or failing store, a nak back-off)
// keeps at most one fetch of messages waiting and asks for nothing meanwhile. An idle stream
// costs one fetch per `fetch_wait` (the server holds its waiting request that long). A fetch
// error is handed over, not retried here: the next fetch starts as soon as the error is taken,
// and its result waits out the drain's fetch back-off before the drain looks at it, so a failing
// broker sees one fetch per back-off step.
// Every message is handed to the KeepAlive as its fetch returns, stamped with the time the fetch
// was asked for, so it is kept alive while it waits here, in the batch and while it settles.
// Messages fetched and never taken are returned by Stop(), still tracked: the caller releases and
// naks them, so they are redelivered at once rather than after the ack wait. Nothing is acked or
// dropped here.
// Ownership: borrows the consumer and the KeepAlive (both must outlive the Prefetcher).
// Threads: one background thread calls source.Fetch and KeepAlive::Track; Take and Stop belong
// to one other thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "base/status.h"
#include "drain/keep_alive.h"
#include "jetstream/message.h"
#include "jetstream/pull_consumer.h"

namespace sinkd::drain {

class Prefetcher {
 public:
  // Starts fetching at once: up to `fetch_max` messages per request, each request waiting at
  // most `fetch_wait` (how quickly Stop returns).
  Prefetcher(jetstream::PullConsumer& source, KeepAlive& keepalive, int fetch_max,
             std::chrono::milliseconds fetch_wait);
  // Stop(); leftovers are released from the KeepAlive and dropped unacked (they come back after
  // the ack wait).
  ~Prefetcher();
  Prefetcher(const Prefetcher&) = delete;
  Prefetcher& operator=(const Prefetcher&) = delete;

  // Waits at most `timeout` for a fetch to complete and appends its messages to `out`. Returns
  // that fetch's status (an error comes with no messages); OK with nothing appended when no
  // fetch completed in time.
  Status Take(std::chrono::milliseconds timeout, std::vector<jetstream::Message>& out);

  // Stops fetching (waits for the request in flight) and returns what was fetched and not taken.
  std::vector<jetstream::Message> Stop();

 private:
  void Loop();

  jetstream::PullConsumer& source_;
  KeepAlive& keepalive_;
  const int fetch_max_;
  const std::chrono::milliseconds fetch_wait_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  bool filled_ = false;  // slot_ holds a completed fetch nobody took yet
  Status slot_status_;
  std::vector<jetstream::Message> slot_;
  std::thread thread_;
};

}  // namespace sinkd::drain
