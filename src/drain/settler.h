// Settler settles closed batches (drain/settle.h) on a thread of its own, so the drain fetches and
// decodes batch N+1 while batch N is written to the lake and acknowledged.
// Order: at most ONE batch settles at a time, and batches settle in the order they were handed
// over; every Ack, Term or Nak of batch N is sent before batch N+1's first dead letter, flush or
// ack. So acks arrive per batch in the order the batches' Parts became durable, and nothing is
// acked before its own batch's Parts are durable.
// A failed batch is nak'd whole by Settle (its messages come back after the nak delay) before the
// next batch starts; the next batch is independent of it: if its flush succeeds it is acked, as
// its own rows are durable. Nothing of a failed batch is acked, whatever the batches after it do.
// Memory: the caller fills one batch while this settles another, so a drain holds at most two
// batches (one filling, one settling) plus one prefetched fetch (drain/prefetcher.h).
// Ownership: borrows everything in the SettleContext (must outlive the Settler) and, from Start
//   until the next WaitIdle or TakeFinished that reports it, the batch handed over.
// Threads: Start, WaitIdle and TakeFinished belong to one thread (the drain's); Settle runs on the
//   Settler's own thread, one batch at a time.
#pragma once

#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "drain/batch.h"
#include "drain/settle.h"

namespace sinkd::drain {

class Settler {
 public:
  explicit Settler(SettleContext context);
  ~Settler();  // waits for the batch settling, if any
  Settler(const Settler&) = delete;
  Settler& operator=(const Settler&) = delete;

  // Starts settling `batch` and returns at once.
  // REQUIRES: !busy() (WaitIdle first) and !batch.empty().
  void Start(Batch& batch);
  // Waits until no batch is settling; returns the report of the batch that finished since the
  // last report was taken, if any. The batch is cleared and the caller's again.
  std::optional<SettleReport> WaitIdle();
  // The same without waiting: a report only when the batch has finished.
  std::optional<SettleReport> TakeFinished();
  bool busy() const;

 private:
  void Loop();

  SettleContext context_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  Batch* settling_ = nullptr;  // handed over and not finished
  std::optional<SettleReport> finished_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace sinkd::drain
