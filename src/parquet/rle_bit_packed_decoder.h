// The reader's side of the RLE / bit-packed hybrid (rle_bit_packed_encoder.h has the format):
// definition levels, dictionary indices and RLE booleans. Bounded for untrusted input: a run
// never reads past the buffer, and a value wider than `width` bits is refused.
// A bit-packed run whose last bytes are missing still yields the values that are present (some
// writers leave the padding of the final group out).
// Ownership: borrows the bytes, which must outlive the decoder. Threads: one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <algorithm>

namespace sinkd::parquet {

class RleBitPackedDecoder {
 public:
  // REQUIRES: 0 <= width <= 32.
  RleBitPackedDecoder(const uint8_t* data, size_t size, int width);

  // Decodes the next `n` values into out[0..n). Returns nullptr, or why the input cannot hold them
  // (then the decoder is spent).
  const char* Decode(uint32_t* out, size_t n);

 private:
  const char* NextRun();

  const uint8_t* at_;
  const uint8_t* end_;
  int width_;
  uint64_t mask_;
  // The current run: `left` values remain; an RLE run repeats `value`, a bit-packed one reads
  // from `packed` through the bit accumulator.
  bool rle_ = true;
  uint64_t left_ = 0;
  uint32_t value_ = 0;
  uint64_t acc_ = 0;
  int bits_ = 0;
  const uint8_t* packed_end_ = nullptr;
};

}  // namespace sinkd::parquet
