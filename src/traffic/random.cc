#include "traffic/random.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace sinkd::traffic {

uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

Rng::Rng(uint64_t seed, uint64_t stream) {
  uint64_t state = seed ^ (stream * 0xD1B54A32D192ED03ULL);
  for (uint64_t& word : s_) word = SplitMix64(state);
}

uint64_t Rng::Below(uint64_t n) {
  assert(n > 0);
  __uint128_t m = static_cast<__uint128_t>(Next()) * n;
  uint64_t low = static_cast<uint64_t>(m);
  if (low < n) {
    const uint64_t threshold = (0 - n) % n;
    while (low < threshold) {
      m = static_cast<__uint128_t>(Next()) * n;
      low = static_cast<uint64_t>(m);
    }
  }
  return static_cast<uint64_t>(m >> 64);
}

double Rng::Normal() {
  // Three 64-bit draws give twelve 16-bit uniforms. Their sum has mean 12 * 32767.5 and variance
  // 12 * (65536^2 - 1) / 12, so dividing the centred sum by 65536 gives variance ~1.
  int64_t sum = 0;
  for (int i = 0; i < 3; ++i) {
    const uint64_t word = Next();
    sum += static_cast<int64_t>(word & 0xFFFF) + static_cast<int64_t>((word >> 16) & 0xFFFF) +
           static_cast<int64_t>((word >> 32) & 0xFFFF) + static_cast<int64_t>(word >> 48);
  }
  // 2 * sum - 12 * 65535 is an exact integer; one division by a power of two is exact too.
  return static_cast<double>(2 * sum - 12 * 65535) / 131072.0;
}

double Rng::LogNormal(double median, double sigma) {
  return median * PortableExp(sigma * Normal());
}

double PortableExp(double x) {
  if (x > 700.0) x = 700.0;
  if (x < -700.0) return 0.0;
  // x = k ln2 + r with |r| <= ln2/2; ln2 split in two so that k * kLn2Hi is exact.
  constexpr double kInvLn2 = 1.4426950408889634;
  constexpr double kLn2Hi = 6.93147180369123816490e-01;
  constexpr double kLn2Lo = 1.90821492927058770002e-10;
  const double k = std::floor(x * kInvLn2 + 0.5);
  const double r = (x - k * kLn2Hi) - k * kLn2Lo;
  // Taylor series to r^13 / 13! in Horner form, with the coefficients 1/n! as constants (no
  // divisions: 13 dependent ones made this the slowest function of the generator). The remainder
  // is below 1e-17 for |r| <= 0.35.
  constexpr double kInverseFactorials[14] = {1.0,
                                             1.0,
                                             1.0 / 2,
                                             1.0 / 6,
                                             1.0 / 24,
                                             1.0 / 120,
                                             1.0 / 720,
                                             1.0 / 5040,
                                             1.0 / 40320,
                                             1.0 / 362880,
                                             1.0 / 3628800,
                                             1.0 / 39916800,
                                             1.0 / 479001600,
                                             1.0 / 6227020800.0};
  double p = kInverseFactorials[13];
  for (int n = 12; n >= 0; --n) p = p * r + kInverseFactorials[n];
  return std::ldexp(p, static_cast<int>(k));
}

WeightedChoice::WeightedChoice(std::span<const double> weights) {
  assert(!weights.empty());
  cumulative_.reserve(weights.size());
  double total = 0;
  for (double w : weights) {
    assert(w >= 0);
    total += w;
    cumulative_.push_back(total);
  }
  assert(total > 0);
}

size_t WeightedChoice::Draw(Rng& rng) const {
  const double target = rng.Uniform() * cumulative_.back();
  const auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), target);
  // A target equal to the total (impossible but for rounding) falls back to the last index.
  return std::min<size_t>(it - cumulative_.begin(), cumulative_.size() - 1);
}

WeightedChoice ZipfChoice(size_t n, double q) {
  std::vector<double> weights(n);
  for (size_t i = 0; i < n; ++i) weights[i] = 1.0 / (static_cast<double>(i) + 1.0 + q);
  return WeightedChoice(weights);
}

}  // namespace sinkd::traffic
