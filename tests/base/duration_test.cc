#include "base/duration.h"

#include <gtest/gtest.h>

namespace sinkd {
namespace {

using std::chrono::nanoseconds;

// Flags such as --batch-interval and --older-than read Go-style durations; a misread unit would
// turn five minutes into five hours.
TEST(Duration, GoSpellingsParseToTheirExactLength) {
  EXPECT_EQ(*ParseDuration("300ms"), std::chrono::milliseconds(300));
  EXPECT_EQ(*ParseDuration("1.5s"), std::chrono::milliseconds(1500));
  EXPECT_EQ(*ParseDuration("10m"), std::chrono::minutes(10));
  EXPECT_EQ(*ParseDuration("1h30m"), std::chrono::minutes(90));
  EXPECT_EQ(*ParseDuration("168h"), std::chrono::hours(168));
  EXPECT_EQ(*ParseDuration("0"), nanoseconds(0));
  EXPECT_EQ(*ParseDuration("250us"), std::chrono::microseconds(250));
}

TEST(Duration, NonsenseIsRefusedWithTheTextQuoted) {
  for (const char* bad : {"", "5", "5x", "-1m", "twenty", "m", "1..5s"}) {
    auto d = ParseDuration(bad);
    EXPECT_FALSE(d.ok()) << "'" << bad << "' must not parse";
    if (!d.ok() && *bad) {
      EXPECT_NE(d.status().message().find(bad), std::string::npos);
    }
  }
}

// The startup log prints durations the way the Go reference did (5m0s, 11m0s), so operators'
// dashboards and greps keep working.
TEST(Duration, FormatMatchesGo) {
  EXPECT_EQ(FormatDuration(std::chrono::minutes(5)), "5m0s");
  EXPECT_EQ(FormatDuration(std::chrono::minutes(11)), "11m0s");
  EXPECT_EQ(FormatDuration(std::chrono::hours(168)), "168h0m0s");
  EXPECT_EQ(FormatDuration(std::chrono::milliseconds(300)), "300ms");
  EXPECT_EQ(FormatDuration(std::chrono::milliseconds(1500)), "1.5s");
  EXPECT_EQ(FormatDuration(nanoseconds(0)), "0s");
  EXPECT_EQ(FormatDuration(std::chrono::seconds(90)), "1m30s");
}

}  // namespace
}  // namespace sinkd
