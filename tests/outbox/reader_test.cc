#include "outbox/reader.h"

#include <gtest/gtest.h>

#include "outbox/outbox_fixture.h"

namespace sinkd::outbox {
namespace {

using testing::OutboxDb;

std::vector<sinks::Event> ReadAll(PgConn& conn, Cursor after = {}) {
  auto events = ReadEvents(conn, after, 1000);
  EXPECT_TRUE(events.ok()) << events.status().ToString();
  return events.ok() ? *events : std::vector<sinks::Event>{};
}

TEST(Reader, AnEventCarriesItsPayloadFieldsAndItsPosition) {
  OutboxDb db;
  db.Migrate();
  db.InsertEvents(1, "node.connected");
  PgConn conn = db.Connect();
  auto events = ReadAll(conn);
  ASSERT_EQ(events.size(), 1u);
  const sinks::Event& e = events[0];
  EXPECT_EQ(e.id, "evt_0");
  EXPECT_EQ(e.type, "node.connected");
  EXPECT_EQ(e.tenant_id, "ten_1");
  EXPECT_EQ(e.subject, "reservation/rsv_0");
  EXPECT_EQ(e.time.size(), 27u) << e.time;
  EXPECT_EQ(e.data_json, "{\"n\": 0}");
  EXPECT_EQ(e.sequence, std::to_string(e.txid) + ":" + std::to_string(e.seq));
  EXPECT_NE(sinks::EventJson(e).find("\"tenantId\":\"ten_1\""), std::string::npos);
}

// A payload without the expected fields still reads (the lake sink refuses it later).
TEST(Reader, APayloadWithoutFieldsYieldsEmptyFieldsAndTheTopicAsType) {
  OutboxDb db;
  db.Migrate();
  db.Sql("INSERT INTO outbox (topic, payload) VALUES ('a', NULL), ('b', '[1,2]'), ('c', '\"x\"')");
  PgConn conn = db.Connect();
  auto events = ReadAll(conn);
  ASSERT_EQ(events.size(), 3u);
  for (const auto& e : events) {
    EXPECT_EQ(e.id, "");
    EXPECT_EQ(e.type, e.topic);
    EXPECT_EQ(e.data_json, "null");
  }
}

// Text order sorts '10' before '9': ordering must be on the xid8 column, not on its text.
TEST(Reader, RowsAreOrderedByTheXidColumnNotByItsText) {
  OutboxDb db;
  db.Migrate();
  db.Sql("INSERT INTO outbox (txid, topic, payload) VALUES ('10', 't', '{}'), ('9', 't', '{}'), "
         "('100', 't', '{}')");
  PgConn conn = db.Connect();
  auto events = ReadAll(conn);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].txid, 9u);
  EXPECT_EQ(events[1].txid, 10u);
  EXPECT_EQ(events[2].txid, 100u);
  auto after = ReadAll(conn, Cursor{9, 1000});
  ASSERT_EQ(after.size(), 2u) << "(9, 1000) is before (10, x) whatever x is";
  EXPECT_EQ(after[0].txid, 10u);
}

// B2: a transaction that took its xid first holds the fence until it ends, and is read first.
TEST(Reader, AnOpenTransactionHoldsTheFenceAndItsEventsComeFirstOnceItCommits) {
  OutboxDb db;
  db.Migrate();
  db.InsertEvents(1);
  PgConn slow = db.Connect();
  PgConn fast = db.Connect();
  PgConn reader = db.Connect();
  ASSERT_TRUE(slow.Exec("BEGIN").ok());
  ASSERT_TRUE(slow.Exec("SELECT pg_current_xact_id()").ok());  // fixes its xid first
  ASSERT_TRUE(fast.Exec("INSERT INTO outbox (topic, payload) VALUES ('t', "
                        "'{\"id\":\"fast\"}')").ok());
  ASSERT_TRUE(slow.Exec("INSERT INTO outbox (topic, payload) VALUES ('t', "
                        "'{\"id\":\"slow\"}')").ok());
  auto before = ReadAll(reader);
  ASSERT_EQ(before.size(), 1u) << "the committed fast event must wait behind the open one";
  EXPECT_EQ(before[0].id, "evt_0");
  ASSERT_TRUE(slow.Exec("COMMIT").ok());
  auto after = ReadAll(reader, PositionOf(before[0]));
  ASSERT_EQ(after.size(), 2u);
  EXPECT_EQ(after[0].id, "slow") << "xid order: the slow transaction's xid is lower";
  EXPECT_EQ(after[1].id, "fast");
  EXPECT_GT(after[0].seq, after[1].seq) << "premise: seq order alone would have skipped 'slow'";
}

TEST(Reader, RolledBackEventsAreNeverReadAndCommittedOnesAfterThemAre) {
  OutboxDb db;
  db.Migrate();
  PgConn a = db.Connect();
  ASSERT_TRUE(a.Exec("BEGIN").ok());
  ASSERT_TRUE(a.Exec("INSERT INTO outbox (topic, payload) VALUES ('t', '{\"id\":\"gone\"}')").ok());
  ASSERT_TRUE(a.Exec("ROLLBACK").ok());
  db.InsertEvents(2);
  PgConn reader = db.Connect();
  auto events = ReadAll(reader);
  ASSERT_EQ(events.size(), 2u);
  for (const auto& e : events) EXPECT_NE(e.id, "gone");
}

// A1: one transaction has one txid, savepoints included, and its events stay contiguous.
TEST(Reader, EventsOfOneTransactionShareItsTxidEvenInsideASavepoint) {
  OutboxDb db;
  db.Migrate();
  PgConn a = db.Connect();
  ASSERT_TRUE(a.Exec("BEGIN").ok());
  ASSERT_TRUE(a.Exec("INSERT INTO outbox (topic, payload) VALUES ('t', '{}')").ok());
  ASSERT_TRUE(a.Exec("SAVEPOINT s").ok());
  ASSERT_TRUE(a.Exec("INSERT INTO outbox (topic, payload) VALUES ('t', '{}')").ok());
  ASSERT_TRUE(a.Exec("RELEASE s").ok());
  ASSERT_TRUE(a.Exec("INSERT INTO outbox (topic, payload) VALUES ('t', '{}')").ok());
  ASSERT_TRUE(a.Exec("COMMIT").ok());
  PgConn reader = db.Connect();
  auto events = ReadAll(reader);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].txid, events[1].txid);
  EXPECT_EQ(events[1].txid, events[2].txid);
  EXPECT_LT(events[0].seq, events[1].seq);
  EXPECT_LT(events[1].seq, events[2].seq);
}

// B6: reading must not own an xid, or the reader would hold back every sink's horizon.
TEST(Reader, ReadingAssignsNoTransactionId) {
  OutboxDb db;
  db.Migrate();
  db.InsertEvents(5);
  PgConn reader = db.Connect();
  ASSERT_TRUE(ReadEvents(reader, Cursor{}, 10).ok());
  PgConn probe = db.Connect();
  EXPECT_EQ(db.Count("SELECT count(*) FROM pg_stat_activity WHERE pid = " +
                     std::to_string(reader.backend_pid()) + " AND backend_xid IS NOT NULL"),
            0);
}

TEST(Reader, AuditRowsReadWithTheSameFence) {
  OutboxDb db;
  db.Migrate();
  db.InsertAudit(3);
  PgConn reader = db.Connect();
  auto records = ReadAuditRecords(reader, Cursor{}, 2);
  ASSERT_TRUE(records.ok()) << records.status().ToString();
  ASSERT_EQ(records->size(), 2u) << "the limit holds";
  EXPECT_EQ((*records)[0].id, "aud_0");
  EXPECT_EQ((*records)[0].admission_json, "{\"decision\": \"allow\"}");
  EXPECT_EQ((*records)[0].details_json, "") << "NULL details";
  EXPECT_GT((*records)[0].time_micros, 1'700'000'000'000'000);
  auto rest = ReadAuditRecords(reader, PositionOf(records->back()), 10);
  ASSERT_EQ(rest->size(), 1u);
  EXPECT_EQ((*rest)[0].id, "aud_2");
}

}  // namespace
}  // namespace sinkd::outbox
