#include "sinks/rfc3339.h"

#include <gtest/gtest.h>

namespace sinkd::sinks {
namespace {

TEST(Rfc3339, UtcAndOffsetFormsGiveTheSameInstant) {
  const int64_t expected = 1'796'070'526'123'000;  // 2026-11-30T20:28:46.123Z
  EXPECT_EQ(ParseRfc3339Micros("2026-11-30T20:28:46.123Z"), expected);
  EXPECT_EQ(ParseRfc3339Micros("2026-11-30T21:28:46.123+01:00"), expected);
  EXPECT_EQ(ParseRfc3339Micros("2026-11-30T19:58:46.123-00:30"), expected);
  EXPECT_EQ(ParseRfc3339Micros("2026-11-30t20:28:46.123z"), expected);
  EXPECT_EQ(ParseRfc3339Micros("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(ParseRfc3339Micros("1969-12-31T23:59:59.999999Z"), -1);
}

TEST(Rfc3339, DigitsPastTheMicrosecondAreTruncated) {
  EXPECT_EQ(ParseRfc3339Micros("1970-01-01T00:00:01.123456789Z"), 1'123'456);
  EXPECT_EQ(ParseRfc3339Micros("1970-01-01T00:00:01.5Z"), 1'500'000);
}

TEST(Rfc3339, WhatIsNotADateTimeWithAZoneIsRefused) {
  for (const char* text : {"", "2026-11-30", "2026-11-30T20:28:46", "2026-13-01T00:00:00Z",
                           "2026-02-29T00:00:00Z", "2026-11-30T24:00:00Z", "2026-11-30T20:28:46.Z",
                           "2026-11-30T20:28:46Zjunk", "2026-11-30T20:28:46+0100",
                           "not a time", "1796070526"}) {
    EXPECT_FALSE(ParseRfc3339Micros(text).has_value()) << text;
  }
  EXPECT_TRUE(ParseRfc3339Micros("2024-02-29T00:00:00Z").has_value()) << "a leap day";
}

}  // namespace
}  // namespace sinkd::sinks
