#include "base/memory.h"

#include <malloc.h>

namespace sinkd {

void KeepFreedMemory() {
  // Blocks up to 32 MiB (glibc's largest mmap threshold) come from the heap and are reused;
  // the heap's top is only trimmed past 1 GiB free, and grows 16 MiB at a time.
  (void)mallopt(M_MMAP_THRESHOLD, 32 << 20);
  (void)mallopt(M_TRIM_THRESHOLD, 1 << 30);
  (void)mallopt(M_TOP_PAD, 16 << 20);
}

}  // namespace sinkd
