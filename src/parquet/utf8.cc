#include "parquet/utf8.h"

#include <cstdint>
#include <cstring>

namespace sinkd::parquet {
namespace {

bool IsContinuation(uint8_t byte) { return (byte & 0xC0) == 0x80; }

// Decodes the code point starting at text[at]; returns its length, or 0 if malformed.
size_t DecodeCodePoint(std::string_view text, size_t at, uint32_t& code_point) {
  const auto byte = [&](size_t i) { return static_cast<uint8_t>(text[at + i]); };
  const uint8_t lead = byte(0);
  size_t length;
  uint32_t lower = 0x80;  // bounds of the second byte, which exclude overlongs and surrogates
  uint32_t upper = 0xBF;
  if (lead < 0x80) {
    code_point = lead;
    return 1;
  } else if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
    code_point = lead & 0x1F;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    code_point = lead & 0x0F;
    if (lead == 0xE0) lower = 0xA0;
    if (lead == 0xED) upper = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    code_point = lead & 0x07;
    if (lead == 0xF0) lower = 0x90;
    if (lead == 0xF4) upper = 0x8F;
  } else {
    return 0;
  }
  if (at + length > text.size()) return 0;
  if (byte(1) < lower || byte(1) > upper) return 0;
  for (size_t i = 1; i < length; ++i) {
    if (!IsContinuation(byte(i))) return 0;
    code_point = code_point << 6 | (byte(i) & 0x3F);
  }
  return length;
}

void EncodeCodePoint(uint32_t cp, std::string& out) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | cp >> 6));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | cp >> 12));
    out.push_back(static_cast<char>(0x80 | (cp >> 6 & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | cp >> 18));
    out.push_back(static_cast<char>(0x80 | (cp >> 12 & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp >> 6 & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

}  // namespace

size_t Utf8PrefixLength(std::string_view text, size_t limit) {
  if (limit >= text.size()) return text.size();
  size_t n = limit;
  while (n > 0 && IsContinuation(static_cast<uint8_t>(text[n]))) --n;
  return n;
}

std::optional<std::string> Utf8SuccessorOfPrefix(std::string_view prefix) {
  if (!IsValidUtf8(prefix)) return std::nullopt;
  size_t end = prefix.size();
  while (end > 0) {
    size_t at = end - 1;
    while (at > 0 && IsContinuation(static_cast<uint8_t>(prefix[at]))) --at;
    uint32_t cp = 0;
    DecodeCodePoint(prefix, at, cp);
    uint32_t next = cp + 1;
    if (next >= 0xD800 && next <= 0xDFFF) next = 0xE000;  // surrogates are not scalar values
    if (next <= 0x10FFFF) {
      std::string out(prefix.substr(0, at));
      EncodeCodePoint(next, out);
      return out;
    }
    end = at;  // U+10FFFF has no successor: carry into the code point before it
  }
  return std::nullopt;
}

}  // namespace sinkd::parquet
