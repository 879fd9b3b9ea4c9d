#include "base/memory.h"

#include <malloc.h>

namespace sinkd {

void KeepFreedMemory() {
  // Blocks up to 32 MiB (glibc's largest mmap threshold) come from the heap and are reused;
  // the heap's top is only trimmed past 1 GiB free, and grows 16 MiB at a time.
  (void)mallopt(M_MMAP_THRESHOLD, 32 << 20);
  (void)mallopt(M_TRIM_THRESHOLD, 1 << 30);
  (void)mallopt(M_TOP_PAD, 16 << 20);
  // Every thread allocates from the one main arena. A thread's own arena is also trimmed by
  // dropping each of its 64 MiB heaps as soon as it is wholly free, whatever M_TRIM_THRESHOLD
  // says, so a batch freed there was faulted in again by the next. Small blocks still come from
  // each thread's own cache (tcache) without the arena's lock.
  (void)mallopt(M_ARENA_MAX, 1);
}

}  // namespace sinkd
