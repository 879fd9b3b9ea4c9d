// S3RequestMetrics counts what a process asks of its object store: every request sent (each
// attempt, by S3 operation and the HTTP status it got, or "unanswered" when none came: timeout,
// reset, refused connection), how long each took (a histogram per operation) and how many were
// retries. An operator reads throttling (503 SlowDown), lost permissions (403) or a slow store off
// it without the store's own metrics. There is one set per process (Process()): every S3 client
// records into it, and every /metrics page the process serves (http/listener.h) renders
// it, from the moment the first client exists, whichever command runs.
// Why S3 operations and not methods: PUT is a Part, a piece of a multipart upload or a bucket;
// the label says which, as the store's own request logs and AWS's metrics do.
// Ownership: Process() lives as long as the process. Threads: safe for concurrent use; every
// figure is an atomic, so a scrape may see one request half-counted, never a torn value.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "metrics/drain_metrics.h"

namespace sinkd::metrics {

enum class S3Operation : uint8_t {
  kHeadBucket,
  kCreateBucket,
  kListObjectsV2,
  kHeadObject,
  kGetObject,
  kPutObject,
  kDeleteObject,
  kCreateMultipartUpload,
  kUploadPart,
  kCompleteMultipartUpload,
  kAbortMultipartUpload,
  kOther,  // a request none of the above names (none is sent today)
};
inline constexpr size_t kS3Operations = static_cast<size_t>(S3Operation::kOther) + 1;

// "PutObject", … as the S3 API names the operation.
std::string_view S3OperationName(S3Operation op);

class S3RequestMetrics {
 public:
  // The process's one set.
  static S3RequestMetrics& Process();

  // An S3 client exists: pages render the figures from now on (zeros before the first request).
  void MarkInUse() { in_use_.store(true); }
  // One request (one attempt) that took `seconds`; `status` is the HTTP status it got, 0 for none.
  void Request(S3Operation op, long status, double seconds);
  // A request sent again after a failed attempt.
  void Retry(S3Operation op);

  // Figures for tests and callers that print them.
  uint64_t requests(S3Operation op, long status) const;
  uint64_t retries(S3Operation op) const;
  uint64_t observed(S3Operation op) const;  // the histogram's count

  // The Prometheus text (version 0.0.4) of sinkd_s3_requests_total{operation,code},
  // sinkd_s3_request_duration_seconds{operation} and sinkd_s3_request_retries_total{operation};
  // "" while no client exists, so a command on a local lake serves none of it.
  std::string Render() const;

  S3RequestMetrics();
  S3RequestMetrics(const S3RequestMetrics&) = delete;
  S3RequestMetrics& operator=(const S3RequestMetrics&) = delete;

 private:
  // Index 0 is "unanswered"; 100..599 the HTTP statuses; anything else is counted as 0.
  static constexpr size_t kCodes = 600;
  static size_t CodeIndex(long status);

  std::atomic<bool> in_use_{false};
  std::array<std::array<std::atomic<uint64_t>, kCodes>, kS3Operations> requests_{};
  std::array<std::atomic<uint64_t>, kS3Operations> retries_{};
  // From a HEAD's milliseconds to the 5-minute default --s3-request-timeout of a Part's upload.
  using Seconds = Histogram<14>;
  std::array<Seconds, kS3Operations> seconds_;
};

}  // namespace sinkd::metrics
