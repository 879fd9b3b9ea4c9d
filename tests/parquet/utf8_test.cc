#include "parquet/utf8.h"

#include <gtest/gtest.h>

namespace sinkd::parquet {
namespace {

// DuckDB rejects the whole file over one invalid value, so the check must match its definition.
TEST(Utf8, ValidityFollowsTheUnicodeDefinition) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("plain ascii that is longer than eight bytes"));
  EXPECT_TRUE(IsValidUtf8("naïve café 日本語 🎉"));
  EXPECT_TRUE(IsValidUtf8("\xF4\x8F\xBF\xBF"));   // U+10FFFF
  EXPECT_FALSE(IsValidUtf8("\xC0\xAF"));          // overlong '/'
  EXPECT_FALSE(IsValidUtf8("\xE0\x80\xAF"));      // overlong
  EXPECT_FALSE(IsValidUtf8("\xED\xA0\x80"));      // surrogate U+D800
  EXPECT_FALSE(IsValidUtf8("\xF4\x90\x80\x80"));  // past U+10FFFF
  EXPECT_FALSE(IsValidUtf8("abcdefgh\xE6\x97"));  // truncated after the ASCII fast path
  EXPECT_FALSE(IsValidUtf8("\x80"));              // stray continuation
  EXPECT_FALSE(IsValidUtf8("\xFF"));
}

// A truncated string bound cut inside a character would be invalid UTF-8 in the footer.
TEST(Utf8, APrefixNeverSplitsACodePoint) {
  const std::string text = "a\xC3\xA9z";  // a é z
  EXPECT_EQ(Utf8PrefixLength(text, 2), 1u) << "cutting inside é backs off to before it";
  EXPECT_EQ(Utf8PrefixLength(text, 3), 3u);
  EXPECT_EQ(Utf8PrefixLength(text, 99), 4u);
}

// The successor must sort after every string with the prefix and stay valid UTF-8.
TEST(Utf8, TheSuccessorOfAPrefixIncrementsItsLastCodePointWithCarry) {
  EXPECT_EQ(Utf8SuccessorOfPrefix("abc"), "abd");
  EXPECT_EQ(Utf8SuccessorOfPrefix("a\x7F"), "a\xC2\x80");           // U+007F → U+0080
  EXPECT_EQ(Utf8SuccessorOfPrefix("\xED\x9F\xBF"), "\xEE\x80\x80");  // U+D7FF → U+E000
  EXPECT_EQ(Utf8SuccessorOfPrefix("a\xF4\x8F\xBF\xBF"), "b");        // carry past U+10FFFF
  EXPECT_EQ(Utf8SuccessorOfPrefix("\xF4\x8F\xBF\xBF"), std::nullopt);
  EXPECT_EQ(Utf8SuccessorOfPrefix("\xFF"), std::nullopt) << "not UTF-8: no UTF-8 successor";
}

}  // namespace
}  // namespace sinkd::parquet
