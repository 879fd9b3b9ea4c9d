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

// The first and the last kWidth bytes of n, each moved whole: every byte of the n is covered.
// REQUIRES: kWidth <= n <= 2 * kWidth.
template <size_t kWidth>
inline void CopyHeadAndTail(unsigned char* d, const unsigned char* s, size_t n) {
  unsigned char head[kWidth], tail[kWidth];
  std::memcpy(head, s, kWidth);
  std::memcpy(tail, s + n - kWidth, kWidth);
  std::memcpy(d, head, kWidth);
  std::memcpy(d + n - kWidth, tail, kWidth);
}

// Copies n bytes from `from` to `to`, like memcpy. REQUIRES: the ranges do not overlap.
inline void CopyShort(void* to, const void* from, size_t n) {
  auto* d = static_cast<unsigned char*>(to);
  const auto* s = static_cast<const unsigned char*>(from);
  if (n > 32) {
    std::memcpy(d, s, n);
  } else if (n >= 16) {
    CopyHeadAndTail<16>(d, s, n);
  } else if (n >= 8) {
    CopyHeadAndTail<8>(d, s, n);
  } else if (n >= 4) {
    CopyHeadAndTail<4>(d, s, n);
  } else if (n > 0) {
    d[0] = s[0];
    d[n / 2] = s[n / 2];
    d[n - 1] = s[n - 1];
  }
}

}  // namespace sinkd
