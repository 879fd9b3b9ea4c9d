// The `iceberg` commit step behind LakeWriter: each flush's Parts become one append snapshot
// recording the flush's stream sequences; a redelivered range is reported committed before it is
// placed; a flush of positions the table already holds fails its commit and keeps no Part of its
// own; icebird reads each row once.
#include "iceberg/iceberg_commit.h"

#include <gtest/gtest.h>

#include "iceberg/committers.h"
#include "lake/dir_destination.h"

namespace sinkd::iceberg {
namespace {

constexpr char kCreated[] = "2026-01-01T00:00:00Z";

row::RowBuffer Rows(int first, int count) {
  row::RowBuffer batch(row::kLedgerColumns);
  for (int n = first; n < first + count; ++n) {
    testing::AddLedgerRow(batch, "e-" + std::to_string(n),
                          1'767'225'600'000'000 + int64_t{1'000'000} * n,
                          n % 2 ? "billing" : "crm");
  }
  return batch;
}

TEST(IcebergCommit, EachFlushIsOneSnapshotAndACommittedRangeIsNeverCommittedTwice) {
  testing::TempDir tmp;
  auto made = lake::DirDestination::Make(tmp.path().string());
  ASSERT_TRUE(made.ok());
  lake::DirDestination& dir = **made;
  ASSERT_TRUE(dir.Ensure().ok());
  IcebergCommit commit(dir, kCreated);
  EXPECT_EQ(commit.format(), "iceberg");
  lake::LakeWriterOptions options;
  options.key_prefix = "ledger";
  options.instance = "box-1";
  options.encode_threads = 1;
  lake::LakeWriter writer(dir, options, commit);

  row::RowBuffer first = Rows(1, 20);
  ASSERT_TRUE(writer.Flush(first, {"GARM_LEDGER", 1, 20}).ok());
  row::RowBuffer second = Rows(21, 10);
  ASSERT_TRUE(writer.Flush(second, {"GARM_LEDGER", 21, 30}).ok());

  // A redelivery of 15-35 (acks of 15-30 lost): 15-30 are reported committed before placing.
  Result<std::vector<table::SequenceRange>> held =
      commit.Committed("ledger", {"GARM_LEDGER", 15, 35});
  ASSERT_TRUE(held.ok()) << held.status().ToString();
  EXPECT_EQ(*held, (std::vector<table::SequenceRange>{{15, 30}}));
  // The same stream name re-created: nothing of it is committed.
  IcebergCommit recreated(dir, "2026-06-01T00:00:00Z");
  held = recreated.Committed("ledger", {"GARM_LEDGER", 15, 35});
  ASSERT_TRUE(held.ok());
  EXPECT_TRUE(held->empty());

  // A writer that flushes 25-30 again without dropping them: its commit fails, nothing of it
  // is committed, and the Parts it placed itself are gone (those found in place stay).
  lake::LakeWriterOptions other = options;
  other.instance = "box-2";
  lake::LakeWriter late(dir, other, commit);
  row::RowBuffer again = Rows(25, 6);
  Result<lake::FlushReport> failed = late.Flush(again, {"GARM_LEDGER", 25, 30});
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("already committed"), std::string::npos)
      << failed.status().ToString();
  for (const auto& e : std::filesystem::recursive_directory_iterator(tmp.path() / "ledger")) {
    EXPECT_EQ(e.path().filename().string().find("box-2"), std::string::npos) << e.path();
  }

  FilesCatalog catalog(dir, dir.Uri(), "ledger", SpecOf(row::kLedgerColumns));
  Result<LoadedTable> table = catalog.Load();
  ASSERT_TRUE(table.ok());
  EXPECT_EQ(table->version, 2);
  EXPECT_EQ(*table->metadata->Current()->Find("total-records"), "30");
  Result<Positions> positions = CommittedPositions(&*table->metadata);
  ASSERT_TRUE(positions.ok());
  EXPECT_EQ(positions->streams.at(StreamIdentity("GARM_LEDGER", kCreated)),
            (std::vector<lake::SequenceRange>{{1, 30}}));
  const nlohmann::json read = IcebirdRead(dir.Uri() + "/ledger");
  ASSERT_FALSE(read.is_discarded());
  std::multiset<std::string> rows;
  for (const auto& row : read["rows"]) rows.insert(row["event_id"].get<std::string>());
  EXPECT_EQ(rows.size(), 30u);
  EXPECT_EQ(std::set<std::string>(rows.begin(), rows.end()).size(), 30u);
}

}  // namespace
}  // namespace sinkd::iceberg
