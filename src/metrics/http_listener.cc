#include "metrics/http_listener.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace sinkd::metrics {

namespace {

void WriteAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

std::string Response(int code, const char* reason, const char* type, const std::string& body) {
  return "HTTP/1.1 " + std::to_string(code) + " " + reason + "\r\nContent-Type: " + type +
         "\r\nContent-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" +
         body;
}

int64_t NowUnixNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

HttpListener::HttpListener(const DrainMetrics& metrics)
    : HttpListener([&metrics] { return metrics.Render(NowUnixNs()); },
                   [&metrics](std::string* why) {
                     *why = metrics.Readiness();
                     return metrics.ready();
                   }) {}

Status HttpListener::Start(const std::string& address) {
  const size_t colon = address.rfind(':');
  if (colon == std::string::npos) {
    return Status::Refuse("--metrics-listen \"" + address + "\": want host:port or :port");
  }
  std::string host = address.substr(0, colon);
  const std::string port = address.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const int rc = ::getaddrinfo(host.empty() ? nullptr : host.c_str(), port.c_str(), &hints, &found);
  if (rc != 0) {
    return Status::Refuse("--metrics-listen \"" + address + "\": " + ::gai_strerror(rc));
  }
  std::string last_error = "no address";
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    int one = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, 16) == 0) {
      sockaddr_storage bound{};
      socklen_t len = sizeof bound;
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&bound), &len);
      port_ = ntohs(bound.ss_family == AF_INET6
                        ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                        : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
      fd_ = fd;
      break;
    }
    last_error = std::strerror(errno);
    ::close(fd);
  }
  ::freeaddrinfo(found);
  if (fd_ < 0) return Status::Refuse("--metrics-listen \"" + address + "\": " + last_error);
  thread_ = std::thread([this] { Serve(); });
  return Status::OK();
}

void HttpListener::Stop() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void HttpListener::Serve() {
  while (!stop_) {
    pollfd p{fd_, POLLIN, 0};
    if (::poll(&p, 1, 200) <= 0) continue;
    int client = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    Answer(client);
    ::close(client);
  }
}

void HttpListener::Answer(int fd) {
  // Read the request head, for at most a second: a scraper sends it at once.
  std::string request;
  char buf[2048];
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  while (request.find("\r\n\r\n") == std::string::npos && request.size() < 16384) {
    pollfd p{fd, POLLIN, 0};
    if (std::chrono::steady_clock::now() > deadline || ::poll(&p, 1, 100) < 0) return;
    if (!(p.revents & POLLIN)) continue;
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    request.append(buf, static_cast<size_t>(n));
  }
  WriteAll(fd, RespondTo(request, render_, ready_));
}

std::string HttpListener::RespondTo(std::string_view request, const Render& render,
                                    const Ready& ready) {
  const size_t sp1 = request.find(' ');
  const size_t sp2 = sp1 == std::string_view::npos ? sp1 : request.find(' ', sp1 + 1);
  if (sp1 == std::string_view::npos || sp2 == std::string_view::npos) {
    return Response(400, "Bad Request", "text/plain", "bad request\n");
  }
  const std::string_view method = request.substr(0, sp1);
  std::string_view path = request.substr(sp1 + 1, sp2 - sp1 - 1);
  path = path.substr(0, path.find('?'));
  if (method != "GET" && method != "HEAD") {
    return Response(405, "Method Not Allowed", "text/plain", "GET only\n");
  }
  if (path == "/metrics") {
    return Response(200, "OK", "text/plain; version=0.0.4; charset=utf-8", render());
  }
  if (path == "/healthz") return Response(200, "OK", "text/plain", "ok\n");
  if (path == "/readyz") {
    std::string why;
    const bool ok = ready(&why);
    return Response(ok ? 200 : 503, ok ? "OK" : "Service Unavailable", "text/plain",
                    (ok ? "ready: " : "not ready: ") + why + "\n");
  }
  return Response(404, "Not Found", "text/plain", "not found\n");
}

}  // namespace sinkd::metrics
