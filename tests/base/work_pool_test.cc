// WorkPool: every index once, slots below threads(), nested loops on the same pool finish, and a
// pool of one runs inline and in order.
#include "base/work_pool.h"

#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace sinkd {
namespace {

TEST(WorkPool, EveryIndexRunsExactlyOnceAndTheCallReturnsAfterTheLast) {
  WorkPool pool(4);
  for (size_t n : {0, 1, 2, 3, 100, 1000}) {
    std::vector<std::atomic<int>> runs(n);
    pool.ParallelFor(n, [&](size_t i, size_t) { runs[i].fetch_add(1); });
    for (size_t i = 0; i < n; ++i) EXPECT_EQ(runs[i].load(), 1) << "index " << i << " of " << n;
  }
}

// Per-slot scratch is safe only if no two items run in one slot at once and slots stay in range.
TEST(WorkPool, WithoutAPoolEveryItemRunsInOrderOnTheCallingThreadInSlotZero) {
  std::vector<size_t> order;
  const std::thread::id caller = std::this_thread::get_id();
  WorkPool::ParallelFor(nullptr, 5, [&](size_t i, size_t slot) {
    EXPECT_EQ(slot, 0u);
    EXPECT_EQ(std::this_thread::get_id(), caller);
    order.push_back(i);
  });
  EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2, 3, 4}));
  WorkPool pool(2);
  std::atomic<int> ran{0};
  WorkPool::ParallelFor(&pool, 100, [&](size_t, size_t) { ++ran; });
  EXPECT_EQ(ran.load(), 100);
}

TEST(WorkPool, NoTwoItemsShareASlotAtOnceAndSlotsStayBelowThreads) {
  WorkPool pool(3);
  std::vector<std::atomic<int>> busy(pool.threads());
  std::atomic<bool> clash{false}, out_of_range{false};
  pool.ParallelFor(300, [&](size_t, size_t slot) {
    if (slot >= pool.threads()) {
      out_of_range = true;
      return;
    }
    if (busy[slot].fetch_add(1) != 0) clash = true;
    std::this_thread::yield();
    busy[slot].fetch_sub(1);
  });
  EXPECT_FALSE(out_of_range.load());
  EXPECT_FALSE(clash.load());
}

// A flush's loop over Parts runs each Part's loop over column chunks on the same pool; with
// every thread inside an outer item, the inner loops must still finish.
TEST(WorkPool, ALoopInsideALoopOnTheSamePoolFinishes) {
  WorkPool pool(2);
  std::atomic<int> inner{0};
  pool.ParallelFor(8, [&](size_t, size_t) {
    pool.ParallelFor(50, [&](size_t, size_t slot) {
      EXPECT_LT(slot, pool.threads());
      inner.fetch_add(1);
    });
  });
  EXPECT_EQ(inner.load(), 8 * 50);
}

TEST(WorkPool, APoolOfOneRunsEveryItemOnTheCallingThreadInOrder) {
  WorkPool pool(1);
  EXPECT_EQ(pool.threads(), 1u);
  std::vector<size_t> order;
  const auto caller = std::this_thread::get_id();
  pool.ParallelFor(5, [&](size_t i, size_t slot) {
    EXPECT_EQ(std::this_thread::get_id(), caller);
    EXPECT_EQ(slot, 0u);
    order.push_back(i);
  });
  EXPECT_EQ(order, (std::vector<size_t>{0, 1, 2, 3, 4}));
  EXPECT_GE(WorkPool::DefaultThreads(), 1u);
}

// Several callers (two lake sinks sharing nothing but, here, a pool) at once.
TEST(WorkPool, LoopsFromSeveralThreadsAtOnceAllFinish) {
  WorkPool pool(2);
  std::atomic<int> total{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < 3; ++c) {
    callers.emplace_back([&] {
      for (int round = 0; round < 20; ++round) {
        pool.ParallelFor(10, [&](size_t, size_t) { total.fetch_add(1); });
      }
    });
  }
  for (auto& t : callers) t.join();
  EXPECT_EQ(total.load(), 3 * 20 * 10);
}

}  // namespace
}  // namespace sinkd
