// Portable randomness for the traffic generator: the same seed gives the same numbers on every
// machine, compiler and standard library. Internal to src/traffic and its tests.
// Threads: an Rng is one thread at a time; a WeightedChoice is immutable, share freely.
// Why not <random>: std::lognormal_distribution and friends are implementation-defined, so the
// "same seed, same bytes" promise would break between libstdc++ and libc++, or across versions.
// Why no libm: exp/log/pow are not correctly rounded and differ between libms by an ulp, which
// moves a rounded token count now and then. Only + - * / and exact operations are used, in .cc
// files compiled with -ffp-contract=off (gcc contracts a*b+c into an FMA by default, even in
// ISO C++ mode, and only where the target has FMA).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace sinkd::traffic {

// One step of splitmix64: advances `state` and returns a well-mixed 64-bit value. Also used to
// derive stable pseudo-random values (prompt hashes) from a number.
uint64_t SplitMix64(uint64_t& state);

// xoshiro256** (Blackman & Vigna), seeded through splitmix64 so that nearby seeds give unrelated
// streams. `stream` separates independent sequences drawn from one seed.
class Rng {
 public:
  Rng(uint64_t seed, uint64_t stream);

  uint64_t Next() {
    const uint64_t result = Rotl(s_[1] * 5, 7) * 9;
    const uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = Rotl(s_[3], 45);
    return result;
  }

  // Uniform in [0, n), without modulo bias (Lemire's multiply-and-reject). REQUIRES: n > 0.
  uint64_t Below(uint64_t n);
  // Uniform in [lo, hi]. REQUIRES: lo <= hi.
  int64_t Between(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(Below(hi - lo + 1)); }
  // Uniform in [0, 1) with 53 random bits; exact, so portable.
  double Uniform() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }
  // True with probability p (p <= 0 never, p >= 1 always).
  bool Chance(double p) { return Uniform() < p; }
  // Approximately standard normal: the Irwin-Hall sum of twelve 16-bit uniforms, so it is an
  // integer sum scaled once (exact) and bounded by +-6.
  double Normal();
  // exp(N(log(median), sigma^2)), i.e. a lognormal with the given median.
  double LogNormal(double median, double sigma);

 private:
  static uint64_t Rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  uint64_t s_[4];
};

// e^x from + - * / and ldexp only; accurate to a few ulps, identical everywhere. Saturates
// outside [-700, 700].
double PortableExp(double x);

// Draws an index with probability proportional to its weight. Immutable after construction.
class WeightedChoice {
 public:
  WeightedChoice() = default;
  // REQUIRES: weights non-empty, all >= 0, sum > 0.
  explicit WeightedChoice(std::span<const double> weights);
  size_t Draw(Rng& rng) const;
  size_t size() const { return cumulative_.size(); }

 private:
  std::vector<double> cumulative_;
};

// Zipf-Mandelbrot weights 1/(rank + 1 + q) for ranks 0..n-1: exponent 1, so no pow() is needed;
// q flattens the head (q = 0 is classic Zipf, where rank 0 takes 1/H(n) of the draws).
WeightedChoice ZipfChoice(size_t n, double q);

}  // namespace sinkd::traffic
