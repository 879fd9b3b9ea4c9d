// `sinkd compact --table-format iceberg` as a process on a bucket (s3rver behind the SigV4 layer,
// whose If-None-Match: * is an atomic compare-and-swap; support/table_process.h has the scenarios
// and how the table is read): after an import, and beside two drains on one durable.
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

}  // namespace
}  // namespace sinkd::testing
