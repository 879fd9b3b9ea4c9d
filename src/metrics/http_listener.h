// HttpListener serves a process's figures on a small HTTP/1.1 listener: GET /metrics (Prometheus
// text from a render callback), /healthz (200 while the process is up) and /readyz (200 when the
// ready callback says so; 503 otherwise, with its reason). One thread, one request per
// connection, nothing else: it is a scrape target, not a web server. The drain serves its
// DrainMetrics through it and `sinkd dispatch` its per-sink outbox figures.
// Ownership: owns its socket and thread; the callbacks (or the DrainMetrics) must stay valid
// until Stop(). Threads: Start/Stop from one thread; callbacks run on the listener's thread.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <string_view>
#include <thread>

#include "base/result.h"
#include "metrics/drain_metrics.h"

namespace sinkd::metrics {

class HttpListener {
 public:
  using Render = std::function<std::string()>;
  using Ready = std::function<bool(std::string* why)>;

  HttpListener(Render render, Ready ready)
      : render_(std::move(render)), ready_(std::move(ready)) {}
  // Serves a drain's metrics: ready when connected, bound and the destination is reachable.
  explicit HttpListener(const DrainMetrics& metrics);
  ~HttpListener() { Stop(); }
  HttpListener(const HttpListener&) = delete;
  HttpListener& operator=(const HttpListener&) = delete;

  // Listens on `address` ("host:port", ":port" for every interface; port 0 picks a free one) and
  // starts serving. Refuse when the address cannot be parsed or bound.
  Status Start(const std::string& address);
  void Stop();
  // The port actually bound (useful with port 0).
  int port() const { return port_; }

  // The whole answer to one request (its head as read from the socket, possibly cut short or
  // garbage): 400 without a request line, 405 unless GET or HEAD, then /metrics, /healthz,
  // /readyz or 404; the query string is ignored. A pure function of its input and the callbacks'
  // answers, so fuzz/fuzz_http_request.cc can drive it without a socket.
  static std::string RespondTo(std::string_view request, const Render& render, const Ready& ready);

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

}  // namespace sinkd::metrics
