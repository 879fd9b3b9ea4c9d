// Fuzz target for the metrics listener as a client meets it: the input is every byte a client
// sends on one connection, served by http::Listener::ServeConnection over a socketpair
// (cpp-httplib parses; our stream, limits, routing and error handling answer). The answer is empty
// (no request line came) or one well-formed HTTP/1.1 response: a status we expect, Content-Length
// equal to the body (or no body, to a HEAD), /metrics rendered only for a GET or HEAD, 405 only for
// another method — and nothing crashes or waits. cpp-httplib itself is Debian's compiled library,
// not instrumented: libFuzzer's coverage guides through our code only.
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "http/listener.h"

namespace {

[[noreturn]] void Fail(const char* what, std::string_view response) {
  std::fprintf(stderr, "fuzz_http_request: %s\n--- response ---\n%.*s\n", what,
               static_cast<int>(response.size()), response.data());
  std::abort();
}

bool Known(int status) {
  switch (status) {
    case 200:
    case 206:
    case 400:
    case 404:
    case 405:
    case 408:
    case 413:
    case 414:
    case 416:
    case 431:
    case 503:
      return true;
    default:
      return false;
  }
}

// The method as cpp-httplib reads it: the request line is split at spaces, each piece trimmed of
// spaces and tabs, empty pieces skipped, and the method is the first piece left. So " GET /metrics"
// and "GET\t\t /metrics" are served as GETs (each was once failed here as another method, by a
// model that split at the first space only).
std::string_view MethodAsRead(std::string_view request) {
  const std::string_view line = request.substr(0, request.find('\n'));
  const auto blank = [](char c) { return c == ' ' || c == '\t'; };
  for (size_t begin = 0; begin < line.size();) {
    const size_t space = std::min(line.find(' ', begin), line.size());
    size_t b = begin, e = space;
    while (b < e && blank(line[b])) ++b;
    while (e > b && blank(line[e - 1])) --e;
    if (b < e) return line.substr(b, e - b);
    begin = space + 1;
  }
  return {};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 64 * 1024) return 0;  // more than the socketpair holds unread; the limit is 16 KiB
  const std::string_view request(reinterpret_cast<const char*>(data), size);
  // One listener for every input: building cpp-httplib's routes (std::regex) costs more than a run.
  static bool ready = false;
  static int renders = 0;
  static sinkd::http::Listener listener(
      [] {
        ++renders;
        return std::string("sinkd_up 1\n");
      },
      [](std::string* why) {
        *why = ready ? "" : "not connected";
        return ready;
      },
      [] {
        sinkd::http::HttpLimits limits;
        limits.request_timeout =
            std::chrono::milliseconds(500);  // never reached: the input ends first
        return limits;
      }());
  ready = size % 2 == 0;
  renders = 0;

  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) std::abort();
  if (size > 0 && ::send(fds[0], data, size, MSG_NOSIGNAL) != static_cast<ssize_t>(size)) {
    std::abort();
  }
  ::shutdown(fds[0], SHUT_WR);
  listener.ServeConnection(fds[1]);
  std::string response;
  char buf[4096];
  ssize_t n;
  while ((n = ::recv(fds[0], buf, sizeof buf, 0)) > 0) response.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);

  if (response.rfind("HTTP/1.1 100 Continue\r\n\r\n", 0) == 0) response.erase(0, 25);
  if (response.empty()) {
    if (renders != 0) Fail("rendered without answering", response);
    return 0;
  }
  if (response.rfind("HTTP/1.1 ", 0) != 0) Fail("no status line", response);
  const int status = std::atoi(response.c_str() + 9);
  if (!Known(status)) Fail("unknown status", response);
  const size_t head_end = response.find("\r\n\r\n");
  if (head_end == std::string::npos) Fail("no end of head", response);
  const size_t length_at = response.find("Content-Length: ");
  if (length_at == std::string::npos || length_at > head_end) Fail("no Content-Length", response);
  const size_t length = std::strtoul(response.c_str() + length_at + 16, nullptr, 10);
  const size_t body = response.size() - head_end - 4;
  // A request the library took for a HEAD gets the head only. Its reading of the method is its
  // own (leading spaces and tabs skipped, ...), so any request naming HEAD may have no body.
  const bool head = request.find("HEAD") != std::string_view::npos;
  if (body != length && !(head && body == 0)) Fail("Content-Length is not the body's", response);

  const std::string_view method = MethodAsRead(request);
  const bool get_or_head = method == "GET" || method == "HEAD";
  if (renders > 1) Fail("rendered twice", response);
  if (renders == 1 && !get_or_head) Fail("rendered for another method", response);
  if (status == 405 && get_or_head) Fail("405 to a GET or HEAD", response);
  if (status == 503 && ready && renders == 0 && response.find("not ready") != std::string::npos) {
    Fail("not ready while ready", response);
  }
  return 0;
}
