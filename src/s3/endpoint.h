// Where the object store is: --s3-endpoint (or AWS_ENDPOINT_URL) parsed into a scheme and a
// host[:port]. A URL's scheme decides TLS; a bare host:port uses --s3-ssl (default: plain HTTP,
// which is what a store on loopback or inside a cluster usually speaks).
// Threads: pure functions. Errors: Refuse, quoting what was given (never when it holds a password).
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"

namespace sinkd::s3 {

struct Endpoint {
  bool tls = false;
  std::string host;  // "host" or "host:port" as given: no scheme, no path, no trailing '/'
  const char* scheme() const { return tls ? "https" : "http"; }
};

// Trims whitespace and one trailing '/'. "http://" and "https://" set TLS and override `ssl`;
// any other scheme, an empty host, a path, a query, a bad port or a user:password@ is refused.
//   "127.0.0.1:28333" → http;  "s3.example:9000" + ssl → https;  "http://seaweedfs:8333/" → http;
//   "https://s3.example" → https;  "http://seaweedfs:8333/garm-lake", "s3://x", "" → Refuse.
Result<Endpoint> ParseEndpoint(std::string_view raw, bool ssl);

}  // namespace sinkd::s3
