// drain::LakeSink: a batch redelivered with the same sequence range (its acks were lost) finds its
// Parts in place instead of writing a second copy of its rows.
#include "drain/sink.h"

#include <gtest/gtest.h>

#include "contract/wire_decoder.h"
#include "lake/dir_destination.h"
#include "support/support.h"
#include "traffic/traffic_generator.h"

namespace sinkd::drain {
namespace {

namespace fs = std::filesystem;

row::RowBatch Rows() {
  traffic::TrafficOptions traffic;
  traffic.seed = 9;
  traffic.events_per_batch = 100;
  traffic.expected_events = 500;
  traffic::TrafficGenerator generator(traffic);
  contract::WireDecoder decoder;
  row::RowBatch rows(row::kLedgerColumns);
  std::vector<contract::Reject> rejects;
  for (int i = 0; i < 5; ++i) {
    decoder.Decode(contract::Envelope::kBatch, generator.NextLedgerMessage(), rows, rejects);
  }
  return rows;
}

size_t PartFiles(const fs::path& root) {
  size_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    n += e.path().extension() == ".parquet";
  }
  return n;
}

// It once gave the instance a ".1" suffix the second time, so every redelivered range was a
// whole second copy of its rows in the lake.
TEST(LakeSink, ARedeliveredRangeFindsItsPartsInPlaceAndWritesNoSecondCopy) {
  testing::TempDir tmp;
  auto dest = lake::DirDestination::Make(tmp.path().string());
  ASSERT_TRUE(dest.ok());
  ASSERT_TRUE((*dest)->Ensure().ok());
  lake::LakeWriterOptions options;
  options.key_prefix = "ledger";
  options.instance = "box-1";
  LakeSink sink(**dest, options);
  row::RowBatch rows = Rows();
  auto first = sink.Flush(rows, {"GARM_LEDGER", 11, 15});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  const size_t parts = PartFiles(tmp.path());
  ASSERT_GT(parts, 0u);
  auto again = sink.Flush(rows, {"GARM_LEDGER", 11, 15});
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(PartFiles(tmp.path()), parts);
  auto q = testing::DuckDb("SELECT count(*) FROM read_parquet(" +
                           testing::SqlQuote((tmp / "ledger/**/*.parquet").string()) + ")");
  ASSERT_TRUE(q.ok) << q.error;
  EXPECT_EQ(q.rows[0][0], std::to_string(rows.rows()));
}

}  // namespace
}  // namespace sinkd::drain
