#include "compact/id_set.h"

#include <xxhash.h>

namespace sinkd::compact {

bool IdSet::Insert(std::string_view id) {
  if ((size_ + 1) * 2 > slots_.size()) Grow();
  const XXH128_hash_t h = XXH3_128bits(id.data(), id.size());
  Slot s{h.low64, h.high64};
  if (s.lo == 0 && s.hi == 0) s.hi = 1;
  const size_t mask = slots_.size() - 1;
  for (size_t i = s.lo & mask;; i = (i + 1) & mask) {
    Slot& slot = slots_[i];
    if (slot.lo == 0 && slot.hi == 0) {
      slot = s;
      ++size_;
      return true;
    }
    if (slot.lo == s.lo && slot.hi == s.hi) return false;
  }
}

void IdSet::Grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? 1024 : old.size() * 2, Slot{});
  const size_t mask = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.lo == 0 && s.hi == 0) continue;
    size_t i = s.lo & mask;
    while (slots_[i].lo != 0 || slots_[i].hi != 0) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

void IdSet::Clear() {
  slots_.clear();
  slots_.shrink_to_fit();
  size_ = 0;
}

}  // namespace sinkd::compact
