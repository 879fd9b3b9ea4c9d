// An outbox lake sink whose Iceberg table is kept in the sql catalog in the outbox's own
// database, driven by the real dispatcher against a real PostgreSQL: each flush's commit saves
// the sink's cursor in the transaction that moves the table's pointer, so the two never
// disagree. A trigger on outbox_cursors makes the cursor save fail inside that transaction (a
// real error, raised by the server): neither moves; once it is dropped, delivery resumes and the
// table holds every event once.
#include <gtest/gtest.h>

#include "iceberg/iceberg_commit.h"
#include "iceberg/positions.h"
#include "iceberg/sql_catalog.h"
#include "lake/dir_destination.h"
#include "outbox/dispatcher.h"
#include "outbox/outbox_fixture.h"
#include "row/outbox_columns.h"
#include "sinks/lake_sink.h"
#include "support/support.h"

namespace sinkd::sinks {
namespace {

using sinkd::testing::DuckDb;
using sinkd::testing::SqlQuote;
using sinkd::testing::TempDir;

struct SqlTableSink {
  std::unique_ptr<LakeEventSink> sink;
  LakeEventSink* raw = nullptr;
};

// The real lake sink over `root`, its table's pointer in the sql catalog at `catalog_url`; two
// attempts per commit, so a refused swap fails its delivery quickly.
SqlTableSink MakeSqlTableSink(const std::filesystem::path& root, const std::string& catalog_url) {
  auto made = lake::DirDestination::Make(root.string());
  EXPECT_TRUE(made.ok());
  std::unique_ptr<lake::Destination> dest = std::move(made).value();
  iceberg::CommitOptions options;
  options.attempts = 2;
  options.backoff = Backoff{std::chrono::milliseconds(1), std::chrono::milliseconds(2), 2.0, 0.0};
  auto commit = std::make_unique<iceberg::IcebergCommit>(
      *dest, "", options, iceberg::SqlCatalogTarget{catalog_url, "sinkd", "lake"});
  lake::LakeWriterOptions o;
  o.key_prefix = "outbox_events";
  o.instance = "sqltest";
  o.parquet.created_by = "sinkd test";
  SqlTableSink out;
  out.sink =
      std::make_unique<LakeEventSink>("lake", std::move(dest), o, row::kDefaultBatchBytes,
                                      partition::kDefaultMaxPartitionsPerFlush, std::move(commit));
  out.raw = out.sink.get();
  return out;
}

// The table's committed mark for sink "lake" and the stored cursor, both as "<txid>:<seq>"
// ("none" when absent).
struct Both {
  std::string mark, cursor, location;
};

Both MarkAndCursor(outbox::testing::OutboxDb& db, lake::Destination& lake) {
  Both out{"none", "none", ""};
  iceberg::SqlCatalog catalog(lake, lake.Uri(), "outbox_events",
                              iceberg::SpecOf(row::kOutboxEventColumns),
                              iceberg::SqlCatalogTarget{db.conninfo(), "sinkd", "lake"});
  auto loaded = catalog.Load();
  EXPECT_TRUE(loaded.ok()) << loaded.status().ToString();
  if (loaded.ok() && loaded->metadata) {
    auto positions = iceberg::CommittedPositions(&*loaded->metadata);
    EXPECT_TRUE(positions.ok());
    if (positions.ok() && positions->outbox.count("lake")) {
      const auto [txid, seq] = positions->OutboxMark("lake");
      out.mark = std::to_string(txid) + ":" + std::to_string(seq);
    }
    out.location = loaded->key;
  }
  outbox::PgResult c = db.Sql("SELECT txid::text || ':' || seq FROM outbox_cursors");
  if (c.rows() == 1) out.cursor = std::string(c.Text(0, 0));
  return out;
}

TEST(OutboxLakeSqlCatalog, TheCursorMovesInTheSwapsTransactionSoARefusedCursorSaveMovesNeither) {
  outbox::testing::OutboxDb db;
  db.Migrate();
  for (int i = 0; i < 4; ++i) db.InsertEvents(10);
  TempDir tmp;
  auto check_lake = lake::DirDestination::Make(tmp.path().string());
  ASSERT_TRUE(check_lake.ok());
  SqlTableSink made = MakeSqlTableSink(tmp.path(), db.conninfo());
  outbox::ManualClock clock;
  outbox::testing::CapturedLog log;
  auto d =
      outbox::Dispatcher::Make(outbox::testing::TestOptions(db.conninfo(), clock, log.logger()),
                               outbox::testing::One(std::move(made.sink), 3), {});
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  ASSERT_TRUE(made.raw->cursor_in_commit()) << "the catalog is the outbox's database";

  // A few deliveries of 12 events each, committed with their cursor.
  for (int i = 0; i < 2; ++i) ASSERT_TRUE((*d)->Tick().ok());
  const Both before = MarkAndCursor(db, **check_lake);
  ASSERT_NE(before.mark, "none") << log.Text();
  EXPECT_EQ(before.mark, before.cursor);

  // The server refuses every cursor save from now on: the swap's transaction fails after its
  // UPDATE of iceberg_tables, and rolls back.
  db.Sql(
      "CREATE FUNCTION refuse_cursor() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE "
      "EXCEPTION 'cursor save refused by the test'; END $$");
  db.Sql(
      "CREATE TRIGGER refuse BEFORE INSERT OR UPDATE ON outbox_cursors FOR EACH ROW EXECUTE "
      "FUNCTION refuse_cursor()");
  for (int i = 0; i < 3; ++i) {
    (void)(*d)->Tick();
    clock.Advance(std::chrono::minutes(1));  // past any back-off
  }
  const Both refused = MarkAndCursor(db, **check_lake);
  EXPECT_EQ(refused.cursor, before.cursor) << log.Text();
  EXPECT_EQ(refused.mark, before.mark) << "the pointer moved without the cursor";
  EXPECT_EQ(refused.location, before.location);
  EXPECT_FALSE(log.Lines("cursor save refused by the test").empty()) << log.Text();

  db.Sql("DROP TRIGGER refuse ON outbox_cursors");
  const auto caught_up = [&] {
    return db.Count(
               "SELECT count(*) FROM outbox_cursors c WHERE (c.txid, c.seq) = (SELECT "
               "o.txid, o.seq FROM outbox o ORDER BY o.txid DESC, o.seq DESC LIMIT 1)") == 1;
  };
  for (int i = 0; i < 60 && !caught_up(); ++i) {
    ASSERT_TRUE((*d)->Tick().ok());
    clock.Advance(std::chrono::minutes(1));
  }
  ASSERT_TRUE(caught_up()) << log.Text();
  const Both after = MarkAndCursor(db, **check_lake);
  EXPECT_EQ(after.mark, after.cursor);
  // The table's current snapshot holds each of the 40 events once (the files its manifests
  // list, as sinkd table info counts them: total-records), and the lake's Parts no more.
  iceberg::SqlCatalog catalog(**check_lake, (*check_lake)->Uri(), "outbox_events",
                              iceberg::SpecOf(row::kOutboxEventColumns),
                              iceberg::SqlCatalogTarget{db.conninfo(), "sinkd", "lake"});
  auto loaded = catalog.Load();
  ASSERT_TRUE(loaded.ok() && loaded->metadata);
  const iceberg::Snapshot* current = loaded->metadata->Current();
  ASSERT_NE(current, nullptr);
  ASSERT_NE(current->Find("total-records"), nullptr);
  EXPECT_EQ(*current->Find("total-records"), "40");
  auto q = DuckDb("SELECT count(*), count(DISTINCT seq) FROM read_parquet(" +
                  SqlQuote((tmp.path() / "outbox_events" / "**" / "*.parquet").string()) + ")");
  ASSERT_TRUE(q.ok) << q.error;
  EXPECT_EQ(q.rows[0], (std::vector<std::string>{"40", "40"})) << "failed flushes left no Part";
}

// A catalog URL naming another database (here: another schema of the test server, through its
// search_path) is not the outbox's: the cursor is saved after the commit, as with the files
// catalog (and the table's mark makes a redelivery write nothing).
TEST(OutboxLakeSqlCatalog, ACatalogInAnotherDatabaseCommitsFirstAndTheCursorFollows) {
  outbox::testing::OutboxDb db;
  outbox::testing::OutboxDb elsewhere;
  db.Migrate();
  db.InsertEvents(20);
  TempDir tmp;
  SqlTableSink made = MakeSqlTableSink(tmp.path(), elsewhere.conninfo());
  outbox::ManualClock clock;
  outbox::testing::CapturedLog log;
  auto d =
      outbox::Dispatcher::Make(outbox::testing::TestOptions(db.conninfo(), clock, log.logger()),
                               outbox::testing::One(std::move(made.sink), 5), {});
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_FALSE(made.raw->cursor_in_commit());
  for (int i = 0; i < 4; ++i) ASSERT_TRUE((*d)->Tick().ok());
  EXPECT_EQ(db.Count("SELECT count(*) FROM outbox_cursors"), 1) << log.Text();
  EXPECT_EQ(elsewhere.Count("SELECT count(*) FROM iceberg_tables"), 1);
  EXPECT_EQ(db.Count("SELECT (to_regclass('iceberg_tables') IS NULL)::int"), 1)
      << "the outbox's search path holds no catalog";
}

}  // namespace
}  // namespace sinkd::sinks
