// The bytes signed, per AWS's SigV4 specification:
//
//   canonical request = METHOD "\n"
//                       canonical URI "\n"          path as sent, each segment RFC 3986-encoded
//                       canonical query "\n"        encoded k=v, sorted by key then value, '&'
//                       canonical headers "\n"      lowercase-name ":" trimmed-value "\n", sorted
//                       signed headers "\n"         lowercase names joined by ';'
//                       payload hash                hex SHA-256 of the body
//   string to sign    = "AWS4-HMAC-SHA256" "\n" amz-date "\n" scope "\n" hex(SHA-256(canonical))
//   scope             = yyyymmdd "/" region "/" service "/aws4_request"
//   signing key       = HMAC(HMAC(HMAC(HMAC("AWS4"+secret, yyyymmdd), region), service),
//                            "aws4_request")
//   Authorization     = "AWS4-HMAC-SHA256 Credential=" key-id "/" scope ", SignedHeaders="
//                       signed headers ", Signature=" hex(HMAC(signing key, string to sign))
#include "s3/sigv4.h"

#include <algorithm>
#include <cassert>
#include <cctype>
#include <ctime>

#include <fmt/format.h>

#include "s3/crypto.h"

namespace sinkd::s3 {

namespace {

bool Unreserved(unsigned char c) {
  return std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~';
}

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Trims both ends and collapses inner runs of spaces and tabs to one space.
std::string CanonicalHeaderValue(std::string_view value) {
  std::string out;
  bool pending_space = false;
  for (char c : value) {
    if (c == ' ' || c == '\t') {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) out.push_back(' ');
    pending_space = false;
    out.push_back(c);
  }
  return out;
}

}  // namespace

std::string UriEncode(std::string_view text, bool keep_slash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size() + text.size() / 2);
  for (unsigned char c : text) {
    if (Unreserved(c) || (keep_slash && c == '/')) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

std::string CanonicalQueryString(const QueryList& query) {
  std::vector<std::pair<std::string, std::string>> encoded;
  encoded.reserve(query.size());
  for (const auto& [key, value] : query) {
    encoded.emplace_back(UriEncode(key, false), UriEncode(value, false));
  }
  std::sort(encoded.begin(), encoded.end());
  std::string out;
  for (const auto& [key, value] : encoded) {
    if (!out.empty()) out.push_back('&');
    out += key;
    out.push_back('=');
    out += value;
  }
  return out;
}

std::string AmzDate(std::chrono::system_clock::time_point time) {
  const std::time_t secs = std::chrono::system_clock::to_time_t(time);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  return fmt::format("{:04}{:02}{:02}T{:02}{:02}{:02}Z", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

Signature SignV4(const SigningInput& input, const Credentials& credentials,
                 std::string_view region, std::string_view service, std::string_view amz_date) {
  assert(!credentials.anonymous() && input.headers != nullptr);
  // Lowercase names, sorted; a name given twice is one line with its values joined by ','.
  std::vector<std::pair<std::string, std::string>> headers;
  for (const auto& [name, value] : *input.headers) {
    headers.emplace_back(Lower(name), CanonicalHeaderValue(value));
  }
  std::stable_sort(headers.begin(), headers.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::string canonical_headers;
  std::string signed_headers;
  for (size_t i = 0; i < headers.size(); ++i) {
    if (i > 0 && headers[i].first == headers[i - 1].first) {
      canonical_headers.back() = ',';
    } else {
      if (!signed_headers.empty()) signed_headers.push_back(';');
      signed_headers += headers[i].first;
      canonical_headers += headers[i].first;
      canonical_headers.push_back(':');
    }
    canonical_headers += headers[i].second;
    canonical_headers.push_back('\n');
  }

  Signature sig;
  sig.canonical_request = fmt::format(
      "{}\n{}\n{}\n{}\n{}\n{}", input.method,
      input.canonical_uri.empty() ? std::string_view("/") : input.canonical_uri,
      input.query ? CanonicalQueryString(*input.query) : std::string(), canonical_headers,
      signed_headers, input.payload_hash);
  const std::string_view day = amz_date.substr(0, 8);
  const std::string scope = fmt::format("{}/{}/{}/aws4_request", day, region, service);
  sig.string_to_sign = fmt::format("{}\n{}\n{}\n{}", kSigV4Algorithm, amz_date, scope,
                                   Sha256Hex(sig.canonical_request));
  std::string key = HmacSha256("AWS4" + credentials.secret_access_key, day);
  key = HmacSha256(key, region);
  key = HmacSha256(key, service);
  key = HmacSha256(key, "aws4_request");
  sig.signature = HexEncode(HmacSha256(key, sig.string_to_sign));
  sig.signed_headers = std::move(signed_headers);
  sig.authorization = fmt::format("{} Credential={}/{}, SignedHeaders={}, Signature={}",
                                  kSigV4Algorithm, credentials.access_key_id, scope,
                                  sig.signed_headers, sig.signature);
  return sig;
}

}  // namespace sinkd::s3
