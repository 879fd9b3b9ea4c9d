#include "s3/retry_policy.h"

#include <algorithm>

namespace sinkd::s3 {

Status RetryPolicy::Validate() const {
  if (attempts < 1) return Status::Refuse("--s3-retry-attempts must be at least 1");
  if (base.count() <= 0) return Status::Refuse("s3 retry base backoff must be positive");
  if (max < base) {
    return Status::Refuse("--s3-retry-max-backoff must be at least " +
                          std::to_string(base.count()) + "ms");
  }
  return Status::OK();
}

std::chrono::milliseconds RetryPolicy::Backoff(int attempt, double unit) const {
  const int doublings = std::clamp(attempt - 1, 0, 30);
  const double ceiling =
      std::min(static_cast<double>(max.count()),
               static_cast<double>(base.count()) * static_cast<double>(1LL << doublings));
  const double wait = ceiling / 2 + std::clamp(unit, 0.0, 1.0) * ceiling / 2;
  return std::chrono::milliseconds(static_cast<long long>(wait));
}

}  // namespace sinkd::s3
