// SplitBlockBloomFilter is Parquet's Bloom filter (BloomFilter.md; parquet-format.md §5.5): z
// blocks of 32 bytes, each 8 little-endian 32-bit words. A value's hash h is XXH64 (seed 0) of
// its PLAIN bytes without a length prefix; block = ((h >> 32) × z) >> 32, and for i in 0..7 the
// bit (x × salt[i]) >> 27 of word i is set, x being the low 32 bits of h.
// On disk: BloomFilterHeader (Thrift) then the bitset; ColumnMetaData's bloom_filter_length
// covers both.
// Ownership: owns its bitset. Threads: one thread at a time.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace sinkd::parquet {

// XXH64 with seed 0, the hash the format fixes.
uint64_t BloomHash(std::string_view plain_bytes);

template <typename T>
uint64_t BloomHashOf(T value) {
  return BloomHash(std::string_view(reinterpret_cast<const char*>(&value), sizeof value));
}

class SplitBlockBloomFilter {
 public:
  // Limits from Arrow's reader: a power of two in [32 B, 128 MiB].
  static constexpr size_t kMinBytes = 32;
  static constexpr size_t kMaxBytes = 128u << 20;

  // The bitset size for `distinct_values` at false-positive rate `fpp`: m = -8·n / ln(1 − fpp^(1/8))
  // bits, rounded up to a power of two bytes within the limits.
  static size_t OptimalBytes(uint64_t distinct_values, double fpp);

  // REQUIRES: num_bytes is a power of two within the limits.
  explicit SplitBlockBloomFilter(size_t num_bytes);

  void Insert(uint64_t hash);
  bool MightContain(uint64_t hash) const;

  // The bitset as it goes to disk (little-endian words).
  std::span<const uint8_t> bytes() const {
    return {reinterpret_cast<const uint8_t*>(words_.data()), words_.size() * 4};
  }

 private:
  size_t BlockOf(uint64_t hash) const;

  std::vector<uint32_t> words_;
};

}  // namespace sinkd::parquet
