// The issue's own numbers: 32 concurrent writers, 50,000 events, random delays before commit.
// Labelled slow (the sanitizer run skips it); tests/outbox/pitfall_test.cc is its small sibling.
#include <gtest/gtest.h>

#include "outbox/concurrent_writers.h"

namespace sinkd::outbox {
namespace {

TEST(PitfallSlow, ThirtyTwoWritersAndFiftyThousandEventsAllArriveInTxidOrder) {
  testing::OutboxDb db;
  db.Migrate();
  const int total = 50'000;
  auto result = testing::RunPitfall(db, 32, total, 5, 2, std::chrono::seconds(90));
  testing::ExpectEverythingInOrder(result, total);
  std::printf("32 writers, %d events, 2 sinks: %.1f s\n", total, result.seconds);
}

}  // namespace
}  // namespace sinkd::outbox
