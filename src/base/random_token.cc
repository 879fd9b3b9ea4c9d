#include "base/random_token.h"

#include <cstdint>
#include <random>

namespace sinkd {

std::string RandomToken(size_t hex_digits) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::random_device random;
  std::string token;
  token.reserve(hex_digits);
  uint32_t bits = 0;
  for (size_t i = 0; i < hex_digits; ++i) {
    if (i % 8 == 0) bits = random();
    token.push_back(kHex[bits & 0xF]);
    bits >>= 4;
  }
  return token;
}

}  // namespace sinkd
