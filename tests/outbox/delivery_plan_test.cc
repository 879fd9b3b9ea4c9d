#include "outbox/delivery_plan.h"

#include <vector>

#include <gtest/gtest.h>

namespace sinkd::outbox {
namespace {

using std::chrono::seconds;

// The series of the Sinks page: 1 s doubling to 5 minutes; the cap is reached at the 10th wait.
TEST(Backoff, WaitsDoubleFromOneSecondToFiveMinutes) {
  const Backoff policy = kDeliveryBackoff;
  std::vector<int64_t> waits;
  for (int failures = 1; failures <= 12; ++failures) {
    waits.push_back(std::chrono::duration_cast<seconds>(policy.Wait(failures)).count());
  }
  EXPECT_EQ(waits, (std::vector<int64_t>{1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300}));
  EXPECT_EQ(policy.Wait(1000), seconds(300)) << "no overflow however long the outage";
}

// Replays a sink that fails any delivery holding the event at index `poison` of `count`.
std::vector<std::pair<int, int>> Bisect(int count, int poison, int max_size, int* lone) {
  DeliveryPlan plan(max_size);
  std::vector<std::pair<int, int>> calls;  // (first index, size)
  int cursor = 0;
  while (plan.attempts() == 0 && calls.size() < 100) {
    const int size = std::min(plan.NextSize(), count - cursor);
    calls.emplace_back(cursor, size);
    if (cursor <= poison && poison < cursor + size) {
      plan.Failed(size);
    } else {
      plan.Delivered(size);
      cursor += size;
    }
  }
  *lone = cursor;
  return calls;
}

// The worked example F4: e5 is poison in e0…e7; six calls isolate it with the cursor at e4.
TEST(DeliveryPlan, APoisonEventInABatchOfEightIsIsolatedInSixCalls) {
  int lone = -1;
  const auto calls = Bisect(8, 5, 128, &lone);
  EXPECT_EQ(calls, (std::vector<std::pair<int, int>>{{0, 8}, {0, 4}, {4, 4}, {4, 2}, {4, 1},
                                                     {5, 1}}));
  EXPECT_EQ(lone, 5) << "the cursor must stop right before the poison event";
}

TEST(DeliveryPlan, EveryPoisonPositionIsFoundAlone) {
  for (int poison = 0; poison < 128; ++poison) {
    int lone = -1;
    Bisect(128, poison, 128, &lone);
    EXPECT_EQ(lone, poison);
  }
}

// After the failing event is dealt with, the size grows back by doubling, not in one jump.
TEST(DeliveryPlan, TheBatchSizeGrowsBackAfterSuccesses) {
  DeliveryPlan plan(128);
  plan.Failed(128);
  plan.Failed(64);
  plan.Failed(32);
  plan.Failed(16);
  plan.Failed(8);
  plan.Failed(4);
  plan.Failed(2);
  plan.Failed(1);
  EXPECT_EQ(plan.attempts(), 1);
  EXPECT_EQ(plan.NextSize(), 1) << "a lone failure is retried alone";
  plan.Delivered(1);
  std::vector<int> sizes;
  for (int i = 0; i < 8; ++i) {
    sizes.push_back(plan.NextSize());
    plan.Delivered(plan.NextSize());
  }
  EXPECT_EQ(sizes, (std::vector<int>{2, 4, 8, 16, 32, 64, 128, 128}));
}

TEST(DeliveryPlan, TheProbeIsDueAfterTheFifthLoneFailureAndEveryOneAfter) {
  DeliveryPlan plan(128);
  for (int i = 1; i <= 4; ++i) {
    plan.Failed(1);
    EXPECT_FALSE(plan.probe_due()) << "after lone failure " << i;
  }
  plan.Failed(1);
  EXPECT_TRUE(plan.probe_due());
  plan.Probed();
  EXPECT_FALSE(plan.probe_due());
  plan.Failed(1);
  EXPECT_TRUE(plan.probe_due()) << "a neighbour that failed (or was missing) is probed again";
  EXPECT_EQ(plan.attempts(), 6);
}

TEST(DeliveryPlan, RestoredStateKeepsTheCountAndTheSuspectRun) {
  DeliveryPlan plan(128);
  plan.Restore(/*suspect=*/1, /*attempts=*/4, /*next_size=*/1);
  EXPECT_EQ(plan.NextSize(), 1);
  plan.Failed(1);
  EXPECT_EQ(plan.attempts(), 5);
  EXPECT_TRUE(plan.probe_due());
  DeliveryPlan other(128);
  other.Restore(0, 0, 500);
  EXPECT_EQ(other.NextSize(), 128) << "a stored size above the maximum is clamped";
}

}  // namespace
}  // namespace sinkd::outbox

namespace sinkd::outbox {
namespace {

// A dead holder's run is sized by what it meant to deliver (128); only 8 events exist, so the
// failing batch held at most 8 and the next delivery is 4, not 64.
TEST(DeliveryPlan, ARestoredSuspectRunShrinksToWhatExists) {
  DeliveryPlan plan(128);
  plan.Failed(128);
  ASSERT_EQ(plan.NextSize(), 64);
  plan.Clamp(8);
  EXPECT_EQ(plan.suspect(), 8);
  EXPECT_EQ(plan.NextSize(), 4);
  plan.Clamp(100);
  EXPECT_EQ(plan.suspect(), 8) << "more events never widen a known run";
}

}  // namespace
}  // namespace sinkd::outbox
