// IdSet remembers which ids a merge has already emitted, in 16 bytes a slot: the ids' 128-bit
// XXH3 hashes in an open-addressing table (load at most 1/2), not the ids themselves. A collision
// would drop a row, and its odds are about n²/2¹²⁹ (10⁻²⁶ for a billion ids): far below a disk's
// undetected error rate.
// Threads: one thread at a time.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace sinkd::compact {

class IdSet {
 public:
  // True when `id` was not in the set (it is now).
  bool Insert(std::string_view id);
  size_t size() const { return size_; }
  void Clear();

 private:
  struct Slot {
    uint64_t lo = 0, hi = 0;  // (0, 0) marks an empty slot; a hash of (0, 0) is stored as (0, 1)
  };
  void Grow();
  std::vector<Slot> slots_;
  size_t size_ = 0;
};

}  // namespace sinkd::compact
