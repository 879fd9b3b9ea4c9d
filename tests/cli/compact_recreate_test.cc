// A key re-created after the grace deleter removed it keeps its rows, on a directory lake (the
// scenario: compact_recreate.h; on S3: tests/s3/compact_recreate_s3_test.cc).
#include "cli/compact_recreate.h"

#include "support/lake_files.h"

namespace sinkd::testing {
namespace {

TEST(CompactRecreate, AKeyRecreatedAfterItsInputWasDeletedKeepsEveryRowOnADirectory) {
  TempDir tmp;
  const std::filesystem::path lake = tmp / "lake";
  RecreateLake under_test;
  under_test.flags = {"--lake-dir", lake.string()};
  under_test.env = {"LAKE_DIR=", "AWS_ENDPOINT_URL=", "S3_BUCKET="};
  under_test.parts = [&] { return TableKeys(lake, "ledger"); };
  under_test.glob = (lake / "ledger/**/*.parquet").string();
  ExpectARecreatedKeyKeepsItsRows(under_test, tmp);
}

}  // namespace
}  // namespace sinkd::testing
