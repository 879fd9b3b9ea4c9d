#include "parquet/rle_bit_packed_encoder.h"

#include <array>
#include <bit>
#include <cassert>
#include <cstring>
#include <utility>

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
  size_t i = 0;
  while (i < n) {
    size_t run_end = i + 1;
    while (run_end < n && values[run_end] == values[i]) ++run_end;
    if (run_end - i < kMinRleRun) {
      i = run_end;
      continue;
    }
    // Bit-packed runs hold whole groups of 8: lend the pending literals the first values of
    // the repeat to complete their last group, if enough of the repeat is left for an RLE run.
    const size_t pending = i - literal_start;
    const size_t lend = (8 - pending % 8) % 8;
    if (run_end - i - lend < kMinRleRun) {
      i = run_end;
      continue;
    }
    i += lend;
    if (i > literal_start) AppendBitPackedRun(values.subspan(literal_start, i - literal_start),
                                              width, out);
    AppendRleRun(values[i], run_end - i, width, out);
    i = run_end;
    literal_start = run_end;
  }
  if (literal_start < n) AppendBitPackedRun(values.subspan(literal_start), width, out);
}

}  // namespace sinkd::parquet
