#include "parquet/rle_bit_packed_decoder.h"

namespace sinkd::parquet {

RleBitPackedDecoder::RleBitPackedDecoder(const uint8_t* data, size_t size, int width)
    : at_(data), end_(data + size), width_(width),
      mask_(width >= 32 ? 0xFFFFFFFFull : (1ull << width) - 1) {}

const char* RleBitPackedDecoder::NextRun() {
  uint64_t header = 0;
  for (int shift = 0;; shift += 7) {
    if (at_ == end_) return "truncated run header";
    if (shift > 28) return "run header too long";
    const uint8_t b = *at_++;
    header |= static_cast<uint64_t>(b & 0x7F) << shift;
    if (!(b & 0x80)) break;
  }
  if (header & 1) {
    const uint64_t groups = header >> 1;
    const uint64_t bytes = groups * static_cast<uint64_t>(width_);
    const uint64_t present = std::min<uint64_t>(bytes, static_cast<uint64_t>(end_ - at_));
    rle_ = false;
    left_ = width_ == 0 ? groups * 8 : std::min<uint64_t>(groups * 8, present * 8 / width_);
    acc_ = 0;
    bits_ = 0;
    // The run's bytes are read through the accumulator as values are taken; `end_` bounds it.
    packed_end_ = at_ + present;
    return nullptr;
  }
  const uint64_t count = header >> 1;
  const int value_bytes = (width_ + 7) / 8;
  if (end_ - at_ < value_bytes) return "truncated run value";
  uint64_t v = 0;
  for (int k = 0; k < value_bytes; ++k) v |= static_cast<uint64_t>(*at_++) << (8 * k);
  if (v > mask_) return "a run value is wider than the bit width";
  rle_ = true;
  left_ = count;
  value_ = static_cast<uint32_t>(v);
  return nullptr;
}

const char* RleBitPackedDecoder::Decode(uint32_t* out, size_t n) {
  while (n > 0) {
    if (left_ == 0) {
      if (!rle_) at_ = packed_end_;  // skip the padding of the finished run
      rle_ = true;
      if (const char* error = NextRun()) {
        at_ = end_;
        left_ = 0;
        return error;
      }
      continue;
    }
    const size_t take = static_cast<size_t>(std::min<uint64_t>(left_, n));
    if (rle_) {
      for (size_t i = 0; i < take; ++i) out[i] = value_;
    } else if (width_ == 0) {
      for (size_t i = 0; i < take; ++i) out[i] = 0;
    } else {
      const uint8_t* p = at_;
      uint64_t acc = acc_;
      int bits = bits_;
      for (size_t i = 0; i < take; ++i) {
        while (bits < width_) {
          acc |= static_cast<uint64_t>(*p++) << bits;
          bits += 8;
        }
        out[i] = static_cast<uint32_t>(acc & mask_);
        acc >>= width_;
        bits -= width_;
      }
      at_ = p;
      acc_ = acc;
      bits_ = bits;
    }
    out += take;
    n -= take;
    left_ -= take;
  }
  return nullptr;
}

}  // namespace sinkd::parquet
