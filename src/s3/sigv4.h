// AWS Signature Version 4, header form, as S3 checks it: canonical request → string to sign →
// HMAC chain from "AWS4"+secret → Authorization header. Our own code over OpenSSL, proven against
// AWS's published examples and against botocore (tests/s3/sigv4_test.cc, botocore_test.cc).
// Threads: pure functions. Errors: none; a wrong input gives a signature the store refuses.
// Never puts the secret anywhere but into the first HMAC: not in a result, a log or a Status.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace sinkd::s3 {

// Who signs. An empty access key id means anonymous (unsigned requests).
struct Credentials {
  std::string access_key_id;
  std::string secret_access_key;  // secret: never logged, never in an error
  std::string session_token;      // "" for a long-lived key; sent as x-amz-security-token
  bool anonymous() const { return access_key_id.empty(); }
};

using HeaderList = std::vector<std::pair<std::string, std::string>>;
// Query parameters, raw (not yet percent-encoded); a parameter with no value has "".
using QueryList = std::vector<std::pair<std::string, std::string>>;

inline constexpr char kSigV4Algorithm[] = "AWS4-HMAC-SHA256";
inline constexpr char kEmptySha256[] =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

// RFC 3986 percent-encoding as SigV4 wants it: A-Z a-z 0-9 - . _ ~ stay, every other byte becomes
// %XX (uppercase hex). With `keep_slash`, '/' stays too: an object key's path segments are each
// encoded, so a hive key "date=2026-01-01/app=x" becomes "date%3D2026-01-01/app%3Dx".
std::string UriEncode(std::string_view text, bool keep_slash);

// "k1=v1&k2=v2": keys and values encoded, sorted by key then value; "" for no parameters.
std::string CanonicalQueryString(const QueryList& query);

// The x-amz-date form of a time: "20130524T000000Z" (UTC, whole seconds).
std::string AmzDate(std::chrono::system_clock::time_point time);

struct SigningInput {
  std::string_view method;         // "GET", "PUT", …
  std::string_view canonical_uri;  // the path exactly as sent (already encoded), "/" at least
  const QueryList* query = nullptr;    // may be null: no query
  const HeaderList* headers = nullptr;  // every header to sign; must hold host and x-amz-date
  std::string_view payload_hash;   // hex SHA-256 of the body (what x-amz-content-sha256 says)
};

struct Signature {
  std::string canonical_request;  // for debugging a mismatch: holds no secret
  std::string string_to_sign;
  std::string signed_headers;     // "host;x-amz-content-sha256;x-amz-date"
  std::string signature;          // 64 lowercase hex digits
  std::string authorization;      // the whole Authorization header value
};

// Signs `input` with `credentials` for `region`/`service` at `amz_date` (AmzDate form).
// REQUIRES: !credentials.anonymous(); input.headers non-null.
Signature SignV4(const SigningInput& input, const Credentials& credentials,
                 std::string_view region, std::string_view service, std::string_view amz_date);

}  // namespace sinkd::s3
