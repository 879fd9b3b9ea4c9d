#include "base/utf8.h"

#include <bit>
#include <cstdint>
#include <cstring>

namespace sinkd {
namespace {

static_assert(std::endian::native == std::endian::little, "the word-at-a-time scan assumes it");

constexpr uint64_t kHighBits = 0x8080808080808080ULL;

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
    const size_t n = Utf8SequenceLength(p, end);
    if (n == 0) return false;
    p += n;
  }
}

}  // namespace sinkd
