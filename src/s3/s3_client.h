// S3Client sends S3 operations to one bucket: it addresses them (path-style by default, or
// virtual-hosted), adds the integrity headers (x-amz-content-sha256 with the body's real SHA-256,
// Content-MD5), signs them with SigV4 unless anonymous, and retries what the store may answer
// next time (5xx, 429, SlowDown and other throttling codes, timeouts, resets) under a RetryPolicy.
// Every attempt, its answer, its duration and every retry are counted in the process's
// S3RequestMetrics (metrics/s3_request_metrics.h), which every /metrics page renders.
// Ownership: owns its HttpClient (one reused connection); borrows the Logger (must outlive it).
// Threads: one thread at a time.
// Errors: Send returns the store's final answer whatever its status, so callers can read a 404 or
// a 412; it returns a Status only when retries ran out (Retry) or the transport cannot work
// (Refuse: TLS verification, bad URL). Messages name the operation and the object, never a secret.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <string_view>

#include "base/log.h"
#include "base/result.h"
#include "metrics/s3_request_metrics.h"
#include "s3/endpoint.h"
#include "s3/http_client.h"
#include "s3/retry_policy.h"
#include "s3/sigv4.h"

namespace sinkd::s3 {

struct S3ClientOptions {
  Endpoint endpoint;
  std::string bucket;
  std::string region = "us-east-1";
  Credentials credentials;      // anonymous() → unsigned requests
  bool virtual_hosted = false;  // bucket in the host name instead of the first path segment
  HttpOptions http;
  RetryPolicy retry;
};

// One S3 operation before addressing and signing.
struct S3Call {
  std::string method;  // GET, HEAD, PUT, POST, DELETE
  std::string key;     // object key, raw ("" addresses the bucket)
  QueryList query;     // raw parameters; "uploads" with "" is sent as ?uploads
  HeaderList headers;  // operation headers (content-type, if-none-match, …)
  std::string_view body;  // borrowed for the call
};

// What a non-success answer said: status, and the Code and Message of its XML error body.
struct S3Answer {
  long status = 0;
  std::string code;     // "" when the body had none (HEAD has no body)
  std::string message;
  // "403 SignatureDoesNotMatch: The request signature …", with a hint naming the variable to
  // check when the code points at one.
  std::string ToString() const;
};

// The text of the first <tag>…</tag> in `xml`, entities decoded; "" when absent.
std::string XmlValue(std::string_view xml, std::string_view tag);
// Reads status, <Code> and <Message> out of a response.
S3Answer AnswerOf(const HttpResponse& response);
// The S3 API operation `call` is (PutObject, UploadPart, ListObjectsV2, …), for the metrics.
metrics::S3Operation OperationOf(const S3Call& call);
// "\"0cc1…\"" → "0cc1…": ETags arrive quoted, in whatever case the store likes; compared bare.
std::string BareEtag(std::string_view etag);

class S3Client {
 public:
  using Sleep = std::function<void(std::chrono::milliseconds)>;
  using Clock = std::function<std::chrono::system_clock::time_point()>;

  // `sleep` and `clock` default to the real ones; `seed` feeds the backoff jitter.
  S3Client(S3ClientOptions options, Logger& log, Sleep sleep = nullptr, Clock clock = nullptr,
           uint64_t seed = std::random_device{}());

  // The request that goes on the wire for `call` signed at `now`: URL, every header,
  // Authorization last (absent when anonymous). Pure; exposed so tests can re-sign it elsewhere.
  HttpRequest Build(const S3Call& call, std::chrono::system_clock::time_point now) const;

  // Sends `call`, re-signing each attempt, until the store answers something not worth retrying
  // or the attempts run out. See the header comment for what is returned.
  Result<HttpResponse> Send(const S3Call& call);

  // "s3://bucket/key" (or "s3://bucket" for ""), for messages.
  std::string Name(std::string_view key) const;
  const S3ClientOptions& options() const { return options_; }

 private:
  S3ClientOptions options_;
  Logger& log_;
  Sleep sleep_;
  Clock clock_;
  std::mt19937_64 random_;
  HttpClient http_;
};

}  // namespace sinkd::s3
