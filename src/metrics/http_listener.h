// HttpListener serves a drain's metrics on a small HTTP/1.1 listener: GET /metrics (Prometheus
// text), /healthz (200 while the process is up) and /readyz (200 when connected, bound to its
// consumer and the destination is reachable; 503 otherwise, naming which is missing). One thread,
// one request per connection, nothing else: it is a scrape target, not a web server.
// Ownership: borrows the DrainMetrics (must outlive the listener); owns its socket and thread.
// Threads: Start/Stop from one thread; serving happens on the listener's own thread.
#pragma once

#include <atomic>
#include <string>
#include <thread>

#include "base/result.h"
#include "metrics/drain_metrics.h"

namespace sinkd::metrics {

class HttpListener {
 public:
  explicit HttpListener(const DrainMetrics& metrics) : metrics_(metrics) {}
  ~HttpListener() { Stop(); }
  HttpListener(const HttpListener&) = delete;
  HttpListener& operator=(const HttpListener&) = delete;

  // Listens on `address` ("host:port", ":port" for every interface; port 0 picks a free one) and
  // starts serving. Refuse when the address cannot be parsed or bound.
  Status Start(const std::string& address);
  void Stop();
  // The port actually bound (useful with port 0).
  int port() const { return port_; }

 private:
  void Serve();
  void Answer(int fd);

  const DrainMetrics& metrics_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace sinkd::metrics
