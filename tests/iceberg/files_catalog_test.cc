// The files catalog on a directory lake: committers racing on one table each get every append in
// exactly once on one chain of snapshots (the never-replace create of v<N+1> is the only lock),
// the newest version is found past a stale or missing hint, and a create whose answer was lost
// is recognised as ours by its commit id instead of being committed again.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "iceberg/committers.h"
#include "iceberg/ledger_table.h"
#include "lake/dir_destination.h"
#include "support/wrapped_destination.h"

namespace sinkd::iceberg {
namespace {

std::string LakeUri(const testing::TempDir& dir) { return "file://" + dir.path().string(); }

std::unique_ptr<lake::DirDestination> DirLake(const testing::TempDir& dir) {
  auto made = lake::DirDestination::Make(dir.path().string());
  EXPECT_TRUE(made.ok());
  EXPECT_TRUE((*made)->Ensure().ok());
  return std::move(*made);
}

FilesCatalog LedgerCatalog(lake::Destination& destination, const std::string& lake_uri,
                           CommitOptions options = {}) {
  return FilesCatalog(destination, lake_uri, "ledger", SpecOf(row::kLedgerColumns), options);
}

TEST(FilesCatalog, CommittersRacingOnOneDirectoryTableEachCommitEveryAppendOnceOnOneChain) {
  testing::TempDir tmp;
  constexpr int kCommitters = 3, kAppends = 8, kRows = 15;
  std::vector<Committed> committed(kCommitters);
  std::vector<std::thread> threads;
  std::atomic<int> ready = 0;
  for (int c = 0; c < kCommitters; ++c) {
    threads.emplace_back([&, c] {
      // Each committer its own destination, as separate processes would have.
      auto lake = DirLake(tmp);
      FilesCatalog catalog = LedgerCatalog(*lake, LakeUri(tmp));
      ++ready;
      while (ready < kCommitters) std::this_thread::yield();
      committed[c] = CommitFlushes(*lake, catalog, "c" + std::to_string(c), kAppends, kRows);
    });
  }
  for (std::thread& t : threads) t.join();

  std::vector<std::string> commit_ids;
  std::set<std::string> event_ids;
  int lost = 0;
  for (const Committed& c : committed) {
    ASSERT_EQ(c.commit_ids.size(), size_t{kAppends});
    commit_ids.insert(commit_ids.end(), c.commit_ids.begin(), c.commit_ids.end());
    event_ids.insert(c.event_ids.begin(), c.event_ids.end());
    lost += c.lost_races;
  }
  auto lake = DirLake(tmp);
  Result<LoadedTable> table = LedgerCatalog(*lake, LakeUri(tmp)).Load();
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  ASSERT_TRUE(table->metadata);
  EXPECT_EQ(table->version, kCommitters * kAppends) << "one metadata file per commit, no gaps";
  EXPECT_EQ(table->hint, table->version) << "the hint ends at the newest version";
  ExpectOneChainOf(*table->metadata, commit_ids, event_ids.size());
  std::cout << "lost races: " << lost << "\n";

  const nlohmann::json read = IcebirdRead(LakeUri(tmp) + "/ledger");
  ASSERT_FALSE(read.is_discarded());
  std::multiset<std::string> rows;
  for (const auto& row : read["rows"]) rows.insert(row["event_id"].get<std::string>());
  EXPECT_EQ(rows.size(), event_ids.size()) << "icebird reads every committed row once";
  EXPECT_EQ(std::set<std::string>(rows.begin(), rows.end()), event_ids);
}

TEST(FilesCatalog, TheNewestVersionIsFoundPastAStaleOrMissingHintAndTheHintMovesOnlyForward) {
  testing::TempDir tmp;
  auto lake = DirLake(tmp);
  FilesCatalog catalog = LedgerCatalog(*lake, LakeUri(tmp));
  Committed first = CommitFlushes(*lake, catalog, "a", 3, 4);
  ASSERT_EQ(first.commit_ids.size(), 3u);
  const std::filesystem::path hint = tmp.path() / "ledger/metadata/version-hint.text";
  EXPECT_EQ(testing::ReadFile(hint), "3") << "digits only, no newline";

  // A committer that crashed before its hint: the hint says 1, v2 and v3 exist.
  ASSERT_TRUE(lake->Replace("ledger/metadata/version-hint.text", "1").ok());
  Result<LoadedTable> loaded = catalog.Load();
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ(loaded->hint, 1);
  EXPECT_EQ(loaded->version, 3) << "probed past the stale hint";
  Committed next = CommitFlushes(*lake, catalog, "b", 1, 4);
  ASSERT_EQ(next.commit_ids.size(), 1u);
  EXPECT_EQ(testing::ReadFile(hint), "4") << "the commit went to v4, not over v2";

  // No hint, or one that is not a number: the listing gives the start.
  std::filesystem::remove(hint);
  loaded = catalog.Load();
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->version, 4);
  testing::WriteFile(hint, "4\n");
  loaded = catalog.Load();
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->version, 4);

  // A hint ahead of a stale committer is never moved back: write a hint of 9 and commit.
  ASSERT_TRUE(lake->Replace("ledger/metadata/version-hint.text", "9").ok());
  Committed last = CommitFlushes(*lake, catalog, "c", 1, 4);
  ASSERT_EQ(last.commit_ids.size(), 1u);
  EXPECT_EQ(testing::ReadFile(hint), "9");
  ASSERT_TRUE(std::filesystem::exists(tmp.path() / "ledger/metadata/v5.metadata.json"));

  std::vector<std::string> ids = first.commit_ids;
  ids.push_back(next.commit_ids[0]);
  ids.push_back(last.commit_ids[0]);
  loaded = catalog.Load();
  ASSERT_TRUE(loaded.ok());
  ExpectOneChainOf(*loaded->metadata, ids, 20);
}

// Places a metadata file and then loses the answer (as a timeout after the store wrote it), or
// reports it taken (as an S3 ETag sinkd cannot reproduce would), `times` times.
class LosingAnswers : public testing::WrappedDestination {
 public:
  enum class Lie { kError, kTaken };
  LosingAnswers(lake::Destination& inner, Lie lie, int times)
      : WrappedDestination(inner), lie_(lie), left_(times) {}

  Result<std::unique_ptr<lake::PartUpload>> Begin(const std::string& key) override {
    SINKD_ASSIGN_OR_RETURN(std::unique_ptr<lake::PartUpload> upload,
                           WrappedDestination::Begin(key));
    if (key.find(".metadata.json") == std::string::npos || left_ == 0) return upload;
    --left_;
    return std::unique_ptr<lake::PartUpload>(new Upload(std::move(upload), lie_));
  }

 private:
  class Upload : public lake::PartUpload {
   public:
    Upload(std::unique_ptr<lake::PartUpload> inner, Lie lie)
        : inner_(std::move(inner)), lie_(lie) {}
    Status Append(std::span<const uint8_t> bytes) override { return inner_->Append(bytes); }
    Result<lake::Placed> Commit() override {
      SINKD_ASSIGN_OR_RETURN(const lake::Placed placed, inner_->Commit());
      if (placed != lake::Placed::kNew) return placed;
      if (lie_ == Lie::kTaken) return lake::Placed::kTaken;
      return Status::Redeliver("the answer was lost");
    }
    void Abort() override { inner_->Abort(); }

   private:
    std::unique_ptr<lake::PartUpload> inner_;
    Lie lie_;
  };
  Lie lie_;
  int left_;
};

TEST(FilesCatalog, ACommitWhoseAnswerWasLostIsFoundByItsCommitIdAndNotCommittedAgain) {
  for (LosingAnswers::Lie lie : {LosingAnswers::Lie::kError, LosingAnswers::Lie::kTaken}) {
    testing::TempDir tmp;
    auto dir = DirLake(tmp);
    FilesCatalog plain = LedgerCatalog(*dir, LakeUri(tmp));
    Committed before = CommitFlushes(*dir, plain, "a", 2, 4);
    LosingAnswers lake(*dir, lie, 1);
    std::vector<std::chrono::milliseconds> waits;
    CommitOptions options;
    options.sleep = [&](std::chrono::milliseconds d) { waits.push_back(d); };
    FilesCatalog catalog = LedgerCatalog(lake, LakeUri(tmp), options);
    Committed lost = CommitFlushes(lake, catalog, "b", 1, 4);
    ASSERT_EQ(lost.commit_ids.size(), 1u);
    Result<LoadedTable> table = catalog.Load();
    ASSERT_TRUE(table.ok());
    EXPECT_EQ(table->version, 3) << "one metadata file for the commit, not a second";
    std::vector<std::string> ids = before.commit_ids;
    ids.push_back(lost.commit_ids[0]);
    ExpectOneChainOf(*table->metadata, ids, 12);
    if (lie == LosingAnswers::Lie::kError) {
      EXPECT_EQ(lost.lost_races, 1) << "a second attempt found the first one's snapshot";
      EXPECT_EQ(waits.size(), 1u);
    } else {
      EXPECT_EQ(lost.lost_races, 0) << "the file in the way was read back and was ours";
    }
  }
}

TEST(FilesCatalog, ACommitThatLosesEveryRaceFailsWithNothingCommittedAfterBoundedWaits) {
  testing::TempDir tmp;
  auto dir = DirLake(tmp);
  FilesCatalog plain = LedgerCatalog(*dir, LakeUri(tmp));
  ASSERT_EQ(CommitFlushes(*dir, plain, "a", 1, 4).commit_ids.size(), 1u);
  // Every metadata create reports the key taken by other bytes and writes nothing: a table whose
  // other committers always win.
  class AlwaysTaken : public testing::WrappedDestination {
   public:
    using WrappedDestination::WrappedDestination;
    Result<std::unique_ptr<lake::PartUpload>> Begin(const std::string& key) override {
      if (key.find(".metadata.json") == std::string::npos) return WrappedDestination::Begin(key);
      class Taken : public lake::PartUpload {
        Status Append(std::span<const uint8_t>) override { return Status::OK(); }
        Result<lake::Placed> Commit() override { return lake::Placed::kTaken; }
        void Abort() override {}
      };
      return std::unique_ptr<lake::PartUpload>(new Taken);
    }
  } lake(*dir);
  std::vector<std::chrono::milliseconds> waits;
  CommitOptions options;
  options.attempts = 4;
  options.sleep = [&](std::chrono::milliseconds d) { waits.push_back(d); };
  FilesCatalog catalog = LedgerCatalog(lake, LakeUri(tmp), options);
  Result<CommitReport> report = catalog.Commit({});
  ASSERT_FALSE(report.ok());
  EXPECT_TRUE(report.status().IsRedeliver()) << report.status().ToString();
  EXPECT_EQ(waits.size(), 3u) << "attempts - 1 waits, by the one Backoff, growing";
  for (size_t i = 1; i < waits.size(); ++i) {
    EXPECT_LE(waits[i], options.backoff.Wait(static_cast<int>(i) + 1, 1.0));
    EXPECT_GE(waits[i], options.backoff.Wait(static_cast<int>(i) + 1, 0.0));
  }
  Result<LoadedTable> table = plain.Load();
  ASSERT_TRUE(table.ok());
  EXPECT_EQ(table->version, 1);
  // v1, the hint, the first commit's manifest and list: the failed commit's manifest and lists
  // were named by nothing and are taken back.
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(tmp.path() / "ledger/metadata")) {
    names.push_back(entry.path().filename().string());
  }
  EXPECT_EQ(names.size(), 4u) << ::testing::PrintToString(names);
}

TEST(FilesCatalog, NoMergeWritesAManifestOfMoreFilesThanItsCapAndOneOfTheCapReadsBack) {
  // 32 manifests of 1,300 files, each far under merge_target_bytes: merged whole they made one
  // of 41,600 entries, past what the Avro reader builds (ReadLimits::max_values), and every later
  // commit of the table failed reading it (table_bench after 10,000 commits of 4 files).
  CommitOptions options;
  std::vector<ManifestFile> list(32);
  for (ManifestFile& m : list) {
    m.length = 200'000;
    m.existing_files = 1'300;
  }
  std::set<size_t> chosen = ManifestsToMerge(list, options);
  ASSERT_GE(chosen.size(), 2u);
  EXPECT_LE(chosen.size() * 1'300, options.merge_max_entries);
  EXPECT_EQ(*chosen.begin(), 0u) << "the oldest first";
  // Manifests past half the cap are never merged again; two small ones still are.
  list.resize(3);
  list[0].existing_files = int32_t(options.merge_max_entries / 2 + 1);
  list[1].existing_files = 1;
  list[2].existing_files = 1;
  chosen = ManifestsToMerge(list, options);
  EXPECT_EQ(chosen.count(0), 0u);
  EXPECT_EQ(chosen.count(1) + chosen.count(2), 2u);
  options.merge_max_entries = 1;
  EXPECT_FALSE(options.Validate().ok());

  // A manifest of the cap's worth of ledger files, every statistic present, reads back.
  testing::TempDir tmp;
  const LedgerTable table = WriteLedgerTable(tmp.path(), 1, 50);
  ASSERT_FALSE(table.files.empty());
  const TableSpec spec = SpecOf(row::kLedgerColumns);
  std::vector<ManifestEntry> entries;
  for (uint64_t i = 0; i < CommitOptions{}.merge_max_entries; ++i) {
    DataFile f = table.files[i % table.files.size()];
    f.path += "-" + std::to_string(i);
    entries.push_back({EntryStatus::kExisting, 1, 1, 1, std::move(f)});
  }
  Result<Manifest> manifest = WriteManifest(spec, "file:///m.avro", 2, 2, entries);
  ASSERT_TRUE(manifest.ok()) << manifest.status().ToString();
  Result<std::vector<ManifestEntry>> read = ReadManifest(manifest->bytes, spec);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(read->size(), entries.size());
}

TEST(FilesCatalog, AMetadataFileReusedUnderItsNameByATableMadeAgainIsReadAgainNotRemembered) {
  // The catalog keeps the last metadata it parsed or wrote and skips parsing the same bytes again;
  // a table removed and committed to afresh reuses v1, v2, …, which must be read as they are now.
  testing::TempDir tmp;
  auto lake = DirLake(tmp);
  FilesCatalog catalog = LedgerCatalog(*lake, LakeUri(tmp));
  Committed first = CommitFlushes(*lake, catalog, "old", 2, 4);
  ASSERT_EQ(first.commit_ids.size(), 2u);
  Result<LoadedTable> before = catalog.Load();
  ASSERT_TRUE(before.ok());
  ASSERT_EQ(before->version, 2);

  std::filesystem::remove_all(tmp.path() / "ledger");
  auto other_lake = DirLake(tmp);
  FilesCatalog other = LedgerCatalog(*other_lake, LakeUri(tmp));
  Committed second = CommitFlushes(*other_lake, other, "new", 2, 5);
  ASSERT_EQ(second.commit_ids.size(), 2u);

  Result<LoadedTable> after = catalog.Load();
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  ASSERT_EQ(after->version, 2);
  EXPECT_NE(after->metadata->uuid, before->metadata->uuid) << "the old table was remembered";
  ExpectOneChainOf(*after->metadata, second.commit_ids, second.event_ids.size());
  // And a commit through the first catalog builds on the new table.
  Committed third = CommitFlushes(*lake, catalog, "next", 1, 3);
  ASSERT_EQ(third.commit_ids.size(), 1u);
  Result<LoadedTable> last = other.Load();
  ASSERT_TRUE(last.ok());
  std::vector<std::string> ids = second.commit_ids;
  ids.push_back(third.commit_ids[0]);
  ExpectOneChainOf(*last->metadata, ids, second.event_ids.size() + third.event_ids.size());
}

}  // namespace
}  // namespace sinkd::iceberg
