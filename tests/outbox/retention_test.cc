// Retention never deletes what a sink still needs: only behind the lowest cursor, only when
// every configured sink has one, only what is older than the minimum age, in bounded batches.
#include "outbox/retention.h"

#include <gtest/gtest.h>

#include "outbox/outbox_fixture.h"
#include "outbox/sink_store.h"

namespace sinkd::outbox {
namespace {

using testing::CapturedLog;
using testing::OutboxDb;

Cursor NthPosition(OutboxDb& db, int n) {
  PgResult r = db.Sql("SELECT o.txid::text AS t, o.seq FROM outbox o ORDER BY o.txid, o.seq "
                      "OFFSET $1 LIMIT 1",
                      {std::to_string(n)});
  return Cursor{std::stoull(std::string(r.Text(0, 0))), r.Int(0, 1)};
}

void SaveCursor(OutboxDb& db, const std::string& sink, const Cursor& c) {
  db.Sql("INSERT INTO outbox_cursors (name, txid, seq) VALUES ($1, $2::xid8, $3) ON CONFLICT "
         "(name) DO UPDATE SET txid = EXCLUDED.txid, seq = EXCLUDED.seq",
         {"sink:" + sink, std::to_string(c.txid), std::to_string(c.seq)});
}

void Age(OutboxDb& db, const std::string& interval) {
  db.Sql("UPDATE outbox SET payload = jsonb_set(payload, '{time}', to_jsonb(to_char((now() - $1::"
         "interval) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')))",
         {interval});
}

RetentionReport Retain(OutboxDb& db, std::vector<std::string> sinks, int batch = 5000,
                       std::chrono::nanoseconds min_age = std::chrono::hours(1),
                       CapturedLog* log = nullptr) {
  CapturedLog own;
  PgConn conn = db.Connect();
  RetentionOptions options;
  options.min_age = min_age;
  options.batch = batch;
  options.configured_sinks = std::move(sinks);
  auto report = RetainOutbox(conn, options, (log ? *log : own).logger());
  EXPECT_TRUE(report.ok()) << report.status().ToString();
  return report.ok() ? *report : RetentionReport{};
}

TEST(Retention, WithNoCursorNothingIsDeleted) {
  OutboxDb db;
  db.Migrate();
  db.InsertEvents(20);
  Age(db, "2 days");
  const RetentionReport r = Retain(db, {});
  EXPECT_FALSE(r.pruned);
  EXPECT_EQ(db.Count("SELECT count(*) FROM outbox"), 20);
}

// J2: a configured sink without a cursor starts at the origin and needs every row.
TEST(Retention, AConfiguredSinkWithoutACursorKeepsEverything) {
  OutboxDb db;
  db.Migrate();
  db.InsertEvents(20);
  Age(db, "2 days");
  SaveCursor(db, "a", NthPosition(db, 19));
  const RetentionReport r = Retain(db, {"a", "b"});
  EXPECT_FALSE(r.pruned);
  EXPECT_EQ(r.missing, std::vector<std::string>{"b"});
  EXPECT_EQ(db.Count("SELECT count(*) FROM outbox"), 20);
}

TEST(Retention, RowsGoOnlyBehindTheLowestCursorAndOnlyWhenOldEnough) {
  OutboxDb db;
  db.Migrate();
  db.InsertEvents(30);
  Age(db, "2 days");
  db.InsertEvents(10);  // young: behind the cursors too, but within the minimum age
  SaveCursor(db, "fast", NthPosition(db, 39));
  SaveCursor(db, "slow", NthPosition(db, 34));
  const Cursor floor = NthPosition(db, 34);
  const RetentionReport r = Retain(db, {"fast", "slow"}, /*batch=*/7);
  ASSERT_TRUE(r.pruned) << r.reason;
  EXPECT_EQ(r.floor, floor);
  EXPECT_EQ(r.floor_name, "sink:slow");
  EXPECT_EQ(r.deleted, 30);
  EXPECT_EQ(r.kept_young, 5) << "rows 30–34 are behind the floor but young";
  EXPECT_EQ(r.batches, 5) << "35 rows examined 7 at a time, deleting in each batch that had old ones";
  EXPECT_EQ(db.Count("SELECT count(*) FROM outbox o WHERE (o.txid, o.seq) > ('" +
                     std::to_string(floor.txid) + "'::xid8, " + std::to_string(floor.seq) + ")"),
            5)
      << "nothing ahead of the lowest cursor may go";
  EXPECT_EQ(db.Count("SELECT count(*) FROM outbox"), 10);
}

TEST(Retention, ACursorOfASinkNoLongerConfiguredHoldsRetentionBackAndIsReported) {
  OutboxDb db;
  db.Migrate();
  db.InsertEvents(10);
  Age(db, "2 days");
  SaveCursor(db, "current", NthPosition(db, 9));
  SaveCursor(db, "retired", NthPosition(db, 2));
  CapturedLog log;
  const RetentionReport r = Retain(db, {"current"}, 5000, std::chrono::hours(1), &log);
  EXPECT_EQ(r.unconfigured, std::vector<std::string>{"sink:retired"});
  EXPECT_EQ(r.deleted, 3) << "only up to the retired sink's cursor";
  EXPECT_EQ(log.Lines("no longer configured").size(), 1u);
}

TEST(Retention, RowsWhoseTimeCannotBeReadAreKept) {
  OutboxDb db;
  db.Migrate();
  db.Sql("INSERT INTO outbox (topic, payload) VALUES ('t', '{\"time\": \"soon\"}'), ('t', NULL)");
  SaveCursor(db, "a", NthPosition(db, 1));
  const RetentionReport r = Retain(db, {"a"}, 5000, std::chrono::nanoseconds(0));
  EXPECT_EQ(r.deleted, 0);
  EXPECT_EQ(r.kept_undated, 2);
}

}  // namespace
}  // namespace sinkd::outbox
