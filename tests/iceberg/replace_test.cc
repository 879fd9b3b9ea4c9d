// A replace snapshot (compaction's rewrite) on a directory lake: the removed files leave and the
// added ones enter in one step, the positions travel on, an append racing a replace never
// conflicts (both land, every row once), and two replaces of the same files cannot both land —
// the loser commits nothing and is told NotFound, its inputs stay in the table.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "iceberg/committers.h"
#include "lake/dir_destination.h"
#include "support/wrapped_destination.h"

namespace sinkd::iceberg {
namespace {

const std::string kReplaceStream = StreamIdentity("GARM_LEDGER", "2026-01-01T00:00:00Z");

std::unique_ptr<lake::DirDestination> ReplaceLake(const testing::TempDir& dir) {
  auto made = lake::DirDestination::Make(dir.path().string());
  EXPECT_TRUE(made.ok());
  EXPECT_TRUE((*made)->Ensure().ok());
  return std::move(*made);
}

FilesCatalog ReplaceCatalog(lake::Destination& destination, const testing::TempDir& dir) {
  return FilesCatalog(destination, "file://" + dir.path().string(), "ledger",
                      SpecOf(row::kLedgerColumns));
}

std::multiset<std::string> IcebirdIds(const testing::TempDir& dir) {
  const nlohmann::json read = IcebirdRead("file://" + dir.path().string() + "/ledger");
  std::multiset<std::string> ids;
  if (read.is_discarded()) return ids;
  for (const auto& row : read["rows"]) ids.insert(row["event_id"].get<std::string>());
  return ids;
}

TEST(Replace, RemovedFilesLeaveAndAddedOnesEnterInOneSnapshotThatCarriesThePositions) {
  testing::TempDir tmp;
  auto lake = ReplaceLake(tmp);
  FilesCatalog catalog = ReplaceCatalog(*lake, tmp);
  Committed before = CommitFlushes(*lake, catalog, "a", 3, 10, kReplaceStream);
  ASSERT_EQ(before.commit_ids.size(), 3u);
  const std::vector<DataFile> live = LiveFiles(*lake, catalog);
  ASSERT_EQ(live.size(), 6u) << "three flushes, two apps each";

  Replace replace;
  for (const DataFile& f : live) replace.removed.push_back(f.path);
  replace.added = Rewritten(*lake, catalog, "a", 0, 30, "compactor");
  ASSERT_EQ(replace.added.size(), 2u);
  Result<CommitReport> report = catalog.CommitReplace(replace);
  ASSERT_TRUE(report.ok()) << report.status().ToString();

  Result<LoadedTable> table = catalog.Load();
  ASSERT_TRUE(table.ok() && table->metadata);
  const Snapshot& s = *table->metadata->Current();
  EXPECT_EQ(*s.Find("operation"), "replace");
  EXPECT_EQ(*s.Find("deleted-data-files"), "6");
  EXPECT_EQ(*s.Find("added-data-files"), "2");
  EXPECT_EQ(*s.Find("deleted-records"), "30");
  EXPECT_EQ(*s.Find("total-records"), "30") << "the same rows, now in two files";
  EXPECT_EQ(*s.Find("total-data-files"), "2");
  Result<Positions> positions = CommittedPositions(&*table->metadata);
  ASSERT_TRUE(positions.ok());
  EXPECT_EQ(positions->streams.at(kReplaceStream), (std::vector<lake::SequenceRange>{{1, 30}}))
      << "the replace's snapshot carries what the appends committed";

  std::vector<std::string> ids = before.commit_ids;
  ids.push_back(report->commit_id);
  ExpectOneChainOf(*table->metadata, ids, 30);
  std::vector<std::string> added_paths;
  for (const DataFile& f : LiveFiles(*lake, catalog)) added_paths.push_back(f.path);
  EXPECT_EQ(added_paths.size(), 2u);
  for (const DataFile& f : replace.added) {
    EXPECT_NE(std::find(added_paths.begin(), added_paths.end(), f.path), added_paths.end());
  }
  const std::multiset<std::string> read = IcebirdIds(tmp);
  EXPECT_EQ(read.size(), 30u) << "icebird reads every row once: the DELETED entries are skipped";
  EXPECT_EQ(std::set<std::string>(read.begin(), read.end()), before.event_ids);

  // Its positions still filter a redelivery after the replace.
  Append again;
  BatchPositions batch;
  batch.positions.streams[kReplaceStream] = {{1, 10}};
  again.marks = Marks(std::move(batch));
  Result<CommitReport> refused = catalog.Commit(again);
  ASSERT_FALSE(refused.ok()) << "sequences 1-10 are committed already";
  EXPECT_NE(refused.status().message().find("1-10"), std::string::npos);
}

// Counts the reads of each manifest (a metadata .avro that is not a manifest list).
class ManifestReadCounter final : public testing::WrappedDestination {
 public:
  using WrappedDestination::WrappedDestination;
  Result<std::string> Read(const std::string& key, uint64_t offset, uint64_t length) override {
    const bool manifest = key.find("/metadata/") != std::string::npos && key.ends_with(".avro") &&
                          key.find("/snap-") == std::string::npos;
    if (manifest) ++reads[key];
    return WrappedDestination::Read(key, offset, length);
  }
  std::map<std::string, int> reads;
};

// A compaction pass decodes the current snapshot's manifests to plan (IcebergCommit::Live) and
// its replace rewrites those naming its inputs: decoded once, kept, not read again.
TEST(Replace, AManifestDecodedToPlanIsNotReadAgainByTheReplaceThatRewritesIt) {
  testing::TempDir tmp;
  auto dir = ReplaceLake(tmp);
  ManifestReadCounter lake(*dir);
  FilesCatalog catalog = ReplaceCatalog(lake, tmp);
  ASSERT_EQ(CommitFlushes(lake, catalog, "a", 3, 10, kReplaceStream).commit_ids.size(), 3u);
  const std::vector<DataFile> live = LiveFiles(*dir, catalog);
  ASSERT_EQ(live.size(), 6u);
  Result<LoadedTable> table = catalog.Load();
  ASSERT_TRUE(table.ok() && table->metadata && table->metadata->Current());
  Result<std::string> list_key = catalog.KeyOf(table->metadata->Current()->manifest_list);
  ASSERT_TRUE(list_key.ok());
  Result<std::string> list = dir->Read(*list_key, 0, uint64_t{1} << 40);
  ASSERT_TRUE(list.ok());
  Result<std::vector<ManifestFile>> manifests = ReadManifestList(*list);
  ASSERT_TRUE(manifests.ok());
  ASSERT_EQ(manifests->size(), 3u) << "one manifest per flush";
  lake.reads.clear();
  for (const ManifestFile& m : *manifests) {
    Result<FilesCatalog::Entries> entries = catalog.Decoded(m, true);
    ASSERT_TRUE(entries.ok()) << entries.status().ToString();
    EXPECT_EQ((*entries)->size(), 2u);
  }
  EXPECT_EQ(lake.reads.size(), 3u);

  Replace replace;
  for (const DataFile& f : live) replace.removed.push_back(f.path);
  replace.added = Rewritten(*dir, catalog, "a", 0, 30, "compactor");
  Result<CommitReport> report = catalog.CommitReplace(replace);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  for (const auto& [key, reads] : lake.reads) {
    EXPECT_EQ(reads, 1) << key << " was decoded to plan and read again by the replace";
  }
  EXPECT_EQ(LiveFiles(*dir, catalog).size(), 2u) << "the replace landed as ever";

  // The new snapshot names none of them: their kept copies went with the commit.
  Result<FilesCatalog::Entries> again = catalog.Decoded(manifests->front(), false);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(lake.reads[*catalog.KeyOf(manifests->front().path)], 2);
}

// Two replaces of one pass, on a catalog with a pool of two threads: the first rewrites the
// manifests it decoded to plan; the second removes files of that rewritten manifest and rewrites
// it from the copy the first kept (built only when the second asks), never reading it. What lands
// is what one thread lands: icebird reads every row once.
TEST(Replace, ASecondReplaceRewritesTheFirstOnesManifestFromItsKeptCopyWithoutReadingIt) {
  testing::TempDir tmp;
  auto dir = ReplaceLake(tmp);
  ManifestReadCounter lake(*dir);
  CommitOptions options;
  options.threads = 2;
  FilesCatalog catalog(lake, "file://" + tmp.path().string(), "ledger",
                       SpecOf(row::kLedgerColumns), options);
  ASSERT_EQ(CommitFlushes(lake, catalog, "a", 4, 10, kReplaceStream).commit_ids.size(), 4u);
  std::vector<DataFile> live = LiveFiles(*dir, catalog);
  ASSERT_EQ(live.size(), 8u);
  Result<LoadedTable> table = catalog.Load();
  ASSERT_TRUE(table.ok() && table->metadata && table->metadata->Current());
  Result<std::string> list = dir->Read(*catalog.KeyOf(table->metadata->Current()->manifest_list),
                                       0, uint64_t{1} << 40);
  ASSERT_TRUE(list.ok());
  Result<std::vector<ManifestFile>> manifests = ReadManifestList(*list);
  ASSERT_TRUE(manifests.ok());
  for (const ManifestFile& m : *manifests) ASSERT_TRUE(catalog.Decoded(m, true).ok());

  // The first replace merges one app's Parts (one of each flush's manifests) into one: its
  // rewritten manifest holds those DELETED and the other app's EXISTING.
  std::vector<DataFile> outputs = Rewritten(*dir, catalog, "a", 0, 40, "compactor");
  ASSERT_EQ(outputs.size(), 2u);
  Replace first, second;
  for (const DataFile& f : live) {
    (f.path.find("app=billing") != std::string::npos ? first : second).removed.push_back(f.path);
  }
  ASSERT_EQ(first.removed.size(), 4u);
  for (const DataFile& f : outputs) {
    (f.path.find("app=billing") != std::string::npos ? first : second).added.push_back(f);
  }
  ASSERT_TRUE(catalog.CommitReplace(first).ok());
  lake.reads.clear();
  // The second removes the other app's four, EXISTING in the first's rewritten manifest.
  Result<CommitReport> report = catalog.CommitReplace(second);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  for (const auto& [key, reads] : lake.reads) ADD_FAILURE() << key << " was read again";
  const std::vector<DataFile> after = LiveFiles(*dir, catalog);
  ASSERT_EQ(after.size(), 2u);
  std::set<std::string> paths;
  for (const DataFile& f : after) paths.insert(f.path);
  EXPECT_EQ(paths, (std::set<std::string>{outputs[0].path, outputs[1].path}));
  EXPECT_EQ(IcebirdIds(tmp).size(), 40u) << "every row once";
}

TEST(Replace, ASecondReplaceOfTheSameFilesCommitsNothingAndIsToldNotFound) {
  testing::TempDir tmp;
  auto lake = ReplaceLake(tmp);
  FilesCatalog catalog = ReplaceCatalog(*lake, tmp);
  ASSERT_EQ(CommitFlushes(*lake, catalog, "a", 2, 10).commit_ids.size(), 2u);
  const std::vector<DataFile> live = LiveFiles(*lake, catalog);
  Replace first, second;
  for (const DataFile& f : live) first.removed.push_back(f.path);
  second.removed = {live[0].path};
  first.added = Rewritten(*lake, catalog, "a", 0, 20, "compactor-1");
  second.added = Rewritten(*lake, catalog, "a", 0, 20, "compactor-2");
  ASSERT_TRUE(catalog.CommitReplace(first).ok());
  Result<LoadedTable> was = catalog.Load();
  ASSERT_TRUE(was.ok());

  Result<CommitReport> lost = catalog.CommitReplace(second);
  ASSERT_FALSE(lost.ok());
  EXPECT_TRUE(lost.status().IsNotFound()) << lost.status().ToString();
  EXPECT_NE(lost.status().message().find(live[0].path), std::string::npos);
  Result<LoadedTable> is = catalog.Load();
  ASSERT_TRUE(is.ok());
  EXPECT_EQ(is->version, was->version) << "nothing committed";
  EXPECT_EQ(IcebirdIds(tmp).size(), 20u);

  EXPECT_TRUE(catalog.CommitReplace(Replace{}).status().IsRefuse()) << "a replace removes a file";
}

TEST(Replace, TwoReplacesOfTheSameFilesRacingLandOnceAndAnAppendRacingAReplaceNeverConflicts) {
  testing::TempDir tmp;
  auto lake = ReplaceLake(tmp);
  FilesCatalog catalog = ReplaceCatalog(*lake, tmp);
  constexpr int kBaseFlushes = 6, kRows = 10;
  Committed base = CommitFlushes(*lake, catalog, "base", kBaseFlushes, kRows, kReplaceStream);
  ASSERT_EQ(base.commit_ids.size(), size_t{kBaseFlushes});
  const std::vector<DataFile> live = LiveFiles(*lake, catalog);

  // Two compactors merging the same six files into their own outputs, and a drain appending
  // eight flushes meanwhile, each through its own destination as separate processes would.
  std::vector<std::string> removed;
  for (const DataFile& f : live) removed.push_back(f.path);
  std::atomic<int> ready = 0;
  std::vector<Result<CommitReport>> replaced(2, Status::Internal("not run"));
  std::vector<std::vector<DataFile>> outputs(2);
  Committed appended;
  std::vector<std::thread> threads;
  for (int c = 0; c < 2; ++c) {
    threads.emplace_back([&, c] {
      auto own = ReplaceLake(tmp);
      FilesCatalog mine = ReplaceCatalog(*own, tmp);
      Replace replace;
      replace.removed = removed;
      replace.added =
          Rewritten(*own, mine, "base", 0, kBaseFlushes * kRows, "compactor-" + std::to_string(c));
      outputs[c] = replace.added;
      ++ready;
      while (ready < 3) std::this_thread::yield();
      replaced[c] = mine.CommitReplace(replace);
    });
  }
  threads.emplace_back([&] {
    auto own = ReplaceLake(tmp);
    FilesCatalog mine = ReplaceCatalog(*own, tmp);
    ++ready;
    while (ready < 3) std::this_thread::yield();
    // Sequences after the base's: appends and replaces touch different positions.
    appended = CommitFlushes(*own, mine, "drain", 8, kRows);
  });
  for (std::thread& t : threads) t.join();

  ASSERT_EQ(appended.commit_ids.size(), 8u) << "every append landed beside the replaces";
  int won = 0;
  std::vector<std::string> ids = base.commit_ids;
  ids.insert(ids.end(), appended.commit_ids.begin(), appended.commit_ids.end());
  int winner = -1;
  for (int c = 0; c < 2; ++c) {
    if (replaced[c].ok()) {
      ++won;
      winner = c;
      ids.push_back(replaced[c]->commit_id);
      std::cout << "replace " << c << " won after " << replaced[c]->attempts << " attempts\n";
    } else {
      EXPECT_TRUE(replaced[c].status().IsNotFound()) << replaced[c].status().ToString();
    }
  }
  ASSERT_EQ(won, 1) << "exactly one replace of the same files lands";
  Result<LoadedTable> table = catalog.Load();
  ASSERT_TRUE(table.ok() && table->metadata);
  ExpectOneChainOf(*table->metadata, ids, (kBaseFlushes + 8) * kRows);
  Result<Positions> positions = CommittedPositions(&*table->metadata);
  ASSERT_TRUE(positions.ok());
  EXPECT_EQ(positions->streams.at(kReplaceStream),
            (std::vector<lake::SequenceRange>{{1, kBaseFlushes * kRows}}));

  std::set<std::string> live_paths;
  for (const DataFile& f : LiveFiles(*lake, catalog)) live_paths.insert(f.path);
  for (const DataFile& f : outputs[winner]) EXPECT_EQ(live_paths.count(f.path), 1u);
  for (const DataFile& f : outputs[1 - winner]) EXPECT_EQ(live_paths.count(f.path), 0u);
  for (const std::string& p : removed) EXPECT_EQ(live_paths.count(p), 0u);

  std::set<std::string> expected = base.event_ids;
  expected.insert(appended.event_ids.begin(), appended.event_ids.end());
  const std::multiset<std::string> read = IcebirdIds(tmp);
  EXPECT_EQ(read.size(), expected.size()) << "every row once: no duplicate, none lost";
  EXPECT_EQ(std::set<std::string>(read.begin(), read.end()), expected);
}

}  // namespace
}  // namespace sinkd::iceberg
