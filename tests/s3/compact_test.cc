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

// The bucket of `server`, checked, with four Parts of one partition flushed into it: 50 rows each,
// ids overlapping by ten between flushes (170 distinct ids, 30 duplicates).
std::unique_ptr<S3Destination> BucketOfFourParts(const S3Server& server, CapturedLog& log) {
  auto bucket = S3Destination::Make(TestOptions(server.endpoint()), &log.log());
  EXPECT_TRUE(bucket.ok()) << bucket.status().ToString();
  if (!bucket.ok()) return nullptr;
  EXPECT_TRUE((*bucket)->Ensure().ok());
  for (int k = 0; k < 4; ++k) {
    std::vector<TestRow> rows;
    for (int i = 0; i < 50; ++i) rows.push_back({"s3-" + std::to_string(k * 40 + i), kDayMicros + k * 40 + i});
    Flush(**bucket, rows, 1 + k * 100);
  }
  return std::move(bucket).value();
}

TEST(S3Compact, AnOutputLandsInTheBucketAndItsInputsGoOnlyAfterTheGrace) {
  S3Server server;
  ASSERT_TRUE(server.ok()) << server.error();
  CapturedLog log;
  std::unique_ptr<S3Destination> bucket = BucketOfFourParts(server, log);
  ASSERT_TRUE(bucket);
  ASSERT_EQ(server.Keys().size(), 4u);
  int64_t now = kDayMs + 26 * kHourMs;
  compact::Compactor compactor(*bucket, compact::testutil::Options([&] { return now; }));
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

// A store whose listing dates cannot be read (here an HTTP date where ListObjectsV2 has ISO 8601)
// once had every object read as appeared at 1970, so an output's inputs were deleted on the next
// pass whatever the grace. The date now counts as unknown: the output is written, its inputs stay
// however late the clock, and a warning names the object and what the store said.
TEST(S3Compact, AnOutputWhoseLastModifiedDoesNotParseNeverEndsTheGraceOfItsInputs) {
  sinkd::testing::S3ServerOptions options;
  options.last_modified = "Tue, 01 Dec 2026 20:00:00 GMT";
  S3Server server(options);
  ASSERT_TRUE(server.ok()) << server.error();
  CapturedLog log;
  std::unique_ptr<S3Destination> bucket = BucketOfFourParts(server, log);
  ASSERT_TRUE(bucket);
  auto listed = bucket->List("ledger/");
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  ASSERT_EQ(listed->size(), 4u);
  EXPECT_EQ(listed->front().modified_unix_ms, lake::kUnknownTime)
      << "an unreadable LastModified must not become a time";
  EXPECT_NE(log.Text().find("LastModified that does not parse"), std::string::npos) << log.Text();
  EXPECT_NE(log.Text().find("Tue, 01 Dec 2026 20:00:00 GMT"), std::string::npos) << log.Text();

  int64_t now = kDayMs + 26 * kHourMs;
  compact::Compactor compactor(*bucket, compact::testutil::Options([&] { return now; }));
  auto first = compactor.RunPass({});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_EQ(first->outputs, 1u) << "the premise: an output superseding the four Parts";
  now = RealNowMs() + 365 * 24 * kHourMs;  // a year past any grace
  auto later = compactor.RunPass({});
  ASSERT_TRUE(later.ok()) << later.status().ToString();
  EXPECT_EQ(later->inputs_deleted, 0u)
      << "inputs were deleted on the strength of a date the store never gave";
  EXPECT_EQ(server.Keys().size(), 5u);
}

}  // namespace
}  // namespace sinkd::s3
