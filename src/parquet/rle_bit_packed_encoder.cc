#include "parquet/rle_bit_packed_encoder.h"

#include <array>
#include <bit>
#include <cassert>
#include <cstring>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace sinkd::parquet {
namespace {

// The shortest run worth an RLE header: 8 values fill one bit-packed group, so a shorter repeat
// costs no more packed than it would as a separate run.
constexpr size_t kMinRleRun = 8;

// Packs `groups` groups of 8 values at a width known when compiling: every shift is a constant and
// the 8 values of a group are unrolled, ~2 instructions a value where a loop over a runtime width
// took ~8 (BitPack was 1.2% of an import's instructions, as dictionary indices).
template <int kWidth>
void PackGroups(const uint32_t* values, size_t groups, uint8_t* dst) {
  constexpr int kWords = (8 * kWidth + 63) / 64;
  for (size_t g = 0; g < groups; ++g, values += 8, dst += kWidth) {
    uint64_t words[kWords] = {};
    for (int k = 0; k < 8; ++k) {
      const int bit = k * kWidth;
      const uint64_t v = values[k];
      words[bit / 64] |= v << (bit % 64);
      if (bit % 64 + kWidth > 64) words[bit / 64 + 1] |= v >> (64 - bit % 64);
    }
    std::memcpy(dst, words, kWidth);  // 8 values × kWidth bits = kWidth bytes, little-endian
  }
}

using PackFunction = void (*)(const uint32_t*, size_t, uint8_t*);

template <int... kWidths>
constexpr std::array<PackFunction, sizeof...(kWidths)> PackTable(
    std::integer_sequence<int, kWidths...>) {
  return {PackGroups<kWidths + 1>...};
}

// kPack[w - 1] packs at width w.
constexpr auto kPack = PackTable(std::make_integer_sequence<int, 32>());

void AppendVarint(uint64_t value, ByteBuffer& out) {
  while (value >= 0x80) {
    out.PushBack(static_cast<uint8_t>(value) | 0x80);
    value >>= 7;
  }
  out.PushBack(static_cast<uint8_t>(value));
}

void AppendRleRun(uint32_t value, size_t count, int width, ByteBuffer& out) {
  AppendVarint(static_cast<uint64_t>(count) << 1, out);
  for (int byte = 0; byte < (width + 7) / 8; ++byte) {
    out.PushBack(static_cast<uint8_t>(value >> (8 * byte)));
  }
}

// One bit-packed run of `values` (any count); the tail is padded with zeros to a group of 8.
void AppendBitPackedRun(std::span<const uint32_t> values, int width, ByteBuffer& out) {
  const size_t full = values.size() / 8 * 8;
  const size_t groups = (values.size() + 7) / 8;
  AppendVarint(static_cast<uint64_t>(groups) << 1 | 1, out);
  BitPack(values.first(full), width, out);
  if (full < values.size()) {
    uint32_t padded[8] = {};
    for (size_t i = full; i < values.size(); ++i) padded[i - full] = values[i];
    BitPack(padded, width, out);
  }
}

// Bit k is set when values[k + 1] == values[k], for k in [0, 64). REQUIRES: 65 readable values.
// Branch-free: the neighbours of a page of dictionary indices are equal or not by chance, and a
// loop that stopped at each change paid a mispredicted branch every few values.
uint64_t EqualNeighbours(const uint32_t* values) {
  uint64_t mask = 0;
#if defined(__SSE2__)
  // Four neighbours a compare (gcc does not vectorize the loop below: ~290 instructions a mask).
  for (int k = 0; k < 64; k += 4) {
    const __m128i here = _mm_loadu_si128(reinterpret_cast<const __m128i*>(values + k));
    const __m128i next = _mm_loadu_si128(reinterpret_cast<const __m128i*>(values + k + 1));
    const int equal = _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(here, next)));
    mask |= static_cast<uint64_t>(equal) << k;
  }
#else
  for (int k = 0; k < 64; ++k) mask |= static_cast<uint64_t>(values[k + 1] == values[k]) << k;
#endif
  return mask;
}

// The first maximal run of at least kMinRleRun equal values that starts at or after `from`, as
// [*start, *end); false when there is none. REQUIRES: `from` starts a maximal run.
// 58 starting places at a time: bit k of `eight` says values[at + k, at + k + 8) are equal, and
// the first such k starts a maximal run (had the run begun at k - 1, bit k - 1 would be set; had
// it begun before `at`, an earlier window would have found it). No run of 8 starts in a window
// without a bit, so the next window starts 58 on, possibly inside a shorter run.
bool FindLongRun(std::span<const uint32_t> values, size_t from, size_t* start, size_t* end) {
  const size_t n = values.size();
  size_t at = from;
  for (; at + 65 <= n; at += 58) {
    const uint64_t equal = EqualNeighbours(values.data() + at);
    uint64_t eight = equal;
    for (int shift = 1; shift < static_cast<int>(kMinRleRun) - 1; ++shift) eight &= equal >> shift;
    if (eight != 0) {
      *start = at + static_cast<size_t>(std::countr_zero(eight));
      *end = *start + kMinRleRun;
      while (*end < n && values[*end] == values[*start]) ++*end;
      return true;
    }
  }
  // Fewer than 65 values left: value by value (a run found here cannot have begun before `at`:
  // it would have been long, and found above).
  while (at < n) {
    size_t run_end = at + 1;
    while (run_end < n && values[run_end] == values[at]) ++run_end;
    if (run_end - at >= kMinRleRun) {
      *start = at;
      *end = run_end;
      return true;
    }
    at = run_end;
  }
  return false;
}

}  // namespace

int BitWidthFor(uint32_t count) {
  return count <= 2 ? 1 : std::bit_width(count - 1);
}

void BitPack(std::span<const uint32_t> values, int width, ByteBuffer& out) {
  assert(values.size() % 8 == 0 && width >= 1 && width <= 32);
  // 8 values × width bits = exactly `width` bytes per group, so the run ends on a byte boundary.
  const size_t groups = values.size() / 8;
  uint8_t* dst = out.Extend(groups * static_cast<size_t>(width));
  kPack[width - 1](values.data(), groups, dst);
}

void EncodeRleBitPacked(std::span<const uint32_t> values, int width, ByteBuffer& out) {
  const size_t n = values.size();
  size_t literal_start = 0;  // first value not yet written
  size_t from = 0;           // where the next run of kMinRleRun or more is looked for
  size_t start, run_end;
  while (FindLongRun(values, from, &start, &run_end)) {
    // Bit-packed runs hold whole groups of 8: lend the pending literals the first values of
    // the repeat to complete their last group, if enough of the repeat is left for an RLE run.
    const size_t pending = start - literal_start;
    const size_t lend = (8 - pending % 8) % 8;
    from = run_end;
    if (run_end - start - lend < kMinRleRun) continue;
    start += lend;
    if (start > literal_start) {
      AppendBitPackedRun(values.subspan(literal_start, start - literal_start), width, out);
    }
    AppendRleRun(values[start], run_end - start, width, out);
    literal_start = run_end;
  }
  if (literal_start < n) AppendBitPackedRun(values.subspan(literal_start), width, out);
}

}  // namespace sinkd::parquet
