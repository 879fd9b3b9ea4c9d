#include "parquet/bloom_filter.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>

#include <xxhash.h>

namespace sinkd::parquet {
namespace {

constexpr uint32_t kSalt[8] = {0x47b6137bu, 0x44974d91u, 0x8824ad5bu, 0xa2b7289du,
                               0x705495c7u, 0x2df1424bu, 0x9efc4947u, 0x5c6bfb31u};

// The bitset is read as little-endian words, which is the host order.
static_assert(std::endian::native == std::endian::little);

}  // namespace

uint64_t BloomHash(std::string_view plain_bytes) {
  return XXH64(plain_bytes.data(), plain_bytes.size(), 0);
}

size_t SplitBlockBloomFilter::OptimalBytes(uint64_t distinct_values, double fpp) {
  if (distinct_values == 0 || !(fpp > 0.0 && fpp < 1.0)) return kMinBytes;
  const double bits = -8.0 * static_cast<double>(distinct_values) /
                      std::log(1.0 - std::pow(fpp, 1.0 / 8.0));
  const double bytes = std::ceil(bits / 8.0);
  if (bytes >= static_cast<double>(kMaxBytes)) return kMaxBytes;
  return std::max(kMinBytes, std::bit_ceil(static_cast<size_t>(bytes)));
}

SplitBlockBloomFilter::SplitBlockBloomFilter(size_t num_bytes) : words_(num_bytes / 4, 0) {
  assert(std::has_single_bit(num_bytes) && num_bytes >= kMinBytes && num_bytes <= kMaxBytes);
}

size_t SplitBlockBloomFilter::BlockOf(uint64_t hash) const {
  const uint64_t blocks = words_.size() / 8;
  return static_cast<size_t>(((hash >> 32) * blocks) >> 32);
}

void SplitBlockBloomFilter::Insert(uint64_t hash) {
  uint32_t* block = &words_[BlockOf(hash) * 8];
  const auto x = static_cast<uint32_t>(hash);
  for (int i = 0; i < 8; ++i) block[i] |= 1u << ((x * kSalt[i]) >> 27);
}

bool SplitBlockBloomFilter::MightContain(uint64_t hash) const {
  const uint32_t* block = &words_[BlockOf(hash) * 8];
  const auto x = static_cast<uint32_t>(hash);
  for (int i = 0; i < 8; ++i) {
    if ((block[i] & (1u << ((x * kSalt[i]) >> 27))) == 0) return false;
  }
  return true;
}

}  // namespace sinkd::parquet
