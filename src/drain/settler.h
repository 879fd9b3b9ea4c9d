// Settler settles closed batches (drain/settle.h) on a thread of its own, so the drain fetches and
// decodes batch N+1 while batch N is written to the lake and acknowledged.
// Order: at most ONE batch settles at a time, and batches settle in the order they were handed
// over; every Ack, Term or Nak of batch N is sent before batch N+1's first dead letter, flush or
// ack. So acks arrive per batch in the order the batches' Parts became durable, and nothing is
// acked before its own batch's Parts are durable.
// A failed batch is nak'd whole by Settle (its messages come back after the nak delay) before the
// next batch starts; the next batch is independent of it: if its flush succeeds it is acked, as
// its own rows are durable. Nothing of a failed batch is acked, whatever the batches after it do.
// Deadline: a flush still running flush_timeout after it started is abandoned by the first
// TakeFinished or WaitFor that sees it overdue (on the caller's thread: Abandon naks the batch and
// that call returns its report). The Settler's thread is then stuck in the flush, and the Settler
// stays busy and stuck() until the flush returns; it is handed nothing meanwhile (the Sink is one
// thread at a time, and the batch's rows are still being read). The flush's return is reported
// once (`late`: nothing settled), and the batch is cleared and the caller's again.
// Memory: the caller fills one batch while this settles another, so a drain holds at most two
// batches (one filling, one settling) plus one prefetched fetch (drain/prefetcher.h).
// Ownership: borrows everything in the SettleContext (must outlive the Settler) and, from Start
//   until the TakeFinished or WaitFor that reports it settled or late, the batch handed over.
// Threads: Start, WaitFor, TakeFinished, busy and stuck belong to one thread (the drain's);
//   Settle runs on the Settler's own thread, one batch at a time.
// REQUIRES at destruction: no flush stuck (the destructor waits for the batch settling).
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include "drain/batch.h"
#include "drain/settle.h"

namespace sinkd::drain {

class Settler {
 public:
  // `context.watch` and `context.flush_timeout` are set here: every flush has that deadline;
  // 0 gives none (import: a flush nobody else can take over is waited for, however long).
  Settler(SettleContext context, std::chrono::nanoseconds flush_timeout);
  ~Settler();  // waits for the batch settling, if any
  Settler(const Settler&) = delete;
  Settler& operator=(const Settler&) = delete;

  // Starts settling `batch` and returns at once.
  // REQUIRES: !busy() and !batch.empty().
  void Start(Batch& batch);
  // The report of the batch that finished since the last report was taken, if any; or, when its
  // flush is overdue now, Abandon's report (the batch nak'd; the Settler stays busy and stuck).
  std::optional<SettleReport> TakeFinished();
  // The same after waiting up to `timeout` for the batch settling to finish.
  std::optional<SettleReport> WaitFor(std::chrono::milliseconds timeout);
  // A batch is settling, or an abandoned flush has not returned: Start must wait.
  bool busy() const;
  // An abandoned flush has not returned.
  bool stuck() const;

 private:
  void Loop();

  SettleContext context_;
  FlushWatch watch_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  Batch* settling_ = nullptr;  // handed over and its Settle not returned
  bool abandoned_ = false;     // settling_'s flush was abandoned (its report given)
  Batch* late_ = nullptr;      // an abandoned batch whose flush returned: cleared when reported
  std::optional<SettleReport> finished_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace sinkd::drain
