#include "base/size.h"

#include <array>

namespace sinkd {

namespace {

struct SizeUnit {
  std::string_view name;
  uint64_t bytes;
};

// Largest first, so FormatSize picks the biggest unit that divides.
constexpr std::array<SizeUnit, 5> kSizeUnits = {{{"TiB", uint64_t{1} << 40},
                                                 {"GiB", uint64_t{1} << 30},
                                                 {"MiB", uint64_t{1} << 20},
                                                 {"KiB", uint64_t{1} << 10},
                                                 {"B", 1}}};

char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool SameLetters(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (Lower(a[i]) != Lower(b[i])) return false;
  }
  return true;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

Result<uint64_t> ParseSize(std::string_view text) {
  std::string quoted(1, '"');  // built by appends: gcc 12 warns falsely on "lit" + string
  quoted.append(text).push_back('"');
  const auto refuse = [&](std::string_view why) {
    std::string message = "size " + quoted;
    message.append(": ").append(why);
    return Status::Refuse(message);
  };
  if (text.empty()) return Status::Refuse("empty size");
  if (text[0] == '-') return refuse("must not be negative");
  size_t i = 0;
  // Exact integer arithmetic (no double): 1.1KiB must be refused, not rounded to 1126 bytes.
  unsigned __int128 whole = 0, fraction = 0, scale = 1;
  while (i < text.size() && IsDigit(text[i])) {
    whole = whole * 10 + static_cast<unsigned>(text[i++] - '0');
    if (whole > UINT64_MAX) return refuse("does not fit in 64 bits");
  }
  const bool has_whole = i > 0;
  if (i < text.size() && text[i] == '.') {
    ++i;
    const size_t start = i;
    while (i < text.size() && IsDigit(text[i])) {
      if (i - start == 12) return refuse("has more than 12 decimals");
      fraction = fraction * 10 + static_cast<unsigned>(text[i++] - '0');
      scale *= 10;
    }
    if (start == i && !has_whole) return refuse("expected a number");
  } else if (!has_whole) {
    return refuse("expected a number of bytes, or one with a unit (B, KiB, MiB, GiB, TiB)");
  }
  while (i < text.size() && text[i] == ' ') ++i;
  const std::string_view unit = text.substr(i);
  uint64_t unit_bytes = 0;
  if (unit.empty()) {
    unit_bytes = 1;
  } else {
    for (const SizeUnit& u : kSizeUnits) {
      if (SameLetters(unit, u.name)) unit_bytes = u.bytes;
    }
  }
  if (unit_bytes == 0) {
    std::string why = "unknown unit \"";
    why.append(unit).append("\"; the units are B, KiB, MiB, GiB and TiB (powers of 1024)");
    return refuse(why);
  }
  // whole < 2^64 and fraction < 10^12, times a unit <= 2^40: no product leaves 128 bits.
  const unsigned __int128 fraction_bytes = fraction * unit_bytes;
  if (fraction_bytes % scale != 0) return refuse("is not a whole number of bytes");
  const unsigned __int128 bytes = whole * unit_bytes + fraction_bytes / scale;
  if (bytes > UINT64_MAX) return refuse("does not fit in 64 bits");
  return static_cast<uint64_t>(bytes);
}

std::string FormatSize(uint64_t bytes) {
  if (bytes == 0) return "0";
  for (const SizeUnit& u : kSizeUnits) {
    if (u.bytes > 1 && bytes % u.bytes == 0) {
      return std::to_string(bytes / u.bytes).append(u.name);
    }
  }
  return std::to_string(bytes);
}

}  // namespace sinkd
