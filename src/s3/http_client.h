// One HTTP/1.1 connection's worth of client over libcurl: requests go out one at a time on a
// single easy handle, so the TCP (and TLS) connection to the store is reused between them.
// Ownership: owns the CURL handle (RAII); a request's body is borrowed for the call.
// Threads: one thread at a time.
// Errors: a transport failure is Retry when trying again may help (refused, reset, timed out, no
// reply) and Refuse when it cannot (certificate not trusted, CA bundle unreadable, bad URL).
// An HTTP error status is not an error here: the caller reads it from the response.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>

#include "base/result.h"
#include "s3/sigv4.h"

namespace sinkd::s3 {

struct HttpRequest {
  std::string method;  // GET, HEAD, PUT, POST, DELETE
  std::string url;     // absolute, path and query already percent-encoded
  HeaderList headers;  // sent as given (curl adds Content-Length; Expect is suppressed)
  std::string_view body;  // borrowed; must stay valid during Send
};

struct HttpResponse {
  long status = 0;
  HeaderList headers;  // names lowercased, in arrival order
  std::string body;
  // The first header called `name` (lowercase), or "".
  std::string Header(std::string_view name) const;
};

struct HttpOptions {
  std::string ca_bundle;  // PEM file of trusted CAs; "" = the system's. Verification is always on.
  std::chrono::milliseconds connect_timeout{10'000};
  // Whole request; 0 = no limit. Bounds a store that accepts bytes but never answers.
  std::chrono::milliseconds request_timeout{300'000};
  // Less than 1 KiB/s for this long counts as a timeout (a stalled connection).
  std::chrono::seconds stall_timeout{30};
  std::string user_agent = "sinkd";
};

class HttpClient {
 public:
  explicit HttpClient(HttpOptions options);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Sends `request` and reads the whole response. See the header comment for errors.
  Result<HttpResponse> Send(const HttpRequest& request);

 private:
  struct Handle;
  HttpOptions options_;
  std::unique_ptr<Handle> handle_;
};

}  // namespace sinkd::s3
