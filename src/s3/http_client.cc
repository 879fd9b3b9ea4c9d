#include "s3/http_client.h"

#include <curl/curl.h>
#include <strings.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>

namespace sinkd::s3 {

namespace {

struct ReadCursor {
  std::string_view whole;
  std::string_view rest;
};

size_t ReadBody(char* out, size_t size, size_t count, void* data) {
  auto* cursor = static_cast<ReadCursor*>(data);
  const size_t n = std::min(size * count, cursor->rest.size());
  std::memcpy(out, cursor->rest.data(), n);
  cursor->rest.remove_prefix(n);
  return n;
}

// curl rewinds a body to send it again on a fresh connection when a reused one turns out closed.
int SeekBody(void* data, curl_off_t offset, int origin) {
  auto* cursor = static_cast<ReadCursor*>(data);
  if (origin != SEEK_SET || offset < 0 || static_cast<size_t>(offset) > cursor->whole.size()) {
    return CURL_SEEKFUNC_CANTSEEK;
  }
  cursor->rest = cursor->whole.substr(static_cast<size_t>(offset));
  return CURL_SEEKFUNC_OK;
}

size_t WriteBody(char* in, size_t size, size_t count, void* data) {
  static_cast<HttpResponse*>(data)->body.append(in, size * count);
  return size * count;
}

size_t WriteHeader(char* in, size_t size, size_t count, void* data) {
  auto* response = static_cast<HttpResponse*>(data);
  std::string_view line(in, size * count);
  // A new status line (after "100 Continue", or a redirect) starts a new set of headers.
  if (line.rfind("HTTP/", 0) == 0) {
    response->headers.clear();
    return size * count;
  }
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return size * count;
  std::string name(line.substr(0, colon));
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  std::string_view value = line.substr(colon + 1);
  while (!value.empty() && std::isspace(static_cast<unsigned char>(value.front()))) {
    value.remove_prefix(1);
  }
  while (!value.empty() && std::isspace(static_cast<unsigned char>(value.back()))) {
    value.remove_suffix(1);
  }
  response->headers.emplace_back(std::move(name), std::string(value));
  return size * count;
}

bool Transient(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_WEIRD_SERVER_REPLY:
    case CURLE_SEND_FAIL_REWIND:
      return true;
    default:
      return false;
  }
}

struct SList {
  curl_slist* list = nullptr;
  ~SList() { curl_slist_free_all(list); }
  void Add(const std::string& line) { list = curl_slist_append(list, line.c_str()); }
};

}  // namespace

struct HttpClient::Handle {
  CURL* curl = curl_easy_init();
  ~Handle() { curl_easy_cleanup(curl); }
};

std::string HttpResponse::Header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (key == name) return value;
  }
  return "";
}

HttpClient::HttpClient(HttpOptions options)
    : options_(std::move(options)), handle_(std::make_unique<Handle>()) {}

HttpClient::~HttpClient() = default;

Result<HttpResponse> HttpClient::Send(const HttpRequest& request) {
  CURL* curl = handle_->curl;
  if (curl == nullptr) return Status::Internal("curl_easy_init failed");
  // Reset forgets the options of the last request but keeps its connection open for this one.
  curl_easy_reset(curl);
  char error[CURL_ERROR_SIZE] = {0};
  HttpResponse response;
  ReadCursor cursor{request.body, request.body};
  SList headers;
  for (const auto& [name, value] : request.headers) headers.Add(name + ": " + value);
  // An "Expect: 100-continue" round trip per large PUT buys nothing from a store that answers
  // anyway, and some proxies mishandle it.
  headers.Add("Expect:");
  // curl would label a POST body form data; S3 reads the label of a CreateMultipartUpload as the
  // object's Content-Type, so send none unless the caller gave one.
  const bool has_type = std::any_of(request.headers.begin(), request.headers.end(), [](auto& h) {
    return strcasecmp(h.first.c_str(), "content-type") == 0;
  });
  if (request.method == "POST" && !has_type) headers.Add("Content-Type:");

  curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers.list);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, options_.user_agent.c_str());
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
  if (!options_.ca_bundle.empty()) curl_easy_setopt(curl, CURLOPT_CAINFO, options_.ca_bundle.c_str());
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(options_.connect_timeout.count()));
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(options_.request_timeout.count()));
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1024L);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, static_cast<long>(options_.stall_timeout.count()));
  curl_easy_setopt(curl, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, WriteBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, WriteHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &response);

  if (request.method == "HEAD") {
    curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
  } else if (request.method == "GET") {
    curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
  } else if (request.method == "PUT") {
    curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(curl, CURLOPT_READFUNCTION, ReadBody);
    curl_easy_setopt(curl, CURLOPT_READDATA, &cursor);
    curl_easy_setopt(curl, CURLOPT_SEEKFUNCTION, SeekBody);
    curl_easy_setopt(curl, CURLOPT_SEEKDATA, &cursor);
    curl_easy_setopt(curl, CURLOPT_INFILESIZE_LARGE,
                     static_cast<curl_off_t>(request.body.size()));
  } else if (request.method == "POST") {
    curl_easy_setopt(curl, CURLOPT_POST, 1L);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(request.body.size()));
  } else {
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }

  const CURLcode code = curl_easy_perform(curl);
  if (code != CURLE_OK) {
    const std::string what = std::string(curl_easy_strerror(code)) +
                             (error[0] ? std::string(": ") + error : std::string());
    return Transient(code) ? Status::Retry(what) : Status::Refuse(what);
  }
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response.status);
  return response;
}

}  // namespace sinkd::s3
