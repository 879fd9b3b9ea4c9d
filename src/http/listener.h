// Listener serves a process's figures over HTTP/1.1 with cpp-httplib: GET (or HEAD) /metrics
// (Prometheus text from a render callback, followed on every page by sinkd_build_info and the
// process_* metrics of metrics/process_metrics.h, and the S3 request metrics of
// metrics/s3_request_metrics.h once the process has an S3 client), /healthz (200 while the process
// is up) and /readyz (200 when the ready callback says so; 503 otherwise, with its reason); 405 for
// another method, 404 for another path, the query string ignored. It is a scrape target, not a web
// server: one request per connection, and every connection is bounded (Limits) so that no client,
// however slow, malformed or numerous, holds a thread for long — and none can stall the process it
// reports on, whose threads it never blocks. The drain serves its DrainMetrics through it, `sinkd
// dispatch` its per-sink outbox figures and `sinkd compact --follow` its CompactMetrics. What the
// figures are is metrics/'s business; this folder only serves them.
// What a client gets when it misbehaves: a request head or body past max_request_bytes is 431
// (414 for a request line past cpp-httplib's 8 KiB), an incomplete request when request_timeout
// (counted from accept) runs out is 408 (or a close, if not even the request line came), a
// response the client does not read within write_timeout is cut off, and a connection that finds
// every worker busy and max_waiting connections already queued gets 503 at once.
// Ownership: owns its socket and threads; the callbacks (or the DrainMetrics) must stay valid
// until Stop(). Threads: Start/Stop from one thread; the callbacks run on the listener's worker
// threads, up to Limits::threads at once.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "base/result.h"
#include "metrics/drain_metrics.h"

namespace sinkd::http {

// What one client of an Listener may take. The defaults are what production runs
// (docs/design.md, "The metrics listener").
struct HttpLimits {
  // The whole request must have arrived this long after the connection was accepted (time
  // spent waiting for a worker counts).
  std::chrono::milliseconds request_timeout{2000};
  // The whole response must have been taken by the client within this.
  std::chrono::milliseconds write_timeout{5000};
  // Request line, headers and body together.
  size_t max_request_bytes = 16 * 1024;
  // Connections served at once.
  int threads = 4;
  // Accepted connections waiting for a worker; one more gets 503.
  int max_waiting = 64;
};

class Listener {
 public:
  using Render = std::function<std::string()>;
  using Ready = std::function<bool(std::string* why)>;
  using Limits = HttpLimits;

  Listener(Render render, Ready ready, Limits limits = {});
  // Serves a drain's metrics: ready when connected, bound and the destination is reachable.
  explicit Listener(const metrics::DrainMetrics& drain, Limits limits = {});
  ~Listener();
  Listener(const Listener&) = delete;
  Listener& operator=(const Listener&) = delete;

  // Listens on `address` ("host:port", ":port" for every interface, "[v6]:port"; port 0 picks a
  // free one) and starts serving. Refuse when the address cannot be parsed or bound.
  Status Start(const std::string& address);
  // Stops accepting and returns once every connection is done (each is bounded by its Limits).
  void Stop();
  // The port actually bound (useful with port 0).
  int port() const { return port_; }

  // Serves one accepted connection on the calling thread, as a worker does, then closes `fd`.
  // Needs no Start(); fuzz/fuzz_http_request.cc drives it over a socketpair.
  void ServeConnection(int fd);

 private:
  class Server;

  std::unique_ptr<Server> server_;
  int port_ = 0;
  std::thread thread_;
};

}  // namespace sinkd::http
