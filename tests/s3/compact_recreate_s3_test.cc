// A key re-created after the grace deleter removed it keeps its rows, on S3 through tools/s3
// (the scenario: tests/cli/compact_recreate.h). Here the delete is a HEAD and a DELETE with
// If-Match: the test layer honours If-Match as AWS does.
#include "cli/compact_recreate.h"
#include "s3_server.h"
#include "s3_test_util.h"

namespace sinkd::s3 {
namespace {

TEST(S3CompactRecreate, AKeyRecreatedAfterItsInputWasDeletedKeepsEveryRowInABucket) {
  sinkd::testing::TempDir tmp;
  sinkd::testing::S3Server server;
  ASSERT_TRUE(server.ok()) << server.error();
  sinkd::testing::RecreateLake under_test;
  under_test.env = {"LAKE_DIR=", "AWS_SESSION_TOKEN=", "AWS_REGION=", "AWS_DEFAULT_REGION=",
                    "S3_ACCESS_KEY=", "S3_SECRET_KEY=", "S3_ENDPOINT=",
                    "AWS_ENDPOINT_URL=http://" + server.endpoint(), "S3_BUCKET=garm-lake",
                    std::string("AWS_ACCESS_KEY_ID=") + sinkd::testing::kTestKey,
                    std::string("AWS_SECRET_ACCESS_KEY=") + sinkd::testing::kTestSecret};
  under_test.parts = [&] {
    std::set<std::string> keys;
    for (const std::string& key : server.Keys()) {
      if (key.rfind("ledger/", 0) == 0) keys.insert(key);
    }
    return keys;
  };
  under_test.glob = (server.BucketDir() / "ledger/**/*.parquet._S3rver_object").string();
  ExpectARecreatedKeyKeepsItsRows(under_test, tmp);
}

}  // namespace
}  // namespace sinkd::s3
