// Compaction of an Iceberg table in process: a pass commits its merges as one replace snapshot
// (not one per merge: each replace rewrites the manifests holding its inputs), and when another
// replace took an input of one of them first, that merge alone is dropped and the others still
// commit.
#include <gtest/gtest.h>

#include <filesystem>

#include "compact/compactor.h"
#include "iceberg/iceberg_commit.h"
#include "lake/dir_destination.h"
#include "lake/lake_writer.h"
#include "support/ledger_rows.h"
#include "support/support.h"

namespace sinkd::compact {
namespace {

constexpr char kTableCreated[] = "2026-01-01T00:00:00Z";
constexpr int64_t kTableDayMicros = 1'767'225'600'000'000;  // 2026-01-01T00:00:00Z

// `count` rows from id `first`, alternating between the apps billing and crm.
row::RowBuffer TableRows(int first, int count) {
  row::RowBuffer batch(row::kLedgerColumns);
  for (int n = first; n < first + count; ++n) {
    testing::AddLedgerRow(batch, "e-" + std::to_string(n),
                          kTableDayMicros + int64_t{1'000'000} * n, n % 2 ? "billing" : "crm");
  }
  return batch;
}

struct TableRig {
  TableRig() {
    auto made = lake::DirDestination::Make(tmp.path().string());
    EXPECT_TRUE(made.ok());
    dir = std::move(made).value();
    EXPECT_TRUE(dir->Ensure().ok());
    commit = std::make_unique<iceberg::IcebergCommit>(*dir, kTableCreated);
  }
  // Three flushes committed to the table: three Parts in each of two partitions.
  void FlushThree() {
    lake::LakeWriterOptions options;
    options.key_prefix = "ledger";
    options.instance = "box-1";
    options.encode_threads = 1;
    lake::LakeWriter writer(*dir, options, *commit);
    for (int f = 0; f < 3; ++f) {
      row::RowBuffer rows = TableRows(1 + f * 10, 10);
      const uint64_t first = 1 + static_cast<uint64_t>(f) * 10;
      ASSERT_TRUE(writer.Flush(rows, {"GARM_LEDGER", first, first + 9}).ok());
    }
  }
  CompactOptions Options() {
    CompactOptions o;
    o.table = &row::kLedgerColumns;
    o.prefix = "ledger";
    o.min_parts = 2;
    o.settle_ms = 0;
    o.grace_ms = 0;
    o.now_unix_ms = [] { return kTableDayMicros / 1000 + 3 * 86'400'000; };
    o.rewrite = commit.get();
    return o;
  }
  std::set<std::string> Live() {
    iceberg::IcebergCommit reader(*dir, kTableCreated);
    auto live = reader.Live("ledger", row::kLedgerColumns);
    EXPECT_TRUE(live.ok()) << live.status().ToString();
    return live.ok() ? live->keys : std::set<std::string>{};
  }

  testing::TempDir tmp;
  std::unique_ptr<lake::DirDestination> dir;
  std::unique_ptr<iceberg::IcebergCommit> commit;
};

bool IsCompactionOutput(const std::string& key) {
  return std::filesystem::path(key).filename().string().starts_with("compact-");
}

TEST(CompactTable, APassCommitsTheMergesOfEveryPartitionAsOneReplace) {
  TableRig rig;
  rig.FlushThree();
  ASSERT_EQ(rig.Live().size(), 6u);
  Compactor compactor(*rig.dir, rig.Options());
  PassReport report;
  auto pass = compactor.RunPass({}, &report);
  ASSERT_TRUE(pass.ok()) << pass.status().ToString();
  EXPECT_EQ(report.partitions_merged, 2u);
  EXPECT_EQ(report.outputs, 2u);
  EXPECT_EQ(report.replaces, 1u) << "one replace snapshot for the two merges";
  EXPECT_EQ(report.replaces_dropped, 0u);
  EXPECT_GT(report.table_seconds, 0.0);
  const std::set<std::string> live = rig.Live();
  ASSERT_EQ(live.size(), 2u);
  for (const std::string& key : live) EXPECT_TRUE(IsCompactionOutput(key)) << key;
}

TEST(CompactTable, AMergeWhoseInputAnotherReplaceTookIsDroppedAndTheOtherMergesStillCommit) {
  TableRig rig;
  rig.FlushThree();
  std::string taken;  // a billing Part another compactor's replace takes mid-pass
  for (const std::string& key : rig.Live()) {
    if (key.find("/app=billing/") != std::string::npos) taken = key;
  }
  ASSERT_FALSE(taken.empty());
  // What the other compactor puts in its place: the same partition's rows, another Part.
  lake::LakeWriterOptions plain;
  plain.key_prefix = "ledger";
  plain.instance = "box-9";
  plain.encode_threads = 1;
  lake::LakeWriter writer(*rig.dir, plain);
  row::RowBuffer billing(row::kLedgerColumns);
  for (int n = 1; n <= 9; n += 2) {
    testing::AddLedgerRow(billing, "e-" + std::to_string(n),
                          kTableDayMicros + int64_t{1'000'000} * n, "billing");
  }
  auto other_part = writer.Flush(billing, {"GARM_LEDGER", 1, 9});
  ASSERT_TRUE(other_part.ok()) << other_part.status().ToString();
  ASSERT_EQ(other_part->parts.size(), 1u);
  const table::PartReport& placed = other_part->parts[0];

  // Partitions go in key order: billing's merge waits for the table while crm's is written,
  // and the other replace lands then.
  iceberg::IcebergCommit other(*rig.dir, kTableCreated);
  PassHooks hooks;
  bool raced = false;
  hooks.on_output = [&](const OutputReport& out) {
    if (raced || out.key.find("/app=crm/") == std::string::npos) return;
    raced = true;
    ASSERT_TRUE(other.Live("ledger", row::kLedgerColumns).ok());
    const Status s = other.Replace(
        "ledger", row::kLedgerColumns,
        {table::PartRewrite{{taken}, {{placed.key, placed.bytes, placed.statistics}}}});
    ASSERT_TRUE(s.ok()) << s.ToString();
  };
  Compactor compactor(*rig.dir, rig.Options());
  PassReport report;
  auto pass = compactor.RunPass(hooks, &report);
  ASSERT_TRUE(pass.ok()) << pass.status().ToString();
  ASSERT_TRUE(raced) << "premise: the other replace landed while billing's merge waited";
  EXPECT_EQ(report.replaces, 1u) << "crm's merge, committed on its own";
  EXPECT_EQ(report.replaces_dropped, 1u) << "billing's merge, which lost its input";
  EXPECT_EQ(report.partitions_pending, 1u);
  EXPECT_TRUE(report.failed.empty());

  const std::set<std::string> live = rig.Live();
  size_t crm_outputs = 0, billing_inputs = 0;
  for (const std::string& key : live) {
    const bool billing = key.find("/app=billing/") != std::string::npos;
    if (billing) {
      EXPECT_FALSE(IsCompactionOutput(key)) << "a dropped output is in the table: " << key;
      ++billing_inputs;
    } else {
      EXPECT_TRUE(IsCompactionOutput(key)) << key;
      ++crm_outputs;
    }
  }
  EXPECT_EQ(crm_outputs, 1u);
  EXPECT_EQ(billing_inputs, 3u) << "two of the flushes' Parts and the other compactor's";
  EXPECT_EQ(live.count(placed.key), 1u);
  EXPECT_EQ(live.count(taken), 0u);
  // The dropped output is deleted: no snapshot names it.
  for (const auto& e : std::filesystem::recursive_directory_iterator(rig.tmp.path() / "ledger")) {
    const std::string name = e.path().filename().string();
    const bool billing = e.path().string().find("app=billing") != std::string::npos;
    if (name.starts_with("compact-") && billing) {
      ADD_FAILURE() << "the dropped merge left its output: " << e.path();
    }
  }
}

}  // namespace
}  // namespace sinkd::compact
