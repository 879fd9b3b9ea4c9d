// Replace, expiry and orphan removal on a bucket table (s3rver behind the SigV4 layer, whose
// If-None-Match: * is an atomic compare-and-swap): two replaces of the same Parts racing with
// appends — exactly one lands, every append lands; expiry then deletes the inputs only the old
// snapshots named; an uncommitted Part is the one orphan, deleted through If-Match.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "iceberg/committers.h"
#include "iceberg/maintenance.h"
#include "s3/s3_destination.h"
#include "s3_server.h"

namespace sinkd::iceberg {
namespace {

using sinkd::testing::S3Server;
using sinkd::testing::TestOptions;

std::unique_ptr<s3::S3Destination> MaintBucket(const S3Server& server, Logger& log) {
  auto made = s3::S3Destination::Make(TestOptions(server.endpoint()), &log);
  EXPECT_TRUE(made.ok()) << made.status().ToString();
  EXPECT_TRUE((*made)->Ensure().ok());
  return std::move(*made);
}

int64_t S3WallMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

TEST(S3Table, ReplacesRacingAppendsLandOnceThenExpiryAndOrphansCleanTheBucket) {
  S3Server server;
  ASSERT_TRUE(server.ok()) << server.error();
  Logger log(stderr);
  const std::string lake_uri = "s3://garm-lake";
  const std::string stream = StreamIdentity("GARM_LEDGER", "2026-01-01T00:00:00Z");
  auto bucket = MaintBucket(server, log);
  FilesCatalog catalog(*bucket, lake_uri, "ledger", SpecOf(row::kLedgerColumns));
  Committed base = CommitFlushes(*bucket, catalog, "base", 3, 10, stream);
  ASSERT_EQ(base.commit_ids.size(), 3u);
  std::vector<std::string> removed;
  for (const DataFile& f : LiveFiles(*bucket, catalog)) removed.push_back(f.path);
  ASSERT_EQ(removed.size(), 6u);

  std::atomic<int> ready = 0;
  std::vector<Result<CommitReport>> replaced(2, Status::Internal("not run"));
  Committed appended;
  std::vector<std::thread> threads;
  for (int c = 0; c < 2; ++c) {
    threads.emplace_back([&, c] {
      auto own = MaintBucket(server, log);
      FilesCatalog mine(*own, lake_uri, "ledger", SpecOf(row::kLedgerColumns));
      Replace replace;
      replace.removed = removed;
      replace.added = Rewritten(*own, mine, "base", 0, 30, "compactor-" + std::to_string(c));
      ++ready;
      while (ready < 3) std::this_thread::yield();
      replaced[c] = mine.CommitReplace(replace);
    });
  }
  threads.emplace_back([&] {
    auto own = MaintBucket(server, log);
    FilesCatalog mine(*own, lake_uri, "ledger", SpecOf(row::kLedgerColumns));
    ++ready;
    while (ready < 3) std::this_thread::yield();
    appended = CommitFlushes(*own, mine, "drain", 4, 10);
  });
  for (std::thread& t : threads) t.join();
  ASSERT_EQ(appended.commit_ids.size(), 4u);
  int won = 0;
  for (const Result<CommitReport>& r : replaced) {
    if (r.ok()) {
      ++won;
    } else {
      EXPECT_TRUE(r.status().IsNotFound()) << r.status().ToString();
    }
  }
  ASSERT_EQ(won, 1) << "exactly one replace of the same Parts lands";
  Result<LoadedTable> table = catalog.Load();
  ASSERT_TRUE(table.ok() && table->metadata);
  EXPECT_EQ(*table->metadata->Current()->Find("total-records"), "70");
  Result<Positions> positions = CommittedPositions(&*table->metadata);
  ASSERT_TRUE(positions.ok());
  EXPECT_EQ(positions->streams.at(stream), (std::vector<lake::SequenceRange>{{1, 30}}));

  // Ten days later: everything but the newest snapshot (and the positions' carrier) expires, and
  // the six inputs go with the old snapshots.
  Result<ExpireReport> expired =
      ExpireSnapshots(catalog, *bucket, {}, S3WallMs() + 10 * 86'400'000);
  ASSERT_TRUE(expired.ok()) << expired.status().ToString();
  EXPECT_TRUE(expired->not_deleted.empty()) << ::testing::PrintToString(expired->not_deleted);
  for (const std::string& uri : removed) {
    Result<std::string> key = catalog.KeyOf(uri);
    ASSERT_TRUE(key.ok());
    EXPECT_TRUE(bucket->Read(*key, 0, 1).status().IsNotFound()) << uri;
  }
  positions = CommittedPositions(&*catalog.Load()->metadata);
  ASSERT_TRUE(positions.ok());
  EXPECT_EQ(positions->streams.at(stream), (std::vector<lake::SequenceRange>{{1, 30}}));

  // A flush whose commit failed: its Part is the one orphan (the losing replace's outputs too:
  // no snapshot names them either).
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  lake::LakeWriterOptions options;
  options.key_prefix = "ledger";
  options.instance = "failed";
  options.encode_threads = 1;
  lake::LakeWriter writer(*bucket, options);
  row::RowBuffer batch(row::kLedgerColumns);
  testing::AddLedgerRow(batch, "failed-1", 1'767'225'600'000'000, "billing");
  Result<lake::FlushReport> flushed = writer.Flush(batch, {"GARM_LEDGER", 99, 99});
  ASSERT_TRUE(flushed.ok());
  OrphanOptions remove;
  remove.remove = true;
  Result<OrphanReport> orphans = FindOrphans(catalog, *bucket, remove, S3WallMs() + 4 * 86'400'000);
  ASSERT_TRUE(orphans.ok()) << orphans.status().ToString();
  std::set<std::string> keys;
  for (const lake::StoredObject& o : orphans->orphans) keys.insert(o.key);
  EXPECT_EQ(keys.count(flushed->parts[0].key), 1u) << ::testing::PrintToString(keys);
  for (const std::string& k : keys) {
    EXPECT_EQ(k.find("/metadata/v"), std::string::npos) << "never a version file: " << k;
  }
  EXPECT_EQ(orphans->deleted, orphans->orphans.size());
  EXPECT_TRUE(bucket->Read(flushed->parts[0].key, 0, 1).status().IsNotFound());

  // The table reads whole: every row once.
  testing::TempDir mirror;
  Result<std::vector<lake::StoredObject>> objects = bucket->List("ledger/");
  ASSERT_TRUE(objects.ok());
  for (const lake::StoredObject& o : *objects) {
    Result<std::string> bytes = bucket->Read(o.key, 0, o.size);
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    testing::WriteFile(mirror.path() / o.key, *bytes);
  }
  const nlohmann::json read = IcebirdRead(lake_uri + "/ledger", {.s3_mirror = mirror.path()});
  ASSERT_FALSE(read.is_discarded());
  std::multiset<std::string> rows;
  for (const auto& row : read["rows"]) rows.insert(row["event_id"].get<std::string>());
  std::set<std::string> expected = base.event_ids;
  expected.insert(appended.event_ids.begin(), appended.event_ids.end());
  EXPECT_EQ(rows.size(), expected.size());
  EXPECT_EQ(std::set<std::string>(rows.begin(), rows.end()), expected);
}

}  // namespace
}  // namespace sinkd::iceberg
