#include "base/random_token.h"

#include <gtest/gtest.h>

#include <set>

namespace sinkd {
namespace {

// Names built from tokens (temporary files, upload tokens, probe keys) rely on every digit being
// lowercase hex, the asked length, and two draws differing.
TEST(RandomToken, GivesTheAskedNumberOfLowercaseHexDigitsAndNeverTheSameTwice) {
  EXPECT_EQ(RandomToken().size(), 32u);
  std::set<std::string> seen;
  for (size_t digits : {1u, 7u, 8u, 9u, 16u, 33u}) {
    const std::string token = RandomToken(digits);
    EXPECT_EQ(token.size(), digits);
    EXPECT_EQ(token.find_first_not_of("0123456789abcdef"), std::string::npos) << token;
  }
  for (int i = 0; i < 1000; ++i) seen.insert(RandomToken(16));
  EXPECT_EQ(seen.size(), 1000u);
}

}  // namespace
}  // namespace sinkd
