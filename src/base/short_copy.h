// CopyShort copies a value of a string column: most are a few dozen bytes, where the call into
// libc's memcpy and its size dispatch cost more than the copy itself (perf put 4% of an import in
// memcpy calls from the per-value loops that use this). Up to 32 bytes it is two overlapping
// fixed-size moves that never touch a byte outside either range; longer values go to memcpy.
// Threads: a pure function, share freely.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace sinkd {

// Copies n bytes from `from` to `to`, like memcpy. REQUIRES: the ranges do not overlap.
inline void CopyShort(void* to, const void* from, size_t n) {
  auto* d = static_cast<unsigned char*>(to);
  const auto* s = static_cast<const unsigned char*>(from);
  if (n > 32) {
    std::memcpy(d, s, n);
  } else if (n >= 16) {
    unsigned char head[16], tail[16];
    std::memcpy(head, s, 16);
    std::memcpy(tail, s + n - 16, 16);
    std::memcpy(d, head, 16);
    std::memcpy(d + n - 16, tail, 16);
  } else if (n >= 8) {
    uint64_t head, tail;
    std::memcpy(&head, s, 8);
    std::memcpy(&tail, s + n - 8, 8);
    std::memcpy(d, &head, 8);
    std::memcpy(d + n - 8, &tail, 8);
  } else if (n >= 4) {
    uint32_t head, tail;
    std::memcpy(&head, s, 4);
    std::memcpy(&tail, s + n - 4, 4);
    std::memcpy(d, &head, 4);
    std::memcpy(d + n - 4, &tail, 4);
  } else if (n > 0) {
    d[0] = s[0];
    d[n / 2] = s[n / 2];
    d[n - 1] = s[n - 1];
  }
}

}  // namespace sinkd
