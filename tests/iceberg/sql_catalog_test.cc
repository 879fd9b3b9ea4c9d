// The sql catalog against a real PostgreSQL (tests/support/postgres_server.h) on a directory lake:
// it creates Iceberg's JDBC catalog tables, committers racing through it each get every append in
// exactly once on one chain (the compare-and-swap UPDATE is the only lock), a first commit and a
// later one that lose their race retry on the newest metadata, and icebird and DuckDB read the
// table through the metadata file the catalog's row names.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "iceberg/committers.h"
#include "iceberg/iceberg_commit.h"
#include "iceberg/sql_catalog.h"
#include "lake/dir_destination.h"
#include "support/postgres_server.h"

namespace sinkd::iceberg {
namespace {

std::string SqlLakeUri(const testing::TempDir& dir) { return "file://" + dir.path().string(); }

std::unique_ptr<lake::DirDestination> SqlDirLake(const testing::TempDir& dir) {
  auto made = lake::DirDestination::Make(dir.path().string());
  EXPECT_TRUE(made.ok());
  EXPECT_TRUE((*made)->Ensure().ok());
  return std::move(*made);
}

SqlCatalog SqlLedgerCatalog(lake::Destination& destination, const testing::TempDir& dir,
                         const std::string& url, CommitOptions options = {}) {
  return SqlCatalog(destination, SqlLakeUri(dir), "ledger", SpecOf(row::kLedgerColumns), {url},
                    options);
}

// The row of iceberg_tables for sinkd.lake.ledger: {metadata_location, previous (or "<NULL>")}.
std::vector<std::string> SqlLedgerRow(const std::string& url) {
  Result<outbox::PgConn> conn = outbox::PgConn::Connect(url, "sinkd-test");
  EXPECT_TRUE(conn.ok()) << conn.status().ToString();
  if (!conn.ok()) return {};
  Result<outbox::PgResult> r = conn->Exec(
      "SELECT metadata_location, previous_metadata_location FROM iceberg_tables "
      "WHERE catalog_name = 'sinkd' AND table_namespace = 'lake' AND table_name = 'ledger'");
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  if (!r.ok() || r->rows() != 1) return {};
  return {std::string(r->Text(0, 0)), r->IsNull(0, 1) ? "<NULL>" : std::string(r->Text(0, 1))};
}

// The metadata files under the table, by name.
std::set<std::string> SqlMetadataFiles(const testing::TempDir& dir) {
  std::set<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir.path() / "ledger/metadata")) {
    const std::string name = e.path().filename().string();
    if (name.ends_with(".metadata.json")) names.insert(name);
  }
  return names;
}

TEST(SqlCatalog, CreatesIcebergsJdbcCatalogTablesAndTheNamespaceAsIcebergDoes) {
  const std::string url = testing::PostgresServer::Shared().FreshDatabase();
  ASSERT_FALSE(url.empty());
  testing::TempDir tmp;
  auto lake = SqlDirLake(tmp);
  SqlCatalog catalog = SqlLedgerCatalog(*lake, tmp, url);
  Result<LoadedTable> none = catalog.Load();
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_EQ(none->version, 0) << "no row: no table yet";

  Result<outbox::PgConn> conn = outbox::PgConn::Connect(url, "sinkd-test");
  ASSERT_TRUE(conn.ok());
  Result<outbox::PgResult> columns = conn->Exec(
      "SELECT table_name, column_name, is_nullable, character_maximum_length "
      "FROM information_schema.columns WHERE table_name LIKE 'iceberg_%' "
      "AND table_schema = current_schema() ORDER BY table_name, ordinal_position");
  ASSERT_TRUE(columns.ok()) << columns.status().ToString();
  std::vector<std::string> got;
  for (int i = 0; i < columns->rows(); ++i) {
    got.push_back(std::string(columns->Text(i, 0)) + "." + std::string(columns->Text(i, 1)) +
                  " " + std::string(columns->Text(i, 2)) + " " +
                  std::string(columns->Text(i, 3)));
  }
  const std::vector<std::string> want = {
      "iceberg_namespace_properties.catalog_name NO 255",
      "iceberg_namespace_properties.namespace NO 255",
      "iceberg_namespace_properties.property_key NO 255",  // NOT NULL: in the primary key
      "iceberg_namespace_properties.property_value YES 1000",
      "iceberg_tables.catalog_name NO 255",
      "iceberg_tables.table_namespace NO 255",
      "iceberg_tables.table_name NO 255",
      "iceberg_tables.metadata_location YES 1000",
      "iceberg_tables.previous_metadata_location YES 1000",
  };
  EXPECT_EQ(got, want);
  Result<outbox::PgResult> keys = conn->Exec(
      "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid "
      "AND a.attnum = ANY(i.indkey) WHERE i.indrelid = 'iceberg_tables'::regclass "
      "AND i.indisprimary ORDER BY a.attnum");
  ASSERT_TRUE(keys.ok()) << keys.status().ToString();
  ASSERT_EQ(keys->rows(), 3);
  EXPECT_EQ(keys->Text(0, 0), "catalog_name");
  EXPECT_EQ(keys->Text(1, 0), "table_namespace");
  EXPECT_EQ(keys->Text(2, 0), "table_name");
  Result<outbox::PgResult> ns = conn->Exec(
      "SELECT catalog_name, namespace, property_key, property_value "
      "FROM iceberg_namespace_properties");
  ASSERT_TRUE(ns.ok()) << ns.status().ToString();
  ASSERT_EQ(ns->rows(), 1);
  EXPECT_EQ(ns->Text(0, 0), "sinkd");
  EXPECT_EQ(ns->Text(0, 1), "lake");
  EXPECT_EQ(ns->Text(0, 2), "exists");
  EXPECT_EQ(ns->Text(0, 3), "true");

  // A second catalog on the same database (tables there, namespace known) starts as cleanly.
  SqlCatalog again = SqlLedgerCatalog(*lake, tmp, url);
  Result<LoadedTable> still = again.Load();
  ASSERT_TRUE(still.ok()) << still.status().ToString();
  EXPECT_EQ(still->version, 0);
}

// Opened read-only (a command that only looks), the catalog finds no table in a database without
// the JDBC tables, says which database, creates neither, and refuses to move a pointer: a dry
// run that tried to commit fails instead of committing.
TEST(SqlCatalog, OpenedReadOnlyItCreatesNoTableAndRefusesToCommit) {
  const std::string url = testing::PostgresServer::Shared().FreshDatabase();
  ASSERT_FALSE(url.empty());
  testing::TempDir tmp;
  auto lake = SqlDirLake(tmp);
  SqlCatalogTarget target{url};
  target.read_only = true;
  SqlCatalog looking(*lake, SqlLakeUri(tmp), "ledger", SpecOf(row::kLedgerColumns), target);
  Result<LoadedTable> none = looking.Load();
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_EQ(none->version, 0);
  EXPECT_NE(looking.NoTableReason().find("has no table iceberg_tables"), std::string::npos)
      << looking.NoTableReason();
  EXPECT_EQ(looking.NoTableReason().find(url), std::string::npos) << "never the URL";
  EXPECT_FALSE(looking.EnsureSchema().ok());
  LoadedTable base;
  const Result<Swapped> swapped = looking.Swap(base, TableMetadata{}, "id");
  EXPECT_FALSE(swapped.ok()) << "a read-only catalog moved a pointer";

  Result<outbox::PgConn> conn = outbox::PgConn::Connect(url, "sinkd-test");
  ASSERT_TRUE(conn.ok());
  Result<outbox::PgResult> found =
      conn->Exec("SELECT to_regclass('iceberg_tables') IS NULL AND "
                 "to_regclass('iceberg_namespace_properties') IS NULL");
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(found->Text(0, 0), "t") << "a read-only catalog created the JDBC tables";
  EXPECT_FALSE(std::filesystem::exists(tmp.path() / "ledger/metadata"))
      << "nothing written to the lake either";
}

TEST(SqlCatalog, CommittersRacingThroughTheSqlCatalogEachCommitEveryAppendOnceOnOneChain) {
  const std::string url = testing::PostgresServer::Shared().FreshDatabase();
  ASSERT_FALSE(url.empty());
  testing::TempDir tmp;
  constexpr int kCommitters = 2, kAppends = 8, kRows = 15;
  std::vector<Committed> committed(kCommitters);
  std::vector<std::thread> threads;
  std::atomic<int> ready = 0;
  for (int c = 0; c < kCommitters; ++c) {
    threads.emplace_back([&, c] {
      // Each committer its own destination and connection, as separate processes would have.
      auto lake = SqlDirLake(tmp);
      SqlCatalog catalog = SqlLedgerCatalog(*lake, tmp, url);
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
  auto lake = SqlDirLake(tmp);
  SqlCatalog catalog = SqlLedgerCatalog(*lake, tmp, url);
  Result<LoadedTable> table = catalog.Load();
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  ASSERT_TRUE(table->metadata);
  EXPECT_EQ(table->version, kCommitters * kAppends) << "one metadata file per commit";
  ExpectOneChainOf(*table->metadata, commit_ids, event_ids.size());
  EXPECT_EQ(SqlMetadataFiles(tmp).size(), size_t{kCommitters * kAppends})
      << "the metadata file of every lost swap was deleted";
  std::cout << "lost races: " << lost << "\n";

  const std::vector<std::string> row = SqlLedgerRow(url);
  ASSERT_EQ(row.size(), 2u);
  EXPECT_EQ(row[0], catalog.Uri(table->key));
  ASSERT_FALSE(table->metadata->metadata_log.empty());
  EXPECT_EQ(row[1], table->metadata->metadata_log.back().metadata_file)
      << "previous_metadata_location is the file the current one was built on";
  const std::string name = row[0].substr(row[0].rfind('/') + 1);
  EXPECT_TRUE(name.starts_with("00016-") && name.ends_with(".metadata.json")) << name;

  // icebird (its own Avro and Parquet code) reads the table from the file the row names.
  testing::CommandResult r = testing::RunCommand(
      {"node", (testing::SourceDir() / "tools/icebird-read.mjs").string(),
       SqlLakeUri(tmp) + "/ledger", "--metadata", name});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json read = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(read.is_discarded());
  std::multiset<std::string> rows;
  for (const auto& row_json : read["rows"]) rows.insert(row_json["event_id"].get<std::string>());
  EXPECT_EQ(rows.size(), event_ids.size()) << "icebird reads every committed row once";
  EXPECT_EQ(std::set<std::string>(rows.begin(), rows.end()), event_ids);

  // DuckDB reads the data files icebird found in the manifests.
  testing::CommandResult listed = testing::RunCommand(
      {"node", (testing::SourceDir() / "tools/icebird-read.mjs").string(),
       SqlLakeUri(tmp) + "/ledger", "--files", "--metadata", name});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  const nlohmann::json files = nlohmann::json::parse(listed.out, nullptr, false);
  ASSERT_FALSE(files.is_discarded());
  EXPECT_EQ(files["snapshots"], kCommitters * kAppends);
  std::string paths;
  for (const auto& f : files["files"]) {
    const std::string path = f.get<std::string>();
    paths += (paths.empty() ? "" : ", ") + testing::SqlQuote(path.substr(7));
  }
  const testing::QueryResult duck = testing::DuckDb(
      "SELECT count(*), count(DISTINCT event_id) FROM read_parquet([" + paths + "])");
  ASSERT_TRUE(duck.ok) << duck.error;
  EXPECT_EQ(duck.rows[0][0], std::to_string(event_ids.size()));
  EXPECT_EQ(duck.rows[0][1], std::to_string(event_ids.size()));
}

TEST(SqlCatalog, AFirstCommitAndALaterOneThatLoseTheirRaceRetryOnTheNewestMetadata) {
  const std::string url = testing::PostgresServer::Shared().FreshDatabase();
  ASSERT_FALSE(url.empty());
  testing::TempDir tmp;
  auto lake_a = SqlDirLake(tmp);
  auto lake_b = SqlDirLake(tmp);
  CommitOptions fast;
  fast.sleep = [](std::chrono::milliseconds) {};
  SqlCatalog a = SqlLedgerCatalog(*lake_a, tmp, url, fast);
  SqlCatalog b = SqlLedgerCatalog(*lake_b, tmp, url, fast);

  // b commits inside a's first attempt, after a loaded: a's swap finds the pointer moved.
  const auto race = [&](const std::string& instance) {
    Append append;
    int calls = 0;
    Committed b_side;
    append.marks = [&](const TableMetadata*) -> Result<Summary> {
      if (calls++ == 0) b_side = CommitFlushes(*lake_b, b, instance, 1, 3);
      return Summary{};
    };
    Result<CommitReport> report = a.Commit(append);
    EXPECT_EQ(b_side.commit_ids.size(), 1u);
    return report;
  };

  Result<CommitReport> first = race("b1");  // the table has no row: a's INSERT finds b's
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->attempts, 2) << "the lost INSERT is retried as an UPDATE";
  EXPECT_EQ(first->version, 2);
  Result<CommitReport> later = race("b2");  // a's UPDATE finds the location moved
  ASSERT_TRUE(later.ok()) << later.status().ToString();
  EXPECT_EQ(later->attempts, 2);
  EXPECT_EQ(later->version, 4);

  Result<LoadedTable> table = a.Load();
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  ASSERT_TRUE(table->metadata);
  EXPECT_EQ(table->version, 4);
  EXPECT_EQ(table->metadata->snapshots.size(), 4u) << "b's two and a's two, each once";
  EXPECT_TRUE(HoldsCommit(*table->metadata, first->commit_id));
  EXPECT_TRUE(HoldsCommit(*table->metadata, later->commit_id));
  EXPECT_EQ(SqlMetadataFiles(tmp).size(), 4u) << "a's two lost metadata files are gone";
}

TEST(SqlCatalog, ASwapRolledBackByWhatRunsInItsTransactionMovesNothing) {
  const std::string url = testing::PostgresServer::Shared().FreshDatabase();
  ASSERT_FALSE(url.empty());
  testing::TempDir tmp;
  auto lake = SqlDirLake(tmp);
  CommitOptions once;
  once.attempts = 1;
  SqlCatalog catalog = SqlLedgerCatalog(*lake, tmp, url, once);
  ASSERT_EQ(CommitFlushes(*lake, catalog, "a", 1, 3).commit_ids.size(), 1u);
  const std::vector<std::string> before = SqlLedgerRow(url);

  // What runs in the swap's transaction sees the moved pointer, and its failure undoes it.
  std::string seen;
  catalog.set_in_swap([&](outbox::PgConn& conn) -> Status {
    Result<outbox::PgResult> r = conn.Exec(
        "SELECT metadata_location FROM iceberg_tables WHERE table_name = 'ledger'");
    if (r.ok() && r->rows() == 1) seen = std::string(r->Text(0, 0));
    return Status::Redeliver("the cursor could not be saved");
  });
  Append append;
  Result<CommitReport> failed = catalog.Commit(append);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("the cursor could not be saved"), std::string::npos)
      << failed.status().ToString();
  EXPECT_NE(seen, before[0]) << "inside the transaction the pointer had moved";
  EXPECT_EQ(SqlLedgerRow(url), before) << "rolled back with it";

  catalog.set_in_swap([](outbox::PgConn& conn) -> Status {
    return conn.Exec("CREATE TABLE saved_with_the_swap (x int)").status();
  });
  Result<CommitReport> done = catalog.Commit(append);
  ASSERT_TRUE(done.ok()) << done.status().ToString();
  EXPECT_NE(SqlLedgerRow(url), before);
  Result<outbox::PgConn> conn = outbox::PgConn::Connect(url, "sinkd-test");
  ASSERT_TRUE(conn.ok());
  EXPECT_TRUE(conn->Exec("SELECT * FROM saved_with_the_swap").ok()) << "committed with it";
}

}  // namespace
}  // namespace sinkd::iceberg

namespace sinkd::iceberg {
namespace {

row::RowBuffer SqlRows(int first, int count) {
  row::RowBuffer batch(row::kLedgerColumns);
  for (int n = first; n < first + count; ++n) {
    testing::AddLedgerRow(batch, "e-" + std::to_string(n),
                          1'767'225'600'000'000 + int64_t{1'000'000} * n,
                          n % 2 ? "billing" : "crm");
  }
  return batch;
}

TEST(SqlCatalog, IcebergCommitThroughTheSqlCatalogMovesACursorWithThePointerOrNotAtAll) {
  const std::string url = testing::PostgresServer::Shared().FreshDatabase();
  ASSERT_FALSE(url.empty());
  Result<outbox::PgConn> conn = outbox::PgConn::Connect(url, "sinkd-test");
  ASSERT_TRUE(conn.ok());
  ASSERT_TRUE(conn->Exec("CREATE TABLE sink_cursor (sink text PRIMARY KEY, seq bigint)").ok());
  testing::TempDir tmp;
  auto dir = SqlDirLake(tmp);
  uint64_t pending = 0;  // the position the flush in progress acknowledges
  bool fail_save = false;
  CommitOptions once;
  once.attempts = 1;
  IcebergCommit commit(*dir, "2026-01-01T00:00:00Z", once, SqlCatalogTarget{url});
  commit.set_in_swap([&](outbox::PgConn& c, const table::Provenance& p) -> Status {
    EXPECT_EQ(p.last_sequence, pending) << "the step is given the flush's positions";
    if (fail_save) return Status::Redeliver("cursor save failed");
    return c.Exec("INSERT INTO sink_cursor VALUES ('lake', $1) ON CONFLICT (sink) "
                  "DO UPDATE SET seq = excluded.seq",
                  {std::to_string(p.last_sequence)})
        .status();
  });
  lake::LakeWriterOptions options;
  options.key_prefix = "ledger";
  options.instance = "box-1";
  options.encode_threads = 1;
  lake::LakeWriter writer(*dir, options, commit);
  const auto cursor = [&] {
    Result<outbox::PgResult> r = conn->Exec("SELECT seq FROM sink_cursor WHERE sink = 'lake'");
    EXPECT_TRUE(r.ok());
    return r.ok() && r->rows() == 1 ? r->Int(0, 0) : int64_t{-1};
  };

  row::RowBuffer first = SqlRows(1, 20);
  pending = 20;
  ASSERT_TRUE(writer.Flush(first, {"GARM_LEDGER", 1, 20}).ok());
  row::RowBuffer second = SqlRows(21, 10);
  pending = 30;
  ASSERT_TRUE(writer.Flush(second, {"GARM_LEDGER", 21, 30}).ok());
  EXPECT_EQ(cursor(), 30);

  fail_save = true;
  row::RowBuffer third = SqlRows(31, 5);
  pending = 35;
  EXPECT_FALSE(writer.Flush(third, {"GARM_LEDGER", 31, 35}).ok());
  EXPECT_EQ(cursor(), 30) << "the failed save moved nothing";

  SqlCatalog catalog(*dir, dir->Uri(), "ledger", SpecOf(row::kLedgerColumns), {url});
  Result<LoadedTable> table = catalog.Load();
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  EXPECT_EQ(table->version, 2) << "nor the pointer";
  EXPECT_EQ(*table->metadata->Current()->Find("total-records"), "30");
  Result<Positions> positions = CommittedPositions(&*table->metadata);
  ASSERT_TRUE(positions.ok());
  EXPECT_EQ(positions->streams.at(StreamIdentity("GARM_LEDGER", "2026-01-01T00:00:00Z")),
            (std::vector<lake::SequenceRange>{{1, 30}}))
      << "the table's recorded position equals the cursor";
  Result<std::vector<table::SequenceRange>> held =
      commit.Committed("ledger", {"GARM_LEDGER", 25, 35});
  ASSERT_TRUE(held.ok()) << held.status().ToString();
  EXPECT_EQ(*held, (std::vector<table::SequenceRange>{{25, 30}}));
}

}  // namespace
}  // namespace sinkd::iceberg
