// Compaction on the object store: the output is PUT never-replace beside its inputs, the inputs
// are deleted by a pass after the grace, and DuckDB reads every id once from the bucket.
#include <gtest/gtest.h>

#include "compact/compact_test_util.h"
#include "compact/compactor.h"
#include "s3/s3_destination.h"
#include "s3_server.h"
#include "s3_test_util.h"

namespace sinkd::s3 {
namespace {

using namespace compact::testutil;  // NOLINT
using sinkd::testing::CapturedLog;
using sinkd::testing::DuckDb;
using sinkd::testing::S3Server;
using sinkd::testing::SqlQuote;
using sinkd::testing::TestOptions;

TEST(S3Compact, AnOutputLandsInTheBucketAndItsInputsGoOnlyAfterTheGrace) {
  S3Server server;
  ASSERT_TRUE(server.ok()) << server.error();
  CapturedLog log;
  auto bucket = S3Destination::Make(TestOptions(server.endpoint()), &log.log());
  ASSERT_TRUE(bucket.ok()) << bucket.status().ToString();
  ASSERT_TRUE((*bucket)->Ensure().ok());
  for (int k = 0; k < 4; ++k) {
    std::vector<TestRow> rows;
    for (int i = 0; i < 50; ++i) rows.push_back({"s3-" + std::to_string(k * 40 + i), kDayMicros + k * 40 + i});
    Flush(**bucket, rows, 1 + k * 100);  // ids overlap by ten between flushes
  }
  ASSERT_EQ(server.Keys().size(), 4u);
  int64_t now = kDayMs + 26 * kHourMs;
  compact::Compactor compactor(**bucket, compact::testutil::Options([&] { return now; }));
  auto first = compactor.RunPass({});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->outputs, 1u);
  EXPECT_EQ(first->duplicates_dropped, 30u);
  EXPECT_EQ(server.Keys().size(), 5u) << "the output beside its inputs";
  auto again = compactor.RunPass({});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->inputs_deleted, 0u);
  now = RealNowMs() + compact::testutil::kHourMs + 60'000;  // S3's LastModified is the real clock
  auto later = compactor.RunPass({});
  ASSERT_TRUE(later.ok()) << later.status().ToString();
  EXPECT_EQ(later->inputs_deleted, 4u);
  const auto keys = server.Keys();
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_NE(keys[0].find("/compact-"), std::string::npos);
  auto q = DuckDb("SELECT count(*), count(DISTINCT event_id) FROM read_parquet(" +
                  SqlQuote((server.BucketDir() / "ledger/**/*.parquet._S3rver_object").string()) +
                  ")");
  ASSERT_TRUE(q.ok) << q.error;
  EXPECT_EQ(q.rows[0], (std::vector<std::string>{"170", "170"}));
}

}  // namespace
}  // namespace sinkd::s3
