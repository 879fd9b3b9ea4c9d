#include "base/work_pool.h"

#include <algorithm>
#include <atomic>

namespace sinkd {

// One ParallelFor. It stays in the pool's queue while it has items nobody has started; a thread
// that joins takes the next slot number, and since a thread joins a loop at most once (it leaves
// only when no item is left to start, and a caller waiting for its own loop helps no other loop)
// the slots stay below threads().
struct WorkPool::Loop {
  const std::function<void(size_t, size_t)>* fn = nullptr;
  size_t n = 0;
  std::atomic<size_t> next{0};
  std::atomic<size_t> slots{1};  // 0 is the caller's
  std::mutex mutex;
  std::condition_variable finished;
  size_t done = 0;  // guarded by mutex
};

WorkPool::WorkPool(size_t threads) {
  for (size_t i = 1; i < std::max<size_t>(threads, 1); ++i) workers_.emplace_back([this] { Work(); });
}

WorkPool::~WorkPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& t : workers_) t.join();
}

void WorkPool::ParallelFor(WorkPool* pool, size_t n,
                           const std::function<void(size_t index, size_t slot)>& fn) {
  if (pool != nullptr) {
    pool->ParallelFor(n, fn);
    return;
  }
  for (size_t i = 0; i < n; ++i) fn(i, 0);
}

size_t WorkPool::DefaultThreads() {
  return std::max<size_t>(1, std::thread::hardware_concurrency());
}

void WorkPool::RunItems(Loop& loop, size_t slot) {
  for (size_t i = loop.next.fetch_add(1); i < loop.n; i = loop.next.fetch_add(1)) {
    (*loop.fn)(i, slot);
    std::lock_guard lock(loop.mutex);
    if (++loop.done == loop.n) loop.finished.notify_all();
  }
}

void WorkPool::ParallelFor(size_t n, const std::function<void(size_t index, size_t slot)>& fn) {
  if (n == 0) return;
  if (workers_.empty() || n == 1) {
    for (size_t i = 0; i < n; ++i) fn(i, 0);
    return;
  }
  auto loop = std::make_shared<Loop>();
  loop->fn = &fn;
  loop->n = n;
  {
    std::lock_guard lock(mutex_);
    loops_.push_back(loop);
  }
  wake_.notify_all();
  RunItems(*loop, 0);
  {
    std::lock_guard lock(mutex_);
    std::erase(loops_, loop);
  }
  // Only items other threads started are left: they finish without needing this thread.
  std::unique_lock lock(loop->mutex);
  loop->finished.wait(lock, [&] { return loop->done == loop->n; });
}

void WorkPool::Work() {
  while (true) {
    std::shared_ptr<Loop> loop;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || !loops_.empty(); });
      if (loops_.empty()) return;  // stopping, and nothing left to help with
      loop = loops_.front();
    }
    RunItems(*loop, loop->slots.fetch_add(1));
    std::lock_guard lock(mutex_);
    std::erase(loops_, loop);
  }
}

}  // namespace sinkd
