#include "base/backoff.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace sinkd {

Status Backoff::Validate(std::string_view what) const {
  const std::string name(what);
  if (initial.count() <= 0) return Status::Refuse(name + ": the first wait must be positive");
  if (cap < initial) {
    return Status::Refuse(name + ": the longest wait must be at least " +
                          std::to_string(initial.count()) + "ms");
  }
  if (!(factor >= 1.0)) return Status::Refuse(name + ": the growth factor must be at least 1");
  if (!(jitter >= 0.0 && jitter <= 1.0)) {
    return Status::Refuse(name + ": the jitter must be between 0 and 1");
  }
  return Status::OK();
}

std::chrono::milliseconds Backoff::Wait(int failures, double unit) const {
  const double top = static_cast<double>(cap.count());
  // pow overflows to +inf for a long outage, and min() turns that into the cap.
  const double grown =
      static_cast<double>(initial.count()) * std::pow(factor, std::max(failures, 1) - 1);
  const double ceiling = std::min(grown, top);
  const double wait = ceiling * (1.0 - jitter) + std::clamp(unit, 0.0, 1.0) * ceiling * jitter;
  return std::chrono::milliseconds(static_cast<long long>(std::min(wait, top)));
}

}  // namespace sinkd
