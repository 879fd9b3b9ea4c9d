// The files catalog on S3 (s3rver behind the SigV4 layer, whose If-None-Match: * is an atomic
// compare-and-swap): committers racing on one bucket table each get every append in exactly once
// on one chain of snapshots, icebird reads every row through the metadata, and a stale hint is
// probed past.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "iceberg/committers.h"
#include "s3/s3_destination.h"
#include "s3_server.h"

namespace sinkd::iceberg {
namespace {

using sinkd::testing::S3Server;
using sinkd::testing::TestOptions;

std::unique_ptr<s3::S3Destination> TableBucket(const S3Server& server, Logger& log) {
  auto made = s3::S3Destination::Make(TestOptions(server.endpoint()), &log);
  EXPECT_TRUE(made.ok()) << made.status().ToString();
  EXPECT_TRUE((*made)->Ensure().ok());
  // What a table commit rests on: refused on a store whose creates can replace.
  EXPECT_TRUE((*made)->CheckExclusiveCreates("ledger").ok());
  return std::move(*made);
}

TEST(S3Table, CommittersRacingOnOneBucketTableEachCommitEveryAppendOnceOnOneChain) {
  S3Server server;
  ASSERT_TRUE(server.ok()) << server.error();
  Logger log(stderr);
  constexpr int kCommitters = 2, kAppends = 5, kRows = 10;
  const std::string lake_uri = "s3://garm-lake";
  std::vector<Committed> committed(kCommitters);
  std::vector<std::thread> threads;
  std::atomic<int> ready = 0;
  for (int c = 0; c < kCommitters; ++c) {
    threads.emplace_back([&, c] {
      auto bucket = TableBucket(server, log);
      FilesCatalog catalog(*bucket, lake_uri, "ledger", SpecOf(row::kLedgerColumns));
      ++ready;
      while (ready < kCommitters) std::this_thread::yield();
      committed[c] = CommitFlushes(*bucket, catalog, "s" + std::to_string(c), kAppends, kRows);
    });
  }
  for (std::thread& t : threads) t.join();

  std::vector<std::string> commit_ids;
  std::set<std::string> event_ids;
  for (const Committed& c : committed) {
    ASSERT_EQ(c.commit_ids.size(), size_t{kAppends});
    commit_ids.insert(commit_ids.end(), c.commit_ids.begin(), c.commit_ids.end());
    event_ids.insert(c.event_ids.begin(), c.event_ids.end());
  }
  auto bucket = TableBucket(server, log);
  FilesCatalog catalog(*bucket, lake_uri, "ledger", SpecOf(row::kLedgerColumns));
  Result<LoadedTable> table = catalog.Load();
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  ASSERT_TRUE(table->metadata);
  EXPECT_EQ(table->version, kCommitters * kAppends);
  EXPECT_EQ(table->hint, table->version);
  ExpectOneChainOf(*table->metadata, commit_ids, event_ids.size());
  EXPECT_EQ(table->metadata->location, "s3://garm-lake/ledger");

  // icebird reads the bucket's objects, copied out through sinkd's client by key.
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
  EXPECT_EQ(rows.size(), event_ids.size()) << "icebird reads every committed row once";
  EXPECT_EQ(std::set<std::string>(rows.begin(), rows.end()), event_ids);

  // A hint left behind (a committer that died before writing it) is probed past, and the next
  // commit lands after the newest version, never on an existing one.
  ASSERT_TRUE(bucket->Replace(catalog.HintKey(), "2").ok());
  table = catalog.Load();
  ASSERT_TRUE(table.ok());
  EXPECT_EQ(table->hint, 2);
  EXPECT_EQ(table->version, kCommitters * kAppends);
  Committed after = CommitFlushes(*bucket, catalog, "late", 1, kRows);
  ASSERT_EQ(after.commit_ids.size(), 1u);
  table = catalog.Load();
  ASSERT_TRUE(table.ok());
  EXPECT_EQ(table->version, kCommitters * kAppends + 1);
  EXPECT_EQ(table->hint, table->version);
}

}  // namespace
}  // namespace sinkd::iceberg
