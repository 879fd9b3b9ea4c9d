// drain::LakeRowStore: a batch redelivered with the same sequence range (its acks were lost) finds its
// Parts in place instead of writing a second copy of its rows.
#include <gtest/gtest.h>

#include "drain/row_store.h"
#include "lake/dir_destination.h"
#include "support/lake_files.h"
#include "support/ledger_rows.h"
#include "support/support.h"
#include "traffic/traffic_generator.h"

namespace sinkd::drain {
namespace {

namespace fs = std::filesystem;

// It once gave the instance a ".1" suffix the second time, so every redelivered range was a
// whole second copy of its rows in the lake.
TEST(LakeRowStore, ARedeliveredRangeFindsItsPartsInPlaceAndWritesNoSecondCopy) {
  testing::TempDir tmp;
  auto dest = lake::DirDestination::Make(tmp.path().string());
  ASSERT_TRUE(dest.ok());
  ASSERT_TRUE((*dest)->Ensure().ok());
  lake::LakeWriterOptions options;
  options.key_prefix = "ledger";
  options.instance = "box-1";
  LakeRowStore store(**dest, options);
  row::RowBuffer rows = testing::GeneratedLedgerRows(9, 5, traffic::TrafficOptions{}.span_micros);
  auto first = store.Flush(rows, {"GARM_LEDGER", 11, 15});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  const size_t parts = testing::LakeFiles(tmp.path()).size();
  ASSERT_GT(parts, 0u);
  auto again = store.Flush(rows, {"GARM_LEDGER", 11, 15});
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(testing::LakeFiles(tmp.path()).size(), parts);
  auto q = testing::DuckDb("SELECT count(*) FROM read_parquet(" +
                           testing::SqlQuote((tmp / "ledger/**/*.parquet").string()) + ")");
  ASSERT_TRUE(q.ok) << q.error;
  EXPECT_EQ(q.rows[0][0], std::to_string(rows.rows()));
}

}  // namespace
}  // namespace sinkd::drain
