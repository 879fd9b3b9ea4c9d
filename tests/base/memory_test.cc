// KeepFreedMemory in a freshly executed child each (threadsafe death tests): the allocator's
// settings and arenas are process-wide, and an arena another test's thread made would stay.
#include "base/memory.h"

#include <cstdint>
#include <cstdlib>
#include <thread>

#include <gtest/gtest.h>

namespace sinkd {
namespace {

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
constexpr bool kSanitizerAllocator = true;  // its own malloc: mallopt does nothing there
#else
constexpr bool kSanitizerAllocator = false;
#endif

// Exits 0 when the block another thread gets next lies in the one this thread freed: the memory a
// decode thread freed is reused by the encode pool instead of faulted in fresh. (Not the same
// address: starting the thread takes a few small blocks from the freed space first.)
void FreeHereAllocateThereAndCheck() {
  KeepFreedMemory();
  constexpr size_t kBlock = size_t{4} << 20;  // above glibc's default mmap threshold
  void* freed = std::malloc(kBlock);
  if (freed == nullptr) std::_Exit(10);
  const auto begin = reinterpret_cast<uintptr_t>(freed);  // only compared once it is freed
  std::free(freed);
  void* reused = nullptr;
  std::thread([&] { reused = std::malloc(kBlock); }).join();
  const auto at = reinterpret_cast<uintptr_t>(reused);
  std::_Exit(at >= begin && at < begin + kBlock ? 0 : 11);
}

TEST(KeepFreedMemory, TheNextThreadsBlockComesFromTheOneAnotherThreadFreed) {
  if (kSanitizerAllocator) GTEST_SKIP() << "a sanitizer's allocator ignores mallopt";
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(FreeHereAllocateThereAndCheck(), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace sinkd
