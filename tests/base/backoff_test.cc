#include "base/backoff.h"

#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

namespace sinkd {
namespace {

using namespace std::chrono_literals;

std::vector<int64_t> Waits(const Backoff& b, int n, double unit = 0.0) {
  std::vector<int64_t> out;
  for (int failures = 1; failures <= n; ++failures) out.push_back(b.Wait(failures, unit).count());
  return out;
}

TEST(Backoff, WaitsGrowByTheFactorFromTheFirstWaitUpToTheCap) {
  const Backoff b{100ms, 1000ms, 2.0};
  EXPECT_EQ(Waits(b, 6), (std::vector<int64_t>{100, 200, 400, 800, 1000, 1000}));
  const Backoff slower{1000ms, 10'000ms, 1.5};
  EXPECT_EQ(Waits(slower, 7), (std::vector<int64_t>{1000, 1500, 2250, 3375, 5062, 7593, 10000}));
  const Backoff flat{250ms, 250ms, 1.0};
  EXPECT_EQ(Waits(flat, 3), (std::vector<int64_t>{250, 250, 250}));
}

TEST(Backoff, ALongOutageNeverOverflowsPastTheCap) {
  const Backoff b{1000ms, 300'000ms, 2.0};
  EXPECT_EQ(b.Wait(1000), 300'000ms);
  EXPECT_EQ(b.Wait(std::numeric_limits<int>::max()), 300'000ms);
  EXPECT_EQ(b.Wait(0), 1000ms) << "no failure yet counts as the first";
  EXPECT_EQ(b.Wait(-5), 1000ms);
}

// Equal jitter: half of the ceiling is fixed and half random, so a wait never drops below half
// its ceiling (waits still grow) and never exceeds it (or the cap).
TEST(Backoff, JitterRandomisesItsShareOfEachWaitAndNeverPassesTheCeiling) {
  const Backoff b{100ms, 1000ms, 2.0, 0.5};
  EXPECT_EQ(Waits(b, 5, 0.0), (std::vector<int64_t>{50, 100, 200, 400, 500}));
  EXPECT_EQ(Waits(b, 5, 0.5), (std::vector<int64_t>{75, 150, 300, 600, 750}));
  EXPECT_EQ(Waits(b, 5, 0.999), (std::vector<int64_t>{99, 199, 399, 799, 999}));
  EXPECT_EQ(b.Wait(3, 7.0), 400ms) << "a unit outside [0, 1) is clamped";
  EXPECT_EQ(b.Wait(3, -1.0), 200ms);
  const Backoff full{100ms, 1000ms, 2.0, 1.0};
  EXPECT_EQ(full.Wait(2, 0.0), 0ms);
  EXPECT_EQ(full.Wait(2, 0.5), 100ms);
}

TEST(Backoff, ValidateRefusesANonPositiveFirstWaitACapBelowItAShrinkingFactorAndBadJitter) {
  EXPECT_TRUE((Backoff{100ms, 100ms, 1.0, 0.0}).Validate().ok());
  EXPECT_TRUE((Backoff{100ms, 1000ms, 2.0, 1.0}).Validate().ok());
  Status s = Backoff{0ms, 1000ms}.Validate("--retry");
  EXPECT_TRUE(s.IsRefuse());
  EXPECT_NE(s.message().find("--retry"), std::string::npos) << s.message();
  EXPECT_TRUE((Backoff{-1ms, 1000ms}).Validate().IsRefuse());
  s = Backoff{100ms, 50ms}.Validate();
  EXPECT_TRUE(s.IsRefuse());
  EXPECT_NE(s.message().find("100ms"), std::string::npos) << s.message();
  EXPECT_TRUE((Backoff{100ms, 1000ms, 0.5}).Validate().IsRefuse());
  EXPECT_TRUE((Backoff{100ms, 1000ms, 2.0, -0.1}).Validate().IsRefuse());
  EXPECT_TRUE((Backoff{100ms, 1000ms, 2.0, 1.5}).Validate().IsRefuse());
  EXPECT_TRUE((Backoff{100ms, 1000ms, std::nan(""), 0.0}).Validate().IsRefuse());
}

TEST(BackoffCounter, CountsFailuresInARowAndStartsAgainAfterASuccess) {
  BackoffCounter c(Backoff{1000ms, 5000ms, 2.0});
  EXPECT_EQ(c.Next(), 1000ms);
  EXPECT_EQ(c.Next(), 2000ms);
  EXPECT_EQ(c.Next(), 4000ms);
  EXPECT_EQ(c.Next(), 5000ms);
  EXPECT_EQ(c.Next(), 5000ms) << "capped";
  EXPECT_EQ(c.failures(), 5);
  c.Reset();
  EXPECT_EQ(c.failures(), 0);
  EXPECT_EQ(c.Next(), 1000ms);
}

}  // namespace
}  // namespace sinkd
