#include "base/duration.h"

#include <cmath>
#include <cstdint>

#include <fmt/format.h>

namespace sinkd {

Result<std::chrono::nanoseconds> ParseDuration(std::string_view text) {
  std::string quoted(1, '"');  // built by appends: gcc 12 warns falsely on "lit" + string
  quoted.append(text).push_back('"');
  if (text == "0") return std::chrono::nanoseconds(0);
  if (text.empty()) return Status::Refuse("empty duration");
  if (text[0] == '-') return Status::Refuse("duration " + quoted + " must not be negative");
  if (text[0] == '+') text.remove_prefix(1);
  long double total = 0;
  size_t i = 0;
  while (i < text.size()) {
    size_t start = i;
    while (i < text.size() && ((text[i] >= '0' && text[i] <= '9') || text[i] == '.')) ++i;
    if (start == i) return Status::Refuse("duration " + quoted + ": expected a number");
    const std::string number(text.substr(start, i - start));
    size_t unit_start = i;
    while (i < text.size() && !((text[i] >= '0' && text[i] <= '9') || text[i] == '.')) ++i;
    const std::string_view unit = text.substr(unit_start, i - unit_start);
    long double scale = 0;
    if (unit == "ns") scale = 1;
    else if (unit == "us" || unit == "\xC2\xB5s" || unit == "\xCE\xBCs") scale = 1e3;
    else if (unit == "ms") scale = 1e6;
    else if (unit == "s") scale = 1e9;
    else if (unit == "m") scale = 60e9;
    else if (unit == "h") scale = 3600e9;
    else if (unit.empty()) return Status::Refuse("duration " + quoted + ": missing unit (ms, s, m, h)");
    else return Status::Refuse("duration " + quoted + ": unknown unit \"" + std::string(unit) + "\"");
    char* end = nullptr;
    const long double value = std::strtold(number.c_str(), &end);
    if (end != number.c_str() + number.size() || number == ".") {
      return Status::Refuse("duration " + quoted + ": bad number \"" + number + "\"");
    }
    total += value * scale;
  }
  if (total > static_cast<long double>(INT64_MAX)) {
    return Status::Refuse("duration " + quoted + " is too long");
  }
  return std::chrono::nanoseconds(static_cast<int64_t>(std::llround(total)));
}

std::string FormatDuration(std::chrono::nanoseconds d) {
  int64_t ns = d.count();
  if (ns == 0) return "0s";
  std::string sign = ns < 0 ? "-" : "";
  uint64_t u = ns < 0 ? static_cast<uint64_t>(-(ns + 1)) + 1 : static_cast<uint64_t>(ns);
  auto trim = [](std::string s) {
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
  };
  if (u < 1000) return sign + std::to_string(u) + "ns";
  if (u < 1000000) return sign + trim(fmt::format("{}.{:03}", u / 1000, u % 1000)) + "\xC2\xB5s";
  if (u < 1000000000) return sign + trim(fmt::format("{}.{:06}", u / 1000000, u % 1000000)) + "ms";
  const uint64_t h = u / 3600000000000ULL;
  u -= h * 3600000000000ULL;
  const uint64_t m = u / 60000000000ULL;
  u -= m * 60000000000ULL;
  std::string secs = trim(fmt::format("{}.{:09}", u / 1000000000ULL, u % 1000000000ULL));
  std::string out = sign;
  if (h > 0) out += std::to_string(h) + "h";
  if (h > 0 || m > 0) out += std::to_string(m) + "m";
  return out + secs + "s";
}

}  // namespace sinkd
