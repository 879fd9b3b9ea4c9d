// StatusEndpoint serves the dispatcher's figures on a small HTTP/1.1 listener: GET /metrics
// (Prometheus text from `render`), /healthz (200 while the process is up) and /readyz (200 when
// `ready` says so, 503 with its reason otherwise). One thread, one request per connection.
// It mirrors metrics::HttpListener, which is bound to the drain's DrainMetrics; this one takes
// callbacks so the outbox's per-sink figures (read from the database at scrape time) plug in.
// Ownership: owns its socket and thread; the callbacks must stay callable until Stop().
// Threads: Start/Stop from one thread; callbacks run on the listener's thread.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <thread>

#include "base/result.h"

namespace sinkd::outbox {

class StatusEndpoint {
 public:
  using Render = std::function<std::string()>;
  using Ready = std::function<bool(std::string* why)>;

  StatusEndpoint(Render render, Ready ready)
      : render_(std::move(render)), ready_(std::move(ready)) {}
  ~StatusEndpoint() { Stop(); }
  StatusEndpoint(const StatusEndpoint&) = delete;
  StatusEndpoint& operator=(const StatusEndpoint&) = delete;

  // Listens on "host:port" (":port" for every interface; port 0 picks one). Refuse when the
  // address cannot be parsed or bound.
  Status Start(const std::string& address);
  void Stop();
  int port() const { return port_; }

 private:
  void Serve();
  void Answer(int fd);

  Render render_;
  Ready ready_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace sinkd::outbox
