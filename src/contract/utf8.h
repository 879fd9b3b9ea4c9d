// UTF-8 well-formedness as libprotobuf 3.21 checks proto3 `string` fields on parse: RFC 3629 UTF-8,
// so no overlong forms, no surrogates (U+D800..U+DFFF), nothing above U+10FFFF, no truncated
// sequence; NUL and noncharacters (U+FFFE) are valid. A string field that fails makes
// Event::ParseFromArray fail, so the hand-written decoder must refuse exactly the same strings.
// Threads: pure functions, share freely.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace sinkd::contract {

// True when `text` is well-formed UTF-8.
inline bool IsValidUtf8(std::string_view text);

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

}  // namespace sinkd::contract
