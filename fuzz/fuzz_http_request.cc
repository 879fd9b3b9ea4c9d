// Fuzz target for the metrics listener's request handling (metrics::HttpListener::RespondTo):
// whatever bytes a client sends as its request head, the answer is one well-formed HTTP/1.1
// response — a known status, Content-Length equal to the body, and the status the request line
// asks for (405 for another method, 404 for another path) — and nothing crashes.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "metrics/http_listener.h"

namespace {

[[noreturn]] void Fail(const char* what, std::string_view response) {
  std::fprintf(stderr, "fuzz_http_request: %s\n--- response ---\n%.*s\n", what,
               static_cast<int>(response.size()), response.data());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view request(reinterpret_cast<const char*>(data), size);
  const bool ready = size % 2 == 0;
  int renders = 0;
  const std::string response = sinkd::metrics::HttpListener::RespondTo(
      request,
      [&] {
        ++renders;
        return std::string("sinkd_up 1\n");
      },
      [&](std::string* why) {
        *why = ready ? "" : "not connected";
        return ready;
      });

  if (response.rfind("HTTP/1.1 ", 0) != 0) Fail("no status line", response);
  const int status = std::atoi(response.c_str() + 9);
  if (status != 200 && status != 400 && status != 404 && status != 405 && status != 503) {
    Fail("unknown status", response);
  }
  const size_t head_end = response.find("\r\n\r\n");
  if (head_end == std::string::npos) Fail("no end of head", response);
  const size_t length_at = response.find("Content-Length: ");
  if (length_at == std::string::npos || length_at > head_end) Fail("no Content-Length", response);
  const size_t length = std::strtoul(response.c_str() + length_at + 16, nullptr, 10);
  if (length != response.size() - head_end - 4) Fail("Content-Length is not the body's", response);

  // The oracle's own reading of the request line: METHOD SP PATH[?QUERY] SP …
  const size_t sp1 = request.find(' ');
  const size_t sp2 = sp1 == std::string_view::npos ? sp1 : request.find(' ', sp1 + 1);
  int want = 400;
  if (sp2 != std::string_view::npos) {
    const std::string_view method = request.substr(0, sp1);
    std::string_view path = request.substr(sp1 + 1, sp2 - sp1 - 1);
    path = path.substr(0, path.find('?'));
    if (method != "GET" && method != "HEAD") want = 405;
    else if (path == "/metrics" || path == "/healthz") want = 200;
    else if (path == "/readyz") want = ready ? 200 : 503;
    else want = 404;
    if (renders != (want == 200 && path == "/metrics" ? 1 : 0)) Fail("render called wrongly", response);
  }
  if (status != want) Fail("status differs from the request line's", response);
  return 0;
}
