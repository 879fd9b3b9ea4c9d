#include "s3/s3_client.h"

#include <algorithm>
#include <cctype>
#include <thread>

#include <fmt/format.h>

#include "base/base64.h"
#include "s3/crypto.h"

namespace sinkd::s3 {

namespace {

// Codes S3 and S3-compatible stores use to say "too fast" or "not now"; AWS's SDKs retry these.
bool RetryableCode(std::string_view code) {
  static constexpr std::string_view kCodes[] = {
      "SlowDown",           "Throttling",          "ThrottlingException",
      "ThrottledException", "RequestThrottled",    "RequestThrottledException",
      "TooManyRequestsException", "RequestLimitExceeded", "BandwidthLimitExceeded",
      "RequestTimeout",     "RequestTimeoutException", "PriorRequestNotComplete",
      "InternalError",      "ServiceUnavailable",  "ConditionalRequestConflict"};
  return std::find(std::begin(kCodes), std::end(kCodes), code) != std::end(kCodes);
}

// 501 Not Implemented is permanent: retrying a feature the store lacks cannot help.
bool Retryable(const S3Answer& a) {
  if (a.status >= 500 && a.status != 501) return true;
  if (a.status == 429 || a.status == 408) return true;
  return a.status >= 400 && RetryableCode(a.code);
}

bool IsErrorDocument(std::string_view body) {
  auto skip_space = [&body] {
    while (!body.empty() && std::isspace(static_cast<unsigned char>(body.front()))) {
      body.remove_prefix(1);
    }
  };
  skip_space();
  if (body.substr(0, 5) == "<?xml") {
    const size_t end = body.find("?>");
    if (end == std::string_view::npos) return false;
    body.remove_prefix(end + 2);
    skip_space();
  }
  return body.substr(0, 7) == "<Error>";
}

std::string DecodeEntities(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '&') {
      out.push_back(text[i]);
      continue;
    }
    static constexpr std::pair<std::string_view, char> kEntities[] = {
        {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
    bool matched = false;
    for (const auto& [entity, c] : kEntities) {
      if (text.substr(i, entity.size()) == entity) {
        out.push_back(c);
        i += entity.size() - 1;
        matched = true;
        break;
      }
    }
    if (!matched) out.push_back('&');
  }
  return out;
}

std::string_view ReasonPhrase(long status) {
  switch (status) {
    case 400: return "Bad Request";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 409: return "Conflict";
    case 412: return "Precondition Failed";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    default: return "";
  }
}

}  // namespace

std::string XmlValue(std::string_view xml, std::string_view tag) {
  const std::string open = fmt::format("<{}>", tag);
  const std::string close = fmt::format("</{}>", tag);
  const size_t begin = xml.find(open);
  if (begin == std::string_view::npos) return "";
  const size_t end = xml.find(close, begin + open.size());
  if (end == std::string_view::npos) return "";
  return DecodeEntities(xml.substr(begin + open.size(), end - begin - open.size()));
}

metrics::S3Operation OperationOf(const S3Call& call) {
  using Op = metrics::S3Operation;
  auto has = [&call](std::string_view name) {
    return std::any_of(call.query.begin(), call.query.end(),
                       [name](const auto& param) { return param.first == name; });
  };
  const bool bucket = call.key.empty();
  if (call.method == "HEAD") return bucket ? Op::kHeadBucket : Op::kHeadObject;
  if (call.method == "GET") {
    if (bucket) return has("list-type") ? Op::kListObjectsV2 : Op::kOther;
    return Op::kGetObject;
  }
  if (call.method == "PUT") {
    if (bucket) return Op::kCreateBucket;
    return has("partNumber") ? Op::kUploadPart : Op::kPutObject;
  }
  if (call.method == "POST" && !bucket) {
    if (has("uploads")) return Op::kCreateMultipartUpload;
    if (has("uploadId")) return Op::kCompleteMultipartUpload;
  }
  if (call.method == "DELETE" && !bucket) {
    return has("uploadId") ? Op::kAbortMultipartUpload : Op::kDeleteObject;
  }
  return Op::kOther;
}

std::string BareEtag(std::string_view etag) {
  std::string out;
  for (char c : etag) {
    if (c != '"') out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

S3Answer AnswerOf(const HttpResponse& response) {
  S3Answer a;
  a.status = response.status;
  a.code = XmlValue(response.body, "Code");
  a.message = XmlValue(response.body, "Message");
  // A HEAD answer has no body; some stores put the code in a header instead.
  if (a.code.empty()) a.code = response.Header("x-amz-error-code");
  if (a.message.empty()) a.message = response.Header("x-amz-error-message");
  return a;
}

std::string S3Answer::ToString() const {
  std::string out = std::to_string(status);
  if (!code.empty()) {
    out += ' ';
    out += code;
  } else if (!ReasonPhrase(status).empty()) {
    out += ' ';
    out += ReasonPhrase(status);
  }
  if (!message.empty()) out += ": " + message;
  if (code == "SignatureDoesNotMatch") out += " (check AWS_SECRET_ACCESS_KEY)";
  if (code == "InvalidAccessKeyId") out += " (check AWS_ACCESS_KEY_ID)";
  if (code == "InvalidToken" || code == "ExpiredToken") out += " (check AWS_SESSION_TOKEN)";
  return out;
}

S3Client::S3Client(S3ClientOptions options, Logger& log, Sleep sleep, Clock clock, uint64_t seed)
    : options_(std::move(options)),
      log_(log),
      sleep_(sleep ? std::move(sleep)
                   : [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); }),
      clock_(clock ? std::move(clock) : [] { return std::chrono::system_clock::now(); }),
      random_(seed),
      http_(options_.http) {
  metrics::S3RequestMetrics::Process().MarkInUse();
}

std::string S3Client::Name(std::string_view key) const {
  return key.empty() ? fmt::format("s3://{}", options_.bucket)
                     : fmt::format("s3://{}/{}", options_.bucket, key);
}

HttpRequest S3Client::Build(const S3Call& call, std::chrono::system_clock::time_point now) const {
  const S3ClientOptions& o = options_;
  const std::string host = o.virtual_hosted ? o.bucket + "." + o.endpoint.host : o.endpoint.host;
  std::string path;
  if (!o.virtual_hosted) {
    path += '/';
    path += UriEncode(o.bucket, false);
  }
  if (!call.key.empty() || o.virtual_hosted) {
    path += '/';
    path += UriEncode(call.key, true);
  }
  // The URL carries the query in canonical order, so what is sent is what is signed.
  QueryList sorted = call.query;
  std::sort(sorted.begin(), sorted.end());
  std::string query;
  for (const auto& [name, value] : sorted) {
    query += query.empty() ? "?" : "&";
    query += UriEncode(name, false);
    if (!value.empty()) {
      query += '=';
      query += UriEncode(value, false);
    }
  }

  HttpRequest request;
  request.method = call.method;
  request.url = std::string(o.endpoint.scheme()) + "://" + host + path + query;
  request.body = call.body;
  const std::string payload_hash = Sha256Hex(call.body);
  HeaderList& h = request.headers;
  h.emplace_back("host", host);
  h.emplace_back("x-amz-content-sha256", payload_hash);
  // The store checks the bytes it received against this before it keeps them.
  if (call.method == "PUT" || !call.body.empty()) {
    h.emplace_back("content-md5", Base64Encode(Md5(call.body)));
  }
  for (const auto& header : call.headers) h.push_back(header);
  if (o.credentials.anonymous()) return request;

  const std::string amz_date = AmzDate(now);
  h.emplace_back("x-amz-date", amz_date);
  if (!o.credentials.session_token.empty()) {
    h.emplace_back("x-amz-security-token", o.credentials.session_token);
  }
  SigningInput input;
  input.method = call.method;
  input.canonical_uri = path;  // never empty: "/bucket…" or "/key…"
  input.query = &call.query;
  input.headers = &h;
  input.payload_hash = payload_hash;
  Signature signature = SignV4(input, o.credentials, o.region, "s3", amz_date);
  h.emplace_back("authorization", std::move(signature.authorization));
  return request;
}

Result<HttpResponse> S3Client::Send(const S3Call& call) {
  const std::string what = call.method + " " + Name(call.key);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  metrics::S3RequestMetrics& counted = metrics::S3RequestMetrics::Process();
  const metrics::S3Operation operation = OperationOf(call);
  for (int attempt = 1;; ++attempt) {
    if (attempt > 1) counted.Retry(operation);
    const auto started = std::chrono::steady_clock::now();
    Result<HttpResponse> sent = http_.Send(Build(call, clock_()));
    std::string failure;
    if (sent.ok()) {
      // S3 may answer CompleteMultipartUpload with 200 and then an <Error> body (it starts the
      // response before it knows); that is a failure, reported (and counted) as the 500 it
      // stands for.
      if (sent->status == 200 && call.method == "POST" && IsErrorDocument(sent->body)) {
        sent->status = 500;
      }
    }
    counted.Request(operation, sent.ok() ? sent->status : 0,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - started)
                        .count());
    if (sent.ok()) {
      const S3Answer answer = AnswerOf(*sent);
      if (!Retryable(answer)) return sent;
      failure = answer.ToString();
    } else if (!sent.status().IsRetry()) {
      return sent.status().WithContext(what);
    } else {
      failure = sent.status().message();
    }
    if (attempt >= options_.retry.attempts) {
      return Status::Retry(fmt::format("{}: gave up after {} attempts; the last said {}", what,
                                       attempt, failure));
    }
    const std::chrono::milliseconds wait = options_.retry.backoff.Wait(attempt, unit(random_));
    log_.Warn("s3 request failed; retrying",
              {{"request", what}, {"attempt", attempt}, {"wait_ms", int64_t{wait.count()}},
               {"error", failure}});
    sleep_(wait);
  }
}

}  // namespace sinkd::s3
