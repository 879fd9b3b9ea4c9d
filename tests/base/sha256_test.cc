#include "base/sha256.h"

#include <string>

#include <gtest/gtest.h>

namespace sinkd {
namespace {

// FIPS 180-4's examples: a lease key or a SigV4 signature built on a wrong digest would name
// another lease or be refused by every store.
TEST(Sha256, KnownVectorsMatch) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(Sha256Hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
      << "a message that pads into a second block";
  EXPECT_EQ(Sha256Hex(std::string(1'000'000, 'a')),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, TheRawDigestIs32BytesAndItsHexIsLowercase) {
  const std::string raw = Sha256("abc");
  ASSERT_EQ(raw.size(), 32u);
  EXPECT_EQ(HexEncode(raw), Sha256Hex("abc"));
  EXPECT_EQ(HexEncode(std::string("\x00\x0f\xa0\xff", 4)), "000fa0ff");
  EXPECT_EQ(HexEncode(""), "");
}

}  // namespace
}  // namespace sinkd
