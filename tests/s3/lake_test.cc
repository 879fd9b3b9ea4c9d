// The object store and the directory are the same lake: one batch written to both gives the same
// keys, the same bytes, and the same rows in DuckDB — multipart Parts included.
#include <gtest/gtest.h>

#include "backfill/backfill.h"
#include "lake/dir_destination.h"
#include "s3/s3_destination.h"
#include "s3_server.h"
#include "s3_test_util.h"
#include "support/lake_files.h"
#include "traffic/traffic_generator.h"

namespace sinkd::s3 {
namespace {

namespace fs = std::filesystem;
using sinkd::testing::CapturedLog;
using sinkd::testing::DuckDb;
using sinkd::testing::ReadFile;
using sinkd::testing::S3Server;
using sinkd::testing::SqlQuote;
using sinkd::testing::TempDir;
using sinkd::testing::TestOptions;

backfill::BackfillReport Replay(lake::Destination& destination, Logger& log) {
  traffic::TrafficOptions traffic;
  traffic.seed = 42;
  traffic.bad_share = 0.02;
  traffic.events_per_batch = 100;
  traffic.expected_events = 3000;
  traffic::TrafficGenerator generator(traffic);
  backfill::BackfillOptions options;
  options.batch_max_rows = 1500;
  options.lake.key_prefix = "ledger";
  options.lake.instance = "box-77";
  backfill::Backfill backfill(destination, options, log);
  for (int i = 0; i < 30; ++i) {
    Status s = backfill.Add(generator.NextLedgerMessage(), "replay");
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
  Status s = backfill.Finish();
  EXPECT_TRUE(s.ok()) << s.ToString();
  return backfill.report();
}

// The README's promise: put s3://garm-lake/ where ./lake/ was and every query keeps working.
TEST(S3Lake, OneBatchGivesTheSameKeysBytesAndRowsInTheBucketAsInADirectory) {
  TempDir dir;
  CapturedLog log;
  auto local = lake::DirDestination::Make((dir / "lake").string());
  ASSERT_TRUE(local.ok());
  ASSERT_TRUE((*local)->Ensure().ok());
  backfill::BackfillReport on_disk = Replay(**local, log.log());

  const std::set<std::string> keys = testing::LakeKeys(dir / "lake", "");
  uintmax_t largest = 0;
  for (const std::string& key : keys) largest = std::max(largest, fs::file_size(dir / "lake" / key));
  S3Server server;
  ASSERT_TRUE(server.ok()) << server.error();
  S3Options options = TestOptions(server.endpoint());
  options.multipart_threshold = largest / 3 + 1;  // so the larger Parts go multipart
  auto bucket = S3Destination::Make(options, &log.log());
  ASSERT_TRUE(bucket.ok());
  ASSERT_TRUE((*bucket)->Ensure().ok());
  backfill::BackfillReport in_bucket = Replay(**bucket, log.log());

  ASSERT_GT(on_disk.parts, 4u) << "premise: several partitions and flushes";
  ASSERT_GT(on_disk.rejects, 0u) << "premise: dead letters are written too";
  EXPECT_EQ(in_bucket.parts, on_disk.parts);
  EXPECT_EQ(server.Keys(), std::vector<std::string>(keys.begin(), keys.end()));
  for (const std::string& key : keys) {
    EXPECT_EQ(ReadFile(server.ObjectPath(key)), ReadFile(dir / "lake" / key)) << key;
  }
  size_t multipart = 0;
  for (const auto& r : server.Requests()) {
    multipart += r["method"] == "POST" && r["url"].get<std::string>().ends_with("?uploads");
  }
  EXPECT_GT(multipart, 0u) << "premise: at least one Part went multipart";

  // One DuckDB run reads both lakes and compares them row for row (EXCEPT ALL both ways).
  const std::string a = "read_parquet(" + SqlQuote((dir / "lake/ledger/**/*.parquet").string()) +
                        ", hive_partitioning=true)";
  const std::string b =
      "read_parquet(" +
      SqlQuote((server.BucketDir() / "ledger/**/*.parquet._S3rver_object").string()) +
      ", hive_partitioning=true)";
  auto q = DuckDb("SELECT (SELECT count(*) FROM " + b + "), (SELECT count(*) FROM (SELECT * FROM " +
                  a + " EXCEPT ALL SELECT * FROM " + b + ")), (SELECT count(*) FROM (SELECT * FROM " +
                  b + " EXCEPT ALL SELECT * FROM " + a + "))");
  ASSERT_TRUE(q.ok) << q.error;
  EXPECT_EQ(q.rows[0][0], std::to_string(on_disk.rows)) << "every row reads back from the bucket";
  EXPECT_EQ(q.rows[0][1], "0") << "rows in the directory lake missing from the bucket";
  EXPECT_EQ(q.rows[0][2], "0") << "rows in the bucket missing from the directory lake";
}

}  // namespace
}  // namespace sinkd::s3
