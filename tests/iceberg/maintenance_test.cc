// Table maintenance on a directory lake: expiry drops old snapshots and then exactly the files only
// they named (a compaction's inputs, their manifests and lists), keeps the positions, prunes the
// metadata log; orphan removal finds what no snapshot names — an uncommitted Part, a failed
// commit's manifest — and leaves the table's version chain and the lake's Parts from before the
// table alone.
#include "iceberg/maintenance.h"

#include <gtest/gtest.h>

#include "iceberg/committers.h"
#include "lake/dir_destination.h"

namespace sinkd::iceberg {
namespace {

const std::string kMaintStream = StreamIdentity("GARM_LEDGER", "2026-01-01T00:00:00Z");
constexpr int64_t kDayMs = 24 * 3600 * 1000;

int64_t WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::unique_ptr<lake::DirDestination> MaintLake(const testing::TempDir& dir) {
  auto made = lake::DirDestination::Make(dir.path().string());
  EXPECT_TRUE(made.ok());
  EXPECT_TRUE((*made)->Ensure().ok());
  return std::move(*made);
}

FilesCatalog MaintCatalog(lake::Destination& destination, const testing::TempDir& dir) {
  return FilesCatalog(destination, "file://" + dir.path().string(), "ledger",
                      SpecOf(row::kLedgerColumns));
}

std::set<std::string> MaintReadIds(const testing::TempDir& dir) {
  const nlohmann::json read = IcebirdRead("file://" + dir.path().string() + "/ledger");
  std::set<std::string> ids;
  size_t rows = 0;
  if (read.is_discarded()) return ids;
  for (const auto& row : read["rows"]) {
    ids.insert(row["event_id"].get<std::string>());
    ++rows;
  }
  EXPECT_EQ(rows, ids.size()) << "no row twice";
  return ids;
}

std::string PathOf(const testing::TempDir& dir, const std::string& uri) {
  return uri.substr(("file://" + dir.path().string() + "/").size());
}

TEST(Expire, OldSnapshotsGoThenOnlyTheFilesNoKeptSnapshotNamesAndThePositionsStay) {
  testing::TempDir tmp;
  auto lake = MaintLake(tmp);
  FilesCatalog catalog = MaintCatalog(*lake, tmp);
  Committed appended = CommitFlushes(*lake, catalog, "a", 3, 10, kMaintStream);
  ASSERT_EQ(appended.commit_ids.size(), 3u);
  const std::vector<DataFile> inputs = LiveFiles(*lake, catalog);
  Replace replace;
  for (const DataFile& f : inputs) replace.removed.push_back(f.path);
  replace.added = Rewritten(*lake, catalog, "a", 0, 30, "compactor");
  ASSERT_TRUE(catalog.CommitReplace(replace).ok());
  // Two snapshots without positions on top (as another engine's are, or sinkd's imports' before
  // every snapshot carried them): the replace, which carries them, must then be kept although it
  // is neither recent nor the newest, and so must the snapshot between, or the walk from the
  // newest to the positions breaks. sinkd's appends carry them now: they are taken out here.
  Committed later = CommitFlushes(*lake, catalog, "b", 2, 10);
  ASSERT_EQ(later.commit_ids.size(), 2u);
  const std::set<std::string> others(later.commit_ids.begin(), later.commit_ids.end());
  ASSERT_TRUE(catalog
                  .CommitMetadata([&](const TableMetadata& base, const std::string& base_uri)
                                      -> Result<std::optional<TableMetadata>> {
                    TableMetadata next = base;
                    next.metadata_log.push_back({base_uri, 0, base.last_updated_ms});
                    for (Snapshot& snapshot : next.snapshots) {
                      const std::string* id = snapshot.Find(kCommitIdKey);
                      if (id == nullptr || others.count(*id) == 0) continue;
                      std::erase_if(snapshot.summary,
                                    [](const auto& kv) { return kv.first == kPositionsKey; });
                    }
                    return std::optional<TableMetadata>(std::move(next));
                  })
                  .ok());
  Result<LoadedTable> was = catalog.Load();
  ASSERT_TRUE(was.ok());
  ASSERT_EQ(was->metadata->snapshots.size(), 6u);

  ExpireOptions dry;
  dry.dry_run = true;
  Result<ExpireReport> planned = ExpireSnapshots(catalog, *lake, dry, WallMs() + 10 * kDayMs);
  ASSERT_TRUE(planned.ok()) << planned.status().ToString();
  EXPECT_EQ(planned->expired.size(), 3u);
  EXPECT_EQ(catalog.Load()->version, was->version) << "a dry run commits nothing";
  for (const DataFile& f : inputs) {
    EXPECT_TRUE(std::filesystem::exists(tmp.path() / PathOf(tmp, f.path)));
  }

  // Nothing is older than five days yet: nothing to expire.
  Result<ExpireReport> none = ExpireSnapshots(catalog, *lake, {}, WallMs());
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->expired.empty());
  EXPECT_EQ(catalog.Load()->version, was->version);

  ExpireOptions options;
  options.previous_versions_max = 2;
  Result<ExpireReport> report = ExpireSnapshots(catalog, *lake, options, WallMs() + 10 * kDayMs);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_TRUE(report->not_deleted.empty()) << ::testing::PrintToString(report->not_deleted);
  EXPECT_EQ(report->expired.size(), 3u)
      << "the three appends; the replace, the newest and the one between stay";
  Result<LoadedTable> is = catalog.Load();
  ASSERT_TRUE(is.ok() && is->metadata);
  EXPECT_EQ(is->version, was->version + 1);
  EXPECT_EQ(is->metadata->snapshots.size(), 3u);
  Result<Positions> positions = CommittedPositions(&*is->metadata);
  ASSERT_TRUE(positions.ok());
  EXPECT_EQ(positions->streams.at(kMaintStream), (std::vector<lake::SequenceRange>{{1, 30}}));

  for (const DataFile& f : inputs) {
    EXPECT_FALSE(std::filesystem::exists(tmp.path() / PathOf(tmp, f.path)))
        << "a compaction input no kept snapshot names is deleted: " << f.path;
  }
  for (const DataFile& f : LiveFiles(*lake, catalog)) {
    EXPECT_TRUE(std::filesystem::exists(tmp.path() / PathOf(tmp, f.path)));
  }
  EXPECT_EQ(is->metadata->metadata_log.size(), 2u);
  size_t metadata_files = 0;
  for (const auto& e : std::filesystem::directory_iterator(tmp.path() / "ledger/metadata")) {
    if (e.path().string().ends_with(".metadata.json")) ++metadata_files;
  }
  EXPECT_EQ(metadata_files, 3u) << "the newest and the two the log keeps";
  std::set<std::string> expected = appended.event_ids;
  expected.insert(later.event_ids.begin(), later.event_ids.end());
  EXPECT_EQ(MaintReadIds(tmp), expected) << "icebird reads the table whole after expiry";

  // The positions still refuse a redelivery.
  Append again;
  BatchPositions batch;
  batch.positions.streams[kMaintStream] = {{5, 6}};
  again.marks = Marks(std::move(batch));
  EXPECT_FALSE(catalog.Commit(again).ok());
}

// A table no snapshot of which carries positions (an import's, another engine's) has none to
// keep: its old snapshots expire like any. Failed before: the walk to the nearest carrier found
// none and kept the whole chain, so such a table was never expired (seen by
// TableCompactS3.EachMergeOfABucketTableIsOneReplaceAndTheOldSnapshotReadsUntilExpiry).
TEST(Expire, ATableWhoseSnapshotsCarryNoPositionsExpiresDownToTheNewest) {
  testing::TempDir tmp;
  auto lake = MaintLake(tmp);
  FilesCatalog catalog = MaintCatalog(*lake, tmp);
  Committed appended = CommitFlushes(*lake, catalog, "import", 4, 10);
  ASSERT_EQ(appended.commit_ids.size(), 4u);
  Result<ExpireReport> report = ExpireSnapshots(catalog, *lake, {}, WallMs() + 10 * kDayMs);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->expired.size(), 3u);
  Result<LoadedTable> is = catalog.Load();
  ASSERT_TRUE(is.ok() && is->metadata);
  EXPECT_EQ(is->metadata->snapshots.size(), 1u);
  EXPECT_EQ(MaintReadIds(tmp), appended.event_ids) << "the newest snapshot still holds every row";
}

TEST(Expire, ACompactionsInputsOutliveTheirReplaceByTheGlobGraceThenGo) {
  testing::TempDir tmp;
  auto lake = MaintLake(tmp);
  FilesCatalog catalog = MaintCatalog(*lake, tmp);
  ASSERT_EQ(CommitFlushes(*lake, catalog, "a", 2, 10, kMaintStream).commit_ids.size(), 2u);
  const std::vector<DataFile> inputs = LiveFiles(*lake, catalog);
  Replace replace;
  for (const DataFile& f : inputs) replace.removed.push_back(f.path);
  replace.added = Rewritten(*lake, catalog, "a", 0, 20, "compactor");
  ASSERT_TRUE(catalog.CommitReplace(replace).ok());

  // Right after the replace, with --older-than 0: the first append expires, but the replace's
  // parent still names the inputs a glob reader may have listed a moment ago, so it stays.
  ExpireOptions options;
  options.older_than = std::chrono::milliseconds(0);
  Result<ExpireReport> report = ExpireSnapshots(catalog, *lake, options, WallMs());
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->expired.size(), 1u);
  EXPECT_EQ(report->kept_for_grace.size(), 1u);
  for (const DataFile& f : inputs) {
    EXPECT_TRUE(std::filesystem::exists(tmp.path() / PathOf(tmp, f.path))) << f.path;
  }
  // An hour later the grace has passed: the parent goes, and the inputs with it.
  report = ExpireSnapshots(catalog, *lake, options, WallMs() + 3600 * 1000 + 1000);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->expired.size(), 1u);
  EXPECT_TRUE(report->kept_for_grace.empty());
  for (const DataFile& f : inputs) {
    EXPECT_FALSE(std::filesystem::exists(tmp.path() / PathOf(tmp, f.path))) << f.path;
  }
  EXPECT_EQ(MaintReadIds(tmp).size(), 20u);
}

TEST(Orphans, FilesNoSnapshotNamesAreFoundAndDeletedButNotTheVersionChainOrPartsOlderThanTheTable) {
  testing::TempDir tmp;
  auto lake = MaintLake(tmp);
  FilesCatalog catalog = MaintCatalog(*lake, tmp);
  // A Part of the lake from before the table (its hive view): never an orphan.
  lake::LakeWriterOptions options;
  options.key_prefix = "ledger";
  options.instance = "before";
  options.encode_threads = 1;
  std::vector<std::string> before_keys;
  {
    lake::LakeWriter writer(*lake, options);
    row::RowBuffer batch(row::kLedgerColumns);
    testing::AddLedgerRow(batch, "before-1", 1'767'225'600'000'000, "billing");
    Result<lake::FlushReport> flushed = writer.Flush(batch, {"GARM_LEDGER", 1, 1});
    ASSERT_TRUE(flushed.ok());
    for (const lake::PartReport& p : flushed->parts) before_keys.push_back(p.key);
  }
  for (const std::string& k : before_keys) {
    std::filesystem::last_write_time(
        tmp.path() / k, std::filesystem::file_time_type::clock::now() - std::chrono::hours(1));
  }
  Committed committed = CommitFlushes(*lake, catalog, "a", 2, 10);
  ASSERT_EQ(committed.commit_ids.size(), 2u);
  // A flush whose commit failed (its Part is placed, no snapshot names it) and a failed
  // commit's manifest.
  std::vector<std::string> uncommitted;
  {
    options.instance = "failed";
    lake::LakeWriter writer(*lake, options);
    row::RowBuffer batch(row::kLedgerColumns);
    testing::AddLedgerRow(batch, "failed-1", 1'767'225'600'000'000, "crm-sync");
    Result<lake::FlushReport> flushed = writer.Flush(batch, {"GARM_LEDGER", 2, 2});
    ASSERT_TRUE(flushed.ok());
    for (const lake::PartReport& p : flushed->parts) uncommitted.push_back(p.key);
  }
  ASSERT_TRUE(lake->Replace("ledger/metadata/deadbeef-m0.avro", "not named").ok());
  uncommitted.push_back("ledger/metadata/deadbeef-m0.avro");

  // Young: nothing is old enough yet.
  Result<OrphanReport> young = FindOrphans(catalog, *lake, {}, WallMs());
  ASSERT_TRUE(young.ok()) << young.status().ToString();
  EXPECT_TRUE(young->orphans.empty());

  OrphanOptions list;
  Result<OrphanReport> found = FindOrphans(catalog, *lake, list, WallMs() + 4 * kDayMs);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  std::set<std::string> keys;
  for (const lake::StoredObject& o : found->orphans) keys.insert(o.key);
  EXPECT_EQ(keys, std::set<std::string>(uncommitted.begin(), uncommitted.end()));
  EXPECT_EQ(found->deleted, 0u) << "listing deletes nothing";
  for (const std::string& k : uncommitted) EXPECT_TRUE(std::filesystem::exists(tmp.path() / k));

  OrphanOptions remove;
  remove.remove = true;
  Result<OrphanReport> removed = FindOrphans(catalog, *lake, remove, WallMs() + 4 * kDayMs);
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(removed->deleted, uncommitted.size());
  for (const std::string& k : uncommitted) EXPECT_FALSE(std::filesystem::exists(tmp.path() / k));
  for (const std::string& k : before_keys) EXPECT_TRUE(std::filesystem::exists(tmp.path() / k));
  EXPECT_TRUE(std::filesystem::exists(tmp.path() / "ledger/metadata/v1.metadata.json"));
  EXPECT_TRUE(std::filesystem::exists(tmp.path() / "ledger/metadata/version-hint.text"));
  EXPECT_EQ(MaintReadIds(tmp), committed.event_ids) << "the table is whole";

  testing::TempDir empty;
  auto none = MaintLake(empty);
  FilesCatalog no_table = MaintCatalog(*none, empty);
  EXPECT_TRUE(FindOrphans(no_table, *none, list, WallMs()).status().IsNotFound());
}

}  // namespace
}  // namespace sinkd::iceberg
