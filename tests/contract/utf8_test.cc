// IsValidUtf8 must refuse exactly what libprotobuf 3.21 refuses in a proto3 string field: one
// disagreement is an event the hot path drops (or keeps) that the reference keeps (or drops).
#include "base/utf8.h"

#include <google/protobuf/stubs/common.h>
#include <gtest/gtest.h>

#include <random>
#include <string>

namespace sinkd::contract {
namespace {

bool Libprotobuf(const std::string& s) {
  return google::protobuf::internal::IsStructurallyValidUTF8(s.data(), static_cast<int>(s.size()));
}

// Every 1-, 2- and 3-byte string, each alone and behind an ASCII prefix long enough to go
// through the 8-bytes-at-a-time path.
TEST(Utf8, AgreesWithLibprotobufOnEveryStringOfUpToThreeBytes) {
  const std::string prefix = "0123456789abc";
  int disagreements = 0;
  for (uint32_t v = 0; v < (1u << 24); ++v) {
    for (int len = 1; len <= 3; ++len) {
      if (len < 3 && (v >> (8 * len)) != 0) continue;
      std::string s;
      for (int i = 0; i < len; ++i) s.push_back(static_cast<char>(v >> (8 * i)));
      if (IsValidUtf8(s) != Libprotobuf(s) && ++disagreements <= 5) {
        ADD_FAILURE() << "disagree on " << len << " bytes, value " << std::hex << v;
      }
      if ((v & 0xFFF) == 0 && IsValidUtf8(prefix + s) != Libprotobuf(prefix + s)) {
        ADD_FAILURE() << "disagree behind a prefix, value " << std::hex << v;
      }
    }
  }
  EXPECT_EQ(disagreements, 0);
}

// 4-byte sequences: every lead and second byte, the others from the boundary set.
TEST(Utf8, AgreesWithLibprotobufOnFourByteSequences) {
  const uint8_t tails[] = {0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0xBF, 0xC0, 0xF4, 0xFF};
  for (uint32_t lead = 0; lead < 256; ++lead) {
    for (uint32_t second = 0; second < 256; ++second) {
      for (uint8_t third : tails) {
        for (uint8_t fourth : tails) {
          const std::string s = {static_cast<char>(lead), static_cast<char>(second),
                                 static_cast<char>(third), static_cast<char>(fourth)};
          ASSERT_EQ(IsValidUtf8(s), Libprotobuf(s))
              << std::hex << lead << " " << second << " " << int(third) << " " << int(fourth);
        }
      }
    }
  }
}

// Random mixtures of ASCII runs and multi-byte text at every alignment.
TEST(Utf8, AgreesWithLibprotobufOnRandomText) {
  std::mt19937 rng(7);
  const std::string pieces[] = {"a",
                                "hello world",
                                "\xc3\xa9",
                                "\xe2\x80\xa8",
                                "\xf0\x9f\x98\x80",
                                "\xed\x9f\xbf",
                                "\xed\xa0\x80",
                                "\xff",
                                "\xc2",
                                "\x80",
                                "\0"};
  for (int n = 0; n < 200000; ++n) {
    std::string s;
    const int count = static_cast<int>(rng() % 12);
    for (int i = 0; i < count; ++i) s += pieces[rng() % std::size(pieces)];
    ASSERT_EQ(IsValidUtf8(s), Libprotobuf(s)) << s;
  }
}

TEST(Utf8, NamedCases) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8(std::string("\0", 1))) << "NUL is valid UTF-8";
  EXPECT_TRUE(IsValidUtf8("\xef\xbf\xbe")) << "U+FFFE is a noncharacter but well-formed";
  EXPECT_TRUE(IsValidUtf8("\xf4\x8f\xbf\xbf")) << "U+10FFFF";
  EXPECT_FALSE(IsValidUtf8("\xf4\x90\x80\x80")) << "U+110000";
  EXPECT_FALSE(IsValidUtf8("\xed\xa0\x80")) << "a surrogate";
  EXPECT_FALSE(IsValidUtf8("\xc0\xaf")) << "an overlong slash";
  EXPECT_FALSE(IsValidUtf8("abcdefgh\xe2\x82")) << "truncated after a full ASCII word";
}

}  // namespace
}  // namespace sinkd::contract
