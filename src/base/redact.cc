#include "base/redact.h"

namespace sinkd {

std::string RedactPassword(const std::string& conninfo) {
  std::string out = conninfo;
  // URL form: scheme://user:password@host…
  const size_t scheme = out.find("://");
  if (scheme != std::string::npos) {
    const size_t start = scheme + 3;
    const size_t at = out.find('@', start);
    const size_t colon = out.find(':', start);
    if (at != std::string::npos && colon != std::string::npos && colon < at) {
      out.replace(colon + 1, at - colon - 1, "***");
    }
  }
  // Keyword form, and a password in the URL's query: password=…
  for (size_t p = out.find("password="); p != std::string::npos; p = out.find("password=", p + 1)) {
    const size_t value = p + 9;
    size_t end = value;
    if (end < out.size() && out[end] == '\'') {
      end = out.find('\'', end + 1);
      end = end == std::string::npos ? out.size() : end + 1;
    } else {
      while (end < out.size() && out[end] != ' ' && out[end] != '&') ++end;
    }
    out.replace(value, end - value, "***");
  }
  return out;
}

}  // namespace sinkd
