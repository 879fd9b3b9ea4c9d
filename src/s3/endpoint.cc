#include "s3/endpoint.h"

#include <algorithm>
#include <cctype>

namespace sinkd::s3 {

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string Quoted(std::string_view raw) { return "s3 endpoint \"" + std::string(raw) + "\""; }

bool ValidPort(std::string_view port) {
  if (port.empty() || port.size() > 5) return false;
  if (!std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return false;
  }
  const int value = std::stoi(std::string(port));
  return value >= 1 && value <= 65535;
}

}  // namespace

Result<Endpoint> ParseEndpoint(std::string_view raw, bool ssl) {
  std::string_view text = Trim(raw);
  Endpoint endpoint;
  endpoint.tls = ssl;
  if (const size_t sep = text.find("://"); sep != std::string_view::npos) {
    std::string scheme(text.substr(0, sep));
    std::transform(scheme.begin(), scheme.end(), scheme.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    if (scheme == "http") {
      endpoint.tls = false;
    } else if (scheme == "https") {
      endpoint.tls = true;
    } else {
      return Status::Refuse(Quoted(raw) + ": scheme \"" + std::string(text.substr(0, sep)) +
                            "\" is not http or https");
    }
    text.remove_prefix(sep + 3);
  }
  if (!text.empty() && text.back() == '/') text.remove_suffix(1);
  // A password in the endpoint would be printed by every message that names the endpoint.
  if (text.find('@') != std::string_view::npos) {
    return Status::Refuse(
        "s3 endpoint carries a user or password before '@': take it out, and export "
        "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY instead");
  }
  if (text.empty()) return Status::Refuse(Quoted(raw) + " names no host");
  if (text.find_first_of("/?#") != std::string_view::npos) {
    return Status::Refuse(Quoted(raw) + " names a path; it must be host:port");
  }
  if (std::any_of(text.begin(), text.end(),
                  [](unsigned char c) { return std::isspace(c) || std::iscntrl(c); })) {
    return Status::Refuse(Quoted(raw) + " has a space in its host");
  }
  std::string_view host = text;
  std::string_view port;
  if (host.front() == '[') {  // [IPv6]:port
    const size_t close = host.find(']');
    if (close == std::string_view::npos) return Status::Refuse(Quoted(raw) + " has an unclosed '['");
    if (close + 1 < host.size()) {
      if (host[close + 1] != ':') return Status::Refuse(Quoted(raw) + " has junk after ']'");
      port = host.substr(close + 2);
      if (!ValidPort(port)) return Status::Refuse(Quoted(raw) + " has a bad port");
    }
  } else if (const size_t colon = host.rfind(':'); colon != std::string_view::npos) {
    port = host.substr(colon + 1);
    if (colon == 0) return Status::Refuse(Quoted(raw) + " names no host");
    if (!ValidPort(port)) return Status::Refuse(Quoted(raw) + " has a bad port");
  }
  endpoint.host = std::string(text);
  return endpoint;
}

}  // namespace sinkd::s3
