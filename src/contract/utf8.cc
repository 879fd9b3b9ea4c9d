#include "contract/utf8.h"

#include <bit>
#include <cstdint>
#include <cstring>

namespace sinkd::contract {
namespace {

static_assert(std::endian::native == std::endian::little, "the word-at-a-time scan assumes it");

constexpr uint64_t kHighBits = 0x8080808080808080ULL;

inline bool IsContinuation(uint8_t byte) { return (byte & 0xC0) == 0x80; }

// Length of the well-formed multi-byte sequence starting at p (whose first byte is >= 0x80), or
// 0 when it is not one. The second byte's range is what excludes overlong forms, surrogates and
// code points above U+10FFFF (RFC 3629, section 4).
inline size_t SequenceLength(const uint8_t* p, const uint8_t* end) {
  const uint8_t lead = p[0];
  const size_t left = static_cast<size_t>(end - p);
  if (lead >= 0xC2 && lead <= 0xDF) return left >= 2 && IsContinuation(p[1]) ? 2 : 0;
  if (lead >= 0xE0 && lead <= 0xEF) {
    if (left < 3) return 0;
    const uint8_t lo = lead == 0xE0 ? 0xA0 : 0x80;
    const uint8_t hi = lead == 0xED ? 0x9F : 0xBF;
    return p[1] >= lo && p[1] <= hi && IsContinuation(p[2]) ? 3 : 0;
  }
  if (lead >= 0xF0 && lead <= 0xF4) {
    if (left < 4) return 0;
    const uint8_t lo = lead == 0xF0 ? 0x90 : 0x80;
    const uint8_t hi = lead == 0xF4 ? 0x8F : 0xBF;
    return p[1] >= lo && p[1] <= hi && IsContinuation(p[2]) && IsContinuation(p[3]) ? 4 : 0;
  }
  return 0;  // a continuation byte, C0/C1 (always overlong) or F5..FF
}

}  // namespace

bool IsValidUtf8Slow(std::string_view text) {
  const auto* p = reinterpret_cast<const uint8_t*>(text.data());
  const uint8_t* const end = p + text.size();
  while (true) {
    // Skip ASCII a word at a time; stop on the first byte with its high bit set.
    while (end - p >= 8) {
      uint64_t word;
      std::memcpy(&word, p, 8);
      const uint64_t high = word & kHighBits;
      if (high != 0) {
        p += std::countr_zero(high) / 8;  // little-endian: the lowest set bit is the first byte
        break;
      }
      p += 8;
    }
    while (p < end && *p < 0x80) ++p;
    if (p == end) return true;
    const size_t n = SequenceLength(p, end);
    if (n == 0) return false;
    p += n;
  }
}

}  // namespace sinkd::contract
