#include "outbox/schema.h"

#include <gtest/gtest.h>

#include "outbox/outbox_fixture.h"

namespace sinkd::outbox {
namespace {

using testing::OutboxDb;

TEST(Schema, MigrateCreatesEveryTableAndIsIdempotent) {
  OutboxDb db;
  PgConn conn = db.Connect();
  auto first = MigrateSchema(conn);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->created.size(), 8u);
  for (const char* t : {kOutboxTable, kCursorTable, kDeadLetterTable, kReplayTable, kAuditTable,
                        kAuditCursorTable, kLeaseTable, kProgressTable}) {
    EXPECT_TRUE(first->Usable(t)) << t;
  }
  EXPECT_TRUE(first->Differences().empty());
  db.InsertEvents(3);
  auto second = MigrateSchema(conn);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_TRUE(second->created.empty()) << "a second migrate must create nothing";
  EXPECT_EQ(db.Count("SELECT count(*) FROM outbox"), 3) << "and must not touch the rows";
  for (const TableCheck& t : second->tables) EXPECT_TRUE(t.warnings.empty()) << t.table;
}

// Like provision: an application's table that differs is reported, never altered.
TEST(Schema, AnExistingTableThatDiffersIsReportedAndNotAltered) {
  OutboxDb db;
  db.Sql("CREATE TABLE outbox (seq bigserial PRIMARY KEY, txid text NOT NULL, topic text)");
  PgConn conn = db.Connect();
  auto report = MigrateSchema(conn);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  const auto diffs = report->Differences();
  ASSERT_EQ(diffs.size(), 2u) << "txid's type and the missing payload";
  EXPECT_EQ(diffs[0], "outbox: column txid is text, want xid8");
  EXPECT_EQ(diffs[1], "outbox: column payload missing");
  EXPECT_EQ(db.Sql("SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = "
                   "'outbox'::regclass AND attname = 'txid'")
                .Text(0, 0),
            "text")
      << "the table must be left exactly as it was";
  EXPECT_TRUE(report->Usable(kCursorTable)) << "what was missing is created all the same";
}

TEST(Schema, AnOutboxWithoutThePositionIndexGetsAWarningNotAnIndex) {
  OutboxDb db;
  db.Sql("CREATE TABLE outbox (seq bigserial PRIMARY KEY, txid xid8 NOT NULL DEFAULT "
         "pg_current_xact_id(), topic text NOT NULL, payload jsonb)");
  PgConn conn = db.Connect();
  auto report = MigrateSchema(conn);
  ASSERT_TRUE(report.ok());
  const TableCheck* outbox = report->Find(kOutboxTable);
  ASSERT_EQ(outbox->warnings.size(), 1u);
  EXPECT_NE(outbox->warnings[0].find("CREATE INDEX CONCURRENTLY"), std::string::npos);
  EXPECT_EQ(db.Count("SELECT count(*) FROM pg_indexes WHERE tablename = 'outbox' AND schemaname = current_schema()"), 1)
      << "only the primary key: migrate must not build an index on an existing table";
}

TEST(Schema, InspectOnAnEmptyDatabaseFindsNothingAndCreatesNothing) {
  OutboxDb db;
  PgConn conn = db.Connect();
  auto report = InspectSchema(conn);
  ASSERT_TRUE(report.ok());
  for (const TableCheck& t : report->tables) EXPECT_FALSE(t.present) << t.table;
  EXPECT_EQ(db.Count("SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()"), 0);
}

}  // namespace
}  // namespace sinkd::outbox
