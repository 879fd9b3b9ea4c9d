// WorkPool runs the items of a loop on a fixed set of threads: ParallelFor(n, fn) calls fn(i, slot)
// once for every i in [0, n) and returns when all have returned. The calling thread works on its
// own loop too, so a pool of `threads` runs `threads` items at once with threads - 1 workers, and
// a pool of 1 has no worker and runs every item inline, in order. Its users: the lake's encode
// (lake/lake_writer.h: the Parts of a flush; parquet/part_writer.h: the column chunks of a row
// group), the drain's decode, compaction's inputs decoded ahead, and a manifest's Avro blocks
// (avro/container.h, iceberg/manifest.h); the threads start with the pool and live until it is
// destroyed, never per loop.
//
// Nesting: an item may call ParallelFor on the same pool (a Part's chunks inside the flush's loop
// of Parts). It cannot deadlock: a loop's caller only waits for items other threads have already
// started, and every thread finishes the item it started before it takes another.
// Slots: `slot` numbers the threads working on one loop, 0 for the caller, < threads(): an item
// may use per-slot scratch (slot-indexed, sized threads()) without a lock. Which item runs in which
// slot, and in what order, is not fixed; callers whose output must not depend on it (the Part
// bytes) write each item's result to its own place and combine them in index order.
// Threads: ParallelFor may be called from any thread, at once from several.
// Errors: none of its own; fn reports through what it writes (it must not throw).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace sinkd {

class WorkPool {
 public:
  // REQUIRES: threads >= 1.
  explicit WorkPool(size_t threads);
  ~WorkPool();
  WorkPool(const WorkPool&) = delete;
  WorkPool& operator=(const WorkPool&) = delete;

  size_t threads() const { return workers_.size() + 1; }

  void ParallelFor(size_t n, const std::function<void(size_t index, size_t slot)>& fn);

  // ParallelFor on `pool`, or every item in order on the calling thread (slot 0) when `pool` is
  // nullptr: for code that takes an optional pool.
  static void ParallelFor(WorkPool* pool, size_t n,
                          const std::function<void(size_t index, size_t slot)>& fn);

  // std::thread::hardware_concurrency(), at least 1: the default of --encode-threads.
  static size_t DefaultThreads();

 private:
  struct Loop;
  void Work();
  // Runs items of `loop` on this thread until none is left to start.
  static void RunItems(Loop& loop, size_t slot);

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<Loop>> loops_;  // loops with items not yet started
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace sinkd
