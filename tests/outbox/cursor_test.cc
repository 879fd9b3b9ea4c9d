#include "outbox/cursor.h"

#include <gtest/gtest.h>

namespace sinkd::outbox {
namespace {

// Text order would put "9:1" after "10:1" and skip events; the pair is compared as numbers.
TEST(Cursor, PositionsCompareAsNumberPairsNotAsText) {
  EXPECT_LT((Cursor{9, 1}), (Cursor{10, 1}));
  EXPECT_LT((Cursor{10, 9}), (Cursor{10, 10}));
  EXPECT_LT((Cursor{10, 999}), (Cursor{11, 0})) << "txid decides before seq";
  EXPECT_GT(std::string("9:1"), std::string("10:1")) << "premise: as text the order is wrong";
}

TEST(Cursor, TheExtremesRoundTrip) {
  for (const char* text : {"0:0", "18446744073709551615:9223372036854775807", "724:3"}) {
    auto c = ParseCursor(text);
    ASSERT_TRUE(c.ok()) << text << ": " << c.status().ToString();
    EXPECT_EQ(FormatCursor(*c), text);
  }
  EXPECT_EQ(ParseCursor("18446744073709551615:1")->txid, 18446744073709551615ull)
      << "xid8 is unsigned 64-bit: the top bit must not turn it negative";
}

// Webhook bodies and the SSE stream write <txid>.<seq>: the same position, so it must parse to it.
TEST(Cursor, TheDotSpellingNamesTheSamePosition) {
  auto dot = ParseCursor("100.10");
  auto colon = ParseCursor("100:10");
  ASSERT_TRUE(dot.ok() && colon.ok());
  EXPECT_EQ(*dot, *colon);
  EXPECT_NE(*ParseCursor("100.10"), *ParseCursor("100.1")) << "not read as a decimal fraction";
  EXPECT_EQ(FormatCursor(*dot), "100:10") << "output always uses ':'";
}

TEST(Cursor, MalformedPositionsAreRefused) {
  for (const char* text : {"-1:2", "1:-2", "1:", ":1", "1:2:3", " 1:2", "1:2 ", "1e3:2", "+1:2",
                           "", "12", "18446744073709551616:1", "1:9223372036854775808",
                           "0x10:1", "1.2.3"}) {
    auto c = ParseCursor(text);
    EXPECT_FALSE(c.ok()) << "\"" << text << "\" must be refused";
    if (!c.ok()) {
      EXPECT_TRUE(c.status().IsRefuse());
    }
  }
}

TEST(Cursor, AnXid8ParsesAsUnsigned) {
  EXPECT_EQ(*ParseXid8("18446744073709551615"), 18446744073709551615ull);
  EXPECT_FALSE(ParseXid8("-1").ok());
  EXPECT_FALSE(ParseXid8("").ok());
}

}  // namespace
}  // namespace sinkd::outbox
