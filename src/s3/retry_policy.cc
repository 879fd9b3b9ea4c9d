#include "s3/retry_policy.h"

namespace sinkd::s3 {

Status RetryPolicy::Validate() const {
  if (attempts < 1) return Status::Refuse("--s3-retry-attempts must be at least 1");
  return backoff.Validate("--s3-retry-max-backoff");
}

}  // namespace sinkd::s3
