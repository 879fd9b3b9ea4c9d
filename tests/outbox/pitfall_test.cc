// The txid pitfall at a size the sanitizer run can afford; slow/ runs the full 32 × 50,000.
#include <gtest/gtest.h>

#include "outbox/concurrent_writers.h"

namespace sinkd::outbox {
namespace {

// Transactions commit out of sequence order while dispatch runs: a reader that trusted seq, or
// read without the xmin fence, would move past events that commit later and never see them.
TEST(Pitfall, EightWritersCommittingOutOfOrderLoseNothingAndEachSinkSeesTxidOrder) {
  testing::OutboxDb db;
  db.Migrate();
  const int total = 4000;
  auto result = testing::RunPitfall(db, 8, total, 3, 2, std::chrono::seconds(60));
  testing::ExpectEverythingInOrder(result, total);
}

}  // namespace
}  // namespace sinkd::outbox
