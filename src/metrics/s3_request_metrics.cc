#include "metrics/s3_request_metrics.h"

#include <fmt/format.h>

namespace sinkd::metrics {

std::string_view S3OperationName(S3Operation op) {
  switch (op) {
    case S3Operation::kHeadBucket: return "HeadBucket";
    case S3Operation::kCreateBucket: return "CreateBucket";
    case S3Operation::kListObjectsV2: return "ListObjectsV2";
    case S3Operation::kHeadObject: return "HeadObject";
    case S3Operation::kGetObject: return "GetObject";
    case S3Operation::kPutObject: return "PutObject";
    case S3Operation::kDeleteObject: return "DeleteObject";
    case S3Operation::kCreateMultipartUpload: return "CreateMultipartUpload";
    case S3Operation::kUploadPart: return "UploadPart";
    case S3Operation::kCompleteMultipartUpload: return "CompleteMultipartUpload";
    case S3Operation::kAbortMultipartUpload: return "AbortMultipartUpload";
    case S3Operation::kOther: return "Other";
  }
  return "Other";
}

S3RequestMetrics& S3RequestMetrics::Process() {
  static S3RequestMetrics metrics;
  return metrics;
}

S3RequestMetrics::S3RequestMetrics() {
  for (Seconds& h : seconds_) {
    h.bounds = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300};
  }
}

size_t S3RequestMetrics::CodeIndex(long status) {
  return status >= 100 && status < static_cast<long>(kCodes) ? static_cast<size_t>(status) : 0;
}

void S3RequestMetrics::Request(S3Operation op, long status, double seconds) {
  const auto o = static_cast<size_t>(op);
  requests_[o][CodeIndex(status)].fetch_add(1);
  seconds_[o].Observe(seconds);
}

void S3RequestMetrics::Retry(S3Operation op) { retries_[static_cast<size_t>(op)].fetch_add(1); }

uint64_t S3RequestMetrics::requests(S3Operation op, long status) const {
  return requests_[static_cast<size_t>(op)][CodeIndex(status)].load();
}
uint64_t S3RequestMetrics::retries(S3Operation op) const {
  return retries_[static_cast<size_t>(op)].load();
}
uint64_t S3RequestMetrics::observed(S3Operation op) const {
  return seconds_[static_cast<size_t>(op)].count.load();
}

std::string S3RequestMetrics::Render() const {
  if (!in_use_.load()) return "";
  std::string out;
  auto head = [&out](std::string_view name, std::string_view type, std::string_view help) {
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
  };
  // Only the operations and codes that happened: a series per possible status would be noise.
  head("sinkd_s3_requests_total", "counter",
       "S3 requests sent (each attempt), by operation and HTTP status; code=\"unanswered\" when "
       "none came (timeout, reset, refused).");
  for (size_t o = 0; o < kS3Operations; ++o) {
    const std::string_view name = S3OperationName(static_cast<S3Operation>(o));
    for (size_t c = 0; c < kCodes; ++c) {
      const uint64_t n = requests_[o][c].load();
      if (n == 0) continue;
      out += fmt::format("sinkd_s3_requests_total{{operation=\"{}\",code=\"{}\"}} {}\n", name,
                         c == 0 ? std::string("unanswered") : std::to_string(c), n);
    }
  }
  head("sinkd_s3_request_duration_seconds", "histogram",
       "Time from sending an S3 request to its answer (or its failure), by operation.");
  for (size_t o = 0; o < kS3Operations; ++o) {
    const Seconds& h = seconds_[o];
    if (h.count.load() == 0) continue;
    const std::string_view name = S3OperationName(static_cast<S3Operation>(o));
    uint64_t cumulative = 0;
    for (size_t i = 0; i < h.counts.size(); ++i) {
      cumulative += h.counts[i].load();
      const std::string le = i < h.bounds.size() ? fmt::format("{}", h.bounds[i]) : "+Inf";
      out += fmt::format(
          "sinkd_s3_request_duration_seconds_bucket{{operation=\"{}\",le=\"{}\"}} {}\n", name,
          le, cumulative);
    }
    out += fmt::format("sinkd_s3_request_duration_seconds_sum{{operation=\"{}\"}} {}\n", name,
                       h.sum.load());
    out += fmt::format("sinkd_s3_request_duration_seconds_count{{operation=\"{}\"}} {}\n", name,
                       h.count.load());
  }
  // Every operation, zeros too, so that rate() over retries starts from the first scrape.
  head("sinkd_s3_request_retries_total", "counter",
       "S3 requests sent again after a failed attempt (5xx, throttling, timeout, reset), by "
       "operation.");
  for (size_t o = 0; o < kS3Operations; ++o) {
    out += fmt::format("sinkd_s3_request_retries_total{{operation=\"{}\"}} {}\n",
                       S3OperationName(static_cast<S3Operation>(o)), retries_[o].load());
  }
  return out;
}

}  // namespace sinkd::metrics
