#include "base/redact.h"

#include <cctype>

namespace sinkd {

namespace {

constexpr const char* kMask = "***";

bool SchemeChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '+' || c == '-' || c == '.';
}

bool Blank(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Every scheme://user:password@ and scheme://token@ in `out`, each URL of a list on its own.
void MaskUserInfo(std::string& out) {
  for (size_t p = out.find("://"); p != std::string::npos; p = out.find("://", p + 3)) {
    size_t s = p;
    while (s > 0 && SchemeChar(out[s - 1])) --s;
    const std::string scheme = Lower(out.substr(s, p - s));
    const size_t start = p + 3;
    // The authority ends where the path, query or fragment begins (the next URL of a list
    // begins with a scheme, whose "//" ends it too), or where the surrounding text resumes.
    size_t end = start;
    while (end < out.size() && out[end] != '/' && out[end] != '?' && out[end] != '#' &&
           out[end] != '"' && out[end] != '\'' && !Blank(out[end])) {
      ++end;
    }
    // The last '@': a password may hold an unescaped '@', a host never does.
    const size_t at = out.rfind('@', end == start ? start : end - 1);
    if (at == std::string::npos || at <= start) continue;
    const size_t colon = out.find(':', start);
    if (colon != std::string::npos && colon < at) {
      out.replace(colon + 1, at - colon - 1, kMask);
    } else if (scheme != "postgres" && scheme != "postgresql") {
      // NATS reads a user part without a password as a token; libpq reads it as a user name.
      out.replace(start, at - start, kMask);
    }
  }
}

// The value after every `password` keyword (sslpassword, PASSWORD too) followed by '=', in
// libpq's keyword form or a URL's query.
void MaskPasswordKeywords(std::string& out) {
  const std::string lower = Lower(out);
  std::string result;
  size_t copied = 0;
  for (size_t i = lower.find("password"); i != std::string::npos;
       i = lower.find("password", i + 1)) {
    size_t j = i + 8;
    while (j < out.size() && Blank(out[j])) ++j;
    if (j >= out.size() || out[j] != '=') continue;
    ++j;
    size_t k = i;
    while (k > 0 && (std::isalnum(static_cast<unsigned char>(out[k - 1])) != 0 ||
                     out[k - 1] == '_')) {
      --k;
    }
    const bool query = k > 0 && (out[k - 1] == '?' || out[k - 1] == '&');
    while (j < out.size() && Blank(out[j])) ++j;  // libpq allows blanks after '=' too
    size_t end = j;
    if (query) {
      while (end < out.size() && out[end] != '&' && out[end] != '#' && !Blank(out[end])) ++end;
    } else if (end < out.size() && (out[end] == '\'' || out[end] == '"')) {
      // Quoted: to the closing quote, a backslash escaping the next character (libpq's rule).
      const char quote = out[end++];
      while (end < out.size() && out[end] != quote) end += out[end] == '\\' ? 2 : 1;
      end = end < out.size() ? end + 1 : out.size();
    } else {
      while (end < out.size() && !Blank(out[end])) end += out[end] == '\\' ? 2 : 1;
      end = end < out.size() ? end : out.size();
    }
    result.append(out, copied, j - copied);
    result += kMask;
    copied = end;
    i = end > i ? end - 1 : i;
  }
  if (copied == 0) return;
  result.append(out, copied, std::string::npos);
  out = std::move(result);
}

}  // namespace

std::string RedactPassword(const std::string& conninfo) {
  std::string out = conninfo;
  MaskUserInfo(out);
  MaskPasswordKeywords(out);
  return out;
}

}  // namespace sinkd
