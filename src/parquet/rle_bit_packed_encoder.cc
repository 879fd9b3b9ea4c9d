#include "parquet/rle_bit_packed_encoder.h"

#include <bit>
#include <cassert>
#include <cstring>

namespace sinkd::parquet {
namespace {

// The shortest run worth an RLE header: 8 values fill one bit-packed group, so a shorter repeat
// costs no more packed than it would as a separate run.
constexpr size_t kMinRleRun = 8;

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
  uint8_t* dst = out.Extend(values.size() / 8 * static_cast<size_t>(width));
  // A 64-bit accumulator: fewer than 32 bits are pending before each value is added, so a value
  // of up to 32 bits always fits, and whole 32-bit words are stored as they fill.
  uint64_t pending = 0;
  int bits = 0;
  for (uint32_t v : values) {
    pending |= static_cast<uint64_t>(v) << bits;
    bits += width;
    if (bits >= 32) {
      const uint32_t word = static_cast<uint32_t>(pending);
      std::memcpy(dst, &word, 4);
      dst += 4;
      pending >>= 32;
      bits -= 32;
    }
  }
  for (; bits > 0; bits -= 8, pending >>= 8) *dst++ = static_cast<uint8_t>(pending);
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
