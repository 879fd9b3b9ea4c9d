#include "drain/backoff.h"

#include <algorithm>

namespace sinkd::drain {

std::chrono::milliseconds Backoff::Next() {
  const std::chrono::milliseconds delay = std::min(next_, policy_.max);
  const double grown = static_cast<double>(delay.count()) * policy_.factor;
  const double cap = static_cast<double>(policy_.max.count());
  next_ = std::chrono::milliseconds(static_cast<int64_t>(std::min(grown, cap)));
  if (next_ < policy_.initial) next_ = policy_.initial;
  ++failures_;
  return delay;
}

void Backoff::Reset() {
  next_ = policy_.initial;
  failures_ = 0;
}

}  // namespace sinkd::drain
