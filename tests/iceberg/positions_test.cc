// Exactly-once bookkeeping: the source positions a table holds travel in every snapshot sinkd
// writes, a batch's already-committed positions are found against the newest metadata, and the
// check runs inside the commit's retry loop, so two committers racing with one redelivered
// message cannot both commit it. And manifests are merged as commits accumulate, each file
// keeping the sequence number of the snapshot that added it.
#include "iceberg/positions.h"

#include <gtest/gtest.h>

#include "iceberg/committers.h"
#include "lake/dir_destination.h"
#include "support/wrapped_destination.h"

namespace sinkd::iceberg {
namespace {

using lake::SequenceRange;

const std::string kLedger = StreamIdentity("GARM_LEDGER", "2026-01-01T00:00:00.000000001Z");

BatchPositions StreamBatch(const std::string& stream, std::vector<SequenceRange> ranges) {
  BatchPositions b;
  b.positions.streams[stream] = std::move(ranges);
  return b;
}

TEST(Positions, RangesMergeAdjacentOnesAndRoundTripThroughTheSummaryValue) {
  EXPECT_EQ(MergeRanges({{11, 20}, {1, 10}, {30, 40}, {35, 50}, {52, 52}}),
            (std::vector<SequenceRange>{{1, 20}, {30, 50}, {52, 52}}));
  Positions p;
  p.streams[kLedger] = {{1, 20}, {30, 50}};
  p.outbox["ledger_lake"] = 1234;
  p.outbox_txid["ledger_lake"] = 880;
  Result<Positions> back = ParsePositions(PositionsJson(p));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, p);
  for (const char* bad :
       {"[]", R"({"streams":{"s":[[5,1]]}})", R"({"streams":{"s":[[1]]}})",
        R"({"outbox":{"x":-1}})", R"({"streams":[]})", "not json",
        R"({"outbox":{"x":1},"outbox_txid":{"x":"7"}})", R"({"outbox_txid":{"x":7}})"}) {
    EXPECT_TRUE(ParsePositions(bad).status().IsReject()) << bad;
  }
}

TEST(Positions, WhatIsAlreadyCommittedIsTheOverlapOfTheSameStreamIdentityOrUpToTheOutboxMark) {
  Positions committed;
  committed.streams[kLedger] = {{1, 100}, {150, 200}};
  committed.outbox["audit_lake"] = 500;
  committed.outbox_txid["audit_lake"] = 40;
  BatchPositions batch = StreamBatch(kLedger, {{90, 160}, {300, 310}});
  // The same name re-created later is another stream: its 1-50 are new messages.
  batch.positions.streams[StreamIdentity("GARM_LEDGER", "2026-03-01T00:00:00Z")] = {{1, 50}};
  batch.positions.outbox["audit_lake"] = 520;
  batch.positions.outbox_txid["audit_lake"] = 41;
  batch.outbox_first["audit_lake"] = {40, 490};
  batch.positions.outbox["other_lake"] = 7;
  const Positions again = AlreadyCommitted(committed, batch);
  EXPECT_EQ(again.streams.size(), 1u);
  EXPECT_EQ(again.streams.at(kLedger), (std::vector<SequenceRange>{{90, 100}, {150, 160}}));
  EXPECT_EQ(again.outbox, (std::map<std::string, uint64_t>{{"audit_lake", 500}}));
  EXPECT_EQ(again.OutboxMark("audit_lake"), (std::pair<uint64_t, uint64_t>{40, 500}));
  batch.outbox_first["audit_lake"] = {40, 501};
  batch.positions.streams.erase(kLedger);
  EXPECT_TRUE(AlreadyCommitted(committed, batch).empty());
}

// The outbox delivers in (txid, seq) order: two producers' transactions interleave their seqs, so
// txid 100 holds seqs 5 and 7 and txid 101 seq 6, delivered 5, 7, 6. Once a batch ending at
// (100, 7) is committed, (101, 6) is not: a mark of seq alone took it for committed and the table
// lost the row (failed before: 6 <= 7 made it "already committed").
TEST(Positions, AnOutboxMarkIsATxidAndSeqPairSoALaterTransactionsLowerSeqIsNotTakenForCommitted) {
  Positions committed;
  committed.outbox["lake"] = 7;
  committed.outbox_txid["lake"] = 100;
  BatchPositions next;
  next.positions.outbox["lake"] = 6;
  next.positions.outbox_txid["lake"] = 101;
  next.outbox_first["lake"] = {101, 6};
  EXPECT_TRUE(AlreadyCommitted(committed, next).empty());
  // Merged, the mark moves to the later position even though its seq is lower.
  const Positions merged = Merge(committed, next.positions);
  EXPECT_EQ(merged.OutboxMark("lake"), (std::pair<uint64_t, uint64_t>{101, 6}));
  // A redelivery of (100, 5)…(100, 7) is committed up to the mark, (100, 7).
  BatchPositions again;
  again.positions.outbox["lake"] = 7;
  again.positions.outbox_txid["lake"] = 100;
  again.outbox_first["lake"] = {100, 5};
  EXPECT_EQ(AlreadyCommitted(merged, again).OutboxMark("lake"),
            (std::pair<uint64_t, uint64_t>{100, 7}));
  // A mark written without its txid (before it was kept) holds nothing back.
  Positions legacy;
  legacy.outbox["lake"] = 7;
  EXPECT_TRUE(AlreadyCommitted(legacy, next).empty());
  Result<Positions> parsed = ParsePositions(R"({"outbox":{"lake":7}})");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(parsed->OutboxMark("lake"), (std::pair<uint64_t, uint64_t>{0, 7}));
}

std::unique_ptr<lake::DirDestination> PositionsLake(const testing::TempDir& dir) {
  auto made = lake::DirDestination::Make(dir.path().string());
  EXPECT_TRUE(made.ok());
  EXPECT_TRUE((*made)->Ensure().ok());
  return std::move(*made);
}

FilesCatalog PositionsCatalog(lake::Destination& d, const testing::TempDir& dir,
                              CommitOptions options = {}) {
  return FilesCatalog(d, "file://" + dir.path().string(), "ledger", SpecOf(row::kLedgerColumns),
                      options);
}

Result<Positions> Newest(FilesCatalog& catalog) {
  SINKD_ASSIGN_OR_RETURN(LoadedTable t, catalog.Load());
  return CommittedPositions(t.metadata ? &*t.metadata : nullptr);
}

TEST(Positions, EverySnapshotCarriesTheWholeSetAndOneWithoutThemFallsBackToItsAncestor) {
  testing::TempDir tmp;
  auto lake = PositionsLake(tmp);
  FilesCatalog catalog = PositionsCatalog(*lake, tmp);
  ASSERT_TRUE(catalog.Commit({{}, Marks(StreamBatch(kLedger, {{1, 10}}))}).ok());
  ASSERT_TRUE(catalog.Commit({{}, Marks(StreamBatch(kLedger, {{11, 20}, {25, 30}}))}).ok());
  Result<Positions> p = Newest(catalog);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->streams.at(kLedger), (std::vector<SequenceRange>{{1, 20}, {25, 30}}));
  // A snapshot carrying no positions (another engine's append): the ancestor's still count.
  ASSERT_TRUE(catalog.Commit({}).ok());
  p = Newest(catalog);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->streams.at(kLedger), (std::vector<SequenceRange>{{1, 20}, {25, 30}}));
  Result<CommitReport> again = catalog.Commit({{}, Marks(StreamBatch(kLedger, {{21, 26}}))});
  ASSERT_FALSE(again.ok());
  EXPECT_TRUE(again.status().IsRedeliver());
  EXPECT_NE(again.status().message().find("25-26"), std::string::npos) << again.status().message();
  Result<LoadedTable> table = catalog.Load();
  ASSERT_TRUE(table.ok());
  EXPECT_EQ(table->version, 3) << "nothing committed";
}

// Runs `before` once, just before the first metadata create of this destination: another
// committer that gets there first.
class FirstCreateAfter : public testing::WrappedDestination {
 public:
  FirstCreateAfter(lake::Destination& inner, std::function<void()> before)
      : WrappedDestination(inner), before_(std::move(before)) {}
  Result<std::unique_ptr<lake::PartUpload>> Begin(const std::string& key) override {
    if (before_ && key.find(".metadata.json") != std::string::npos) std::exchange(before_, {})();
    return WrappedDestination::Begin(key);
  }

 private:
  std::function<void()> before_;
};

TEST(Positions, TwoCommittersRacingWithOneRedeliveredMessageCommitItOnceBecauseTheCheckIsRetried) {
  testing::TempDir tmp;
  auto lake_a = PositionsLake(tmp);
  auto lake_b = PositionsLake(tmp);
  FilesCatalog a = PositionsCatalog(*lake_a, tmp);
  ASSERT_TRUE(a.Commit({{}, Marks(StreamBatch(kLedger, {{1, 10}}))}).ok());
  // Both saw 1-10 committed and batched 11-20 (message 15 redelivered to both); A commits while
  // B is between its check and its create.
  Result<CommitReport> a_commit = Status::Internal("not run");
  FirstCreateAfter lake_b_racing(*lake_b, [&] {
    a_commit = a.Commit({{}, Marks(StreamBatch(kLedger, {{11, 16}}))});
  });
  CommitOptions fast;
  fast.sleep = [](std::chrono::milliseconds) {};
  FilesCatalog b = PositionsCatalog(lake_b_racing, tmp, fast);
  Result<CommitReport> b_commit = b.Commit({{}, Marks(StreamBatch(kLedger, {{15, 20}}))});
  ASSERT_TRUE(a_commit.ok()) << a_commit.status().ToString();
  ASSERT_FALSE(b_commit.ok()) << "B's retry re-checked against A's snapshot";
  EXPECT_NE(b_commit.status().message().find("15-16"), std::string::npos)
      << b_commit.status().message();
  Result<Positions> p = Newest(a);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->streams.at(kLedger), (std::vector<SequenceRange>{{1, 16}}));
}

TEST(FilesCatalog, ManifestsAreMergedAsTheyAccumulateAndEveryFileKeepsItsSequenceNumber) {
  testing::TempDir tmp;
  auto lake = PositionsLake(tmp);
  CommitOptions options;
  options.merge_min_count = 4;
  FilesCatalog catalog = PositionsCatalog(*lake, tmp, options);
  // Which snapshot's sequence number each file was added under, as the commits made them.
  std::map<std::string, int64_t> added_at;
  std::set<std::string> ids;
  constexpr int kCommits = 11;
  for (int c = 0; c < kCommits; ++c) {
    Committed one = CommitFlushes(*lake, catalog, "m" + std::to_string(c), 1, 6);
    ASSERT_EQ(one.commit_ids.size(), 1u);
    ids.insert(one.event_ids.begin(), one.event_ids.end());
    Result<LoadedTable> t = catalog.Load();
    ASSERT_TRUE(t.ok());
    const Snapshot* s = t->metadata->Current();
    auto list_key = catalog.KeyOf(s->manifest_list);
    ASSERT_TRUE(list_key.ok());
    Result<std::vector<ManifestFile>> list =
        ReadManifestList(testing::ReadFile(tmp.path() / *list_key));
    ASSERT_TRUE(list.ok());
    EXPECT_LE(list->size(), 4u) << "commit " << c;
    // The files this commit added are ADDED entries of the last manifest.
    auto m_key = catalog.KeyOf(list->back().path);
    ASSERT_TRUE(m_key.ok());
    Result<std::vector<ManifestEntry>> entries =
        ReadManifest(testing::ReadFile(tmp.path() / *m_key), SpecOf(row::kLedgerColumns));
    ASSERT_TRUE(entries.ok());
    for (const ManifestEntry& e : *entries) added_at[e.file.path] = s->sequence_number;
  }
  Result<LoadedTable> t = catalog.Load();
  ASSERT_TRUE(t.ok());
  const Snapshot* s = t->metadata->Current();
  Result<std::vector<ManifestFile>> list =
      ReadManifestList(testing::ReadFile(tmp.path() / *catalog.KeyOf(s->manifest_list)));
  ASSERT_TRUE(list.ok());
  std::map<std::string, int64_t> live;
  for (const ManifestFile& m : *list) {
    Result<std::vector<ManifestEntry>> entries = ReadManifest(
        testing::ReadFile(tmp.path() / *catalog.KeyOf(m.path)), SpecOf(row::kLedgerColumns));
    ASSERT_TRUE(entries.ok());
    for (const ManifestEntry& e : *entries) {
      EXPECT_NE(e.status, EntryStatus::kDeleted);
      const int64_t sequence = e.sequence_number.value_or(m.sequence_number);
      EXPECT_TRUE(live.emplace(e.file.path, sequence).second) << e.file.path << " listed twice";
      if (e.status == EntryStatus::kExisting) {
        EXPECT_TRUE(e.sequence_number && e.file_sequence_number && e.snapshot_id);
        EXPECT_LE(m.min_sequence_number, *e.sequence_number);
      }
    }
  }
  EXPECT_EQ(live, added_at) << "every file once, under the sequence number it was added with";
  const nlohmann::json read = IcebirdRead("file://" + tmp.path().string() + "/ledger");
  ASSERT_FALSE(read.is_discarded());
  std::multiset<std::string> rows;
  for (const auto& row : read["rows"]) rows.insert(row["event_id"].get<std::string>());
  EXPECT_EQ(rows.size(), ids.size());
  EXPECT_EQ(std::set<std::string>(rows.begin(), rows.end()), ids);
}

TEST(FilesCatalog, AMergeRewritesManifestsOfOneSizeSoTheTableIsNotRewrittenEveryFewCommits) {
  testing::TempDir tmp;
  auto lake = PositionsLake(tmp);
  CommitOptions options;
  options.merge_min_count = 4;
  FilesCatalog catalog = PositionsCatalog(*lake, tmp, options);
  // Merging every small manifest rewrote, every third commit here, the merged one holding nearly
  // every file so far: 60 commits of 2 files rewrote 1,178 entries (O(commits²)), and each such
  // commit cost as much as the table was large (table_bench's p99 at 1,000 prior commits: 20x).
  constexpr int kCommits = 60;
  uint64_t rewritten = 0, largest = 0;
  size_t files = 0;
  for (int c = 0; c < kCommits; ++c) {
    Committed one = CommitFlushes(*lake, catalog, "t" + std::to_string(c), 1, 6);
    ASSERT_EQ(one.commit_ids.size(), 1u);
    Result<LoadedTable> t = catalog.Load();
    ASSERT_TRUE(t.ok());
    const Snapshot* s = t->metadata->Current();
    Result<std::vector<ManifestFile>> list =
        ReadManifestList(testing::ReadFile(tmp.path() / *catalog.KeyOf(s->manifest_list)));
    ASSERT_TRUE(list.ok());
    EXPECT_LE(list->size(), 4u) << "commit " << c;
    files = 0;
    for (const ManifestFile& m : *list) {
      files += m.added_files + m.existing_files;
      if (m.added_snapshot_id == s->id && m.existing_files > 0) {
        rewritten += m.existing_files;
        largest = std::max<uint64_t>(largest, m.existing_files);
      }
    }
    EXPECT_EQ(files, size_t(2 * (c + 1))) << "every file of the table listed once";
  }
  std::cout << "entries rewritten by merges: " << rewritten << ", the largest merge " << largest
            << "\n";
  EXPECT_LT(rewritten, 800u);
  EXPECT_LT(largest, 100u) << "no merge rewrote nearly the whole table of 120 files";
}

}  // namespace
}  // namespace sinkd::iceberg
