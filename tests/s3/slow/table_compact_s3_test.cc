// `sinkd compact --table-format iceberg` as a process on a bucket (s3rver behind the SigV4 layer,
// whose If-None-Match: * is an atomic compare-and-swap; support/table_process.h has the scenarios
// and how the table is read): after an import, beside two drains on one durable, and killed
// with SIGKILL at random moments beside them.
// Slow: label s3-slow.
#include <gtest/gtest.h>

#include "s3/s3_server.h"
#include "support/table_process.h"

namespace sinkd::testing {
namespace {

TableLake BucketLake(const TempDir& dir, const S3Server& server) {
  TableLake lake;
  lake.env = {std::string("AWS_ACCESS_KEY_ID=") + kTestKey,
              std::string("AWS_SECRET_ACCESS_KEY=") + kTestSecret};
  lake.destination = {"--s3-endpoint", server.endpoint(), "--s3-bucket", "garm-lake"};
  lake.lake_uri = "s3://garm-lake";
  lake.bucket_dir = server.BucketDir();
  lake.scratch = dir.path();
  return lake;
}

TEST(TableCompactS3, EachMergeOfABucketTableIsOneReplaceAndTheOldSnapshotReadsUntilExpiry) {
  S3Server server;
  ASSERT_TRUE(server.ok()) << server.error();
  TempDir dir;
  TableLake lake = BucketLake(dir, server);
  CompactAnImportedTable(lake);
}

TEST(TableCompactS3, TwoIcebergDrainsAndACompactorAtOnceOnABucketLeaveOneRowPerEvent) {
  S3Server server;
  ASSERT_TRUE(server.ok()) << server.error();
  TempDir dir;
  TableLake lake = BucketLake(dir, server);
  TwoDrainsAndACompactorAtOnce(lake);
}

TEST(TableCompactS3,
     KillNineStormsOfACompactorBesideIcebergDrainsOnABucketDeleteNoFileTheTableNames) {
  S3Server server;
  ASSERT_TRUE(server.ok()) << server.error();
  TempDir dir;
  TableLake lake = BucketLake(dir, server);
  KillNineStormOfTheCompactor(lake);
  // A killed client is no reason for the store to fail later requests: S3 answers every one of
  // them, and so must the test server, or a storm measures the server.
  std::string failed;
  for (const auto& r : server.Requests()) {
    if (r.value("status", 0) >= 500) failed += r.dump() + "\n";
  }
  EXPECT_EQ(failed, "") << "the test server failed requests";
}

}  // namespace
}  // namespace sinkd::testing
