// UTF-8 well-formedness, RFC 3629: no overlong forms, no surrogates (U+D800..U+DFFF), nothing
// above U+10FFFF, no truncated sequence; NUL and noncharacters (U+FFFE) are valid. It is one
// definition for the whole pipeline because three parties must agree on it: libprotobuf 3.21
// refuses exactly these strings in proto3 `string` fields (so the decoder must too), Go's
// encoding/json replaces exactly these bytes (row/json_text), and DuckDB refuses a Parquet STRING
// column holding anything else (so the writer checks it).
// Threads: pure functions, share freely.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace sinkd {

// True when `text` is well-formed UTF-8.
inline bool IsValidUtf8(std::string_view text);

// Length of the well-formed multi-byte sequence starting at p (whose first byte is >= 0x80), or
// 0 when it is not one: a continuation byte, C0/C1 (always overlong), F5..FF, a truncated
// sequence, or a second byte out of range (which is what excludes overlong forms, surrogates and
// code points above U+10FFFF, RFC 3629 section 4). REQUIRES: p < end.
inline size_t Utf8SequenceLength(const uint8_t* p, const uint8_t* end) {
  const auto continuation = [](uint8_t byte) { return (byte & 0xC0) == 0x80; };
  const uint8_t lead = p[0];
  const size_t left = static_cast<size_t>(end - p);
  if (lead >= 0xC2 && lead <= 0xDF) return left >= 2 && continuation(p[1]) ? 2 : 0;
  if (lead >= 0xE0 && lead <= 0xEF) {
    if (left < 3) return 0;
    const uint8_t lo = lead == 0xE0 ? 0xA0 : 0x80;
    const uint8_t hi = lead == 0xED ? 0x9F : 0xBF;
    return p[1] >= lo && p[1] <= hi && continuation(p[2]) ? 3 : 0;
  }
  if (lead >= 0xF0 && lead <= 0xF4) {
    if (left < 4) return 0;
    const uint8_t lo = lead == 0xF0 ? 0x90 : 0x80;
    const uint8_t hi = lead == 0xF4 ? 0x8F : 0xBF;
    return p[1] >= lo && p[1] <= hi && continuation(p[2]) && continuation(p[3]) ? 4 : 0;
  }
  return 0;
}

// The part of IsValidUtf8 that decodes multi-byte sequences; out of line because the hot path
// (short ASCII identifiers) never needs it.
bool IsValidUtf8Slow(std::string_view text);

// Inline because it runs once per string field: the common case, ASCII, is a few word loads
// ORed together (overlapping at the end, so no byte loop and no read outside `text`).
inline bool IsValidUtf8(std::string_view text) {
  constexpr uint64_t kHighBits = 0x8080808080808080ULL;
  const char* p = text.data();
  const size_t n = text.size();
  uint64_t any = 0;
  if (n >= 8) {
    uint64_t word;
    for (size_t i = 0; i + 8 <= n; i += 8) {
      std::memcpy(&word, p + i, 8);
      any |= word;
    }
    std::memcpy(&word, p + n - 8, 8);
    any |= word;
  } else if (n >= 4) {
    uint32_t head, tail;
    std::memcpy(&head, p, 4);
    std::memcpy(&tail, p + n - 4, 4);
    any = head | tail;
  } else {
    for (size_t i = 0; i < n; ++i) any |= static_cast<uint8_t>(p[i]);
  }
  return (any & kHighBits) == 0 || IsValidUtf8Slow(text);
}

}  // namespace sinkd
