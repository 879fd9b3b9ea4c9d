// `sinkd compact --table outbox_audit|outbox_events` on what `sinkd dispatch` wrote from a real
// PostgreSQL: compaction removes only copies of one outbox position (what a redelivery repeats),
// never rows that merely share the producer's id, so the lake ends equal to the database.
#include <gtest/gtest.h>

#include "outbox/outbox_fixture.h"
#include "outbox/process.h"
#include "support/lake_files.h"
#include "support/support.h"

namespace sinkd::outbox {
namespace {

namespace fs = std::filesystem;
using sinkd::testing::DuckDb;
using sinkd::testing::RunCommand;
using sinkd::testing::SinkdBinary;
using sinkd::testing::SqlQuote;
using sinkd::testing::TempDir;
using sinkd::testing::WaitUntil;
using testing::Background;
using testing::OutboxDb;

// A date long closed, so one pass merges every Part of it.
constexpr char kClosedDay[] = "2026-01-05";

std::string DispatchConfig(const TempDir& tmp, const std::string& conninfo, const fs::path& lake,
                           const std::string& instance, int batch_size) {
  const fs::path path = tmp / (instance + ".toml");
  sinkd::testing::WriteFile(
      path, "[postgres]\nurl = \"" + conninfo + "\"\n"
            "[dispatch]\npoll_interval = \"50ms\"\naudit_interval = \"100ms\"\n"
            "instance = \"" + instance + "\"\n"
            "[[sinks.events]]\nid = \"lake\"\ntype = \"lake\"\nlake_dir = \"" + lake.string() +
            "\"\nbatch_size = " + std::to_string(batch_size) + "\n"
            "[[sinks.audit]]\nid = \"archive\"\ntype = \"lake\"\nlake_dir = \"" +
            lake.string() + "\"\n");
  return path.string();
}

bool EventsCaughtUp(OutboxDb& db) {
  return db.Count("SELECT count(*) FROM outbox_cursors c WHERE (c.txid, c.seq) = (SELECT o.txid, "
                  "o.seq FROM outbox o ORDER BY o.txid DESC, o.seq DESC LIMIT 1)") == 1;
}

bool AuditCaughtUp(OutboxDb& db) {
  return db.Count("SELECT count(*) FROM audit_sink_cursors c WHERE (c.txid, c.seq) = (SELECT "
                  "a.txid, a.seq FROM audit_events a ORDER BY a.txid DESC, a.seq DESC LIMIT 1)") ==
         1;
}

// Every row of a lake table as "<event_id>@<position>", by position.
std::string LakeRows(const fs::path& table_dir) {
  auto q = DuckDb("SELECT string_agg(event_id || '@' || sequence, ',' ORDER BY "
                  "CAST(split_part(sequence, ':', 1) AS UBIGINT), "
                  "CAST(split_part(sequence, ':', 2) AS BIGINT)) FROM read_parquet(" +
                  SqlQuote((table_dir / "**" / "*.parquet").string()) +
                  ", hive_partitioning=false)");
  EXPECT_TRUE(q.ok) << q.error;
  return q.ok && !q.rows.empty() ? q.rows[0][0] : "";
}

int64_t LakeCount(const fs::path& table_dir, const std::string& what) {
  auto q = DuckDb("SELECT " + what + " FROM read_parquet(" +
                  SqlQuote((table_dir / "**" / "*.parquet").string()) +
                  ", hive_partitioning=false)");
  EXPECT_TRUE(q.ok) << q.error;
  return q.ok && !q.rows.empty() ? std::stoll(q.rows[0][0]) : -1;
}

// Two grace-0 passes: the first merges the closed date, the second deletes what it superseded.
void CompactTwice(const std::string& table, const fs::path& lake) {
  for (int pass = 0; pass < 2; ++pass) {
    auto r = RunCommand({SinkdBinary(), "compact", "--table", table, "--lake-dir", lake.string(),
                         "--grace", "0s"});
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    if (pass == 0) {
      EXPECT_NE(r.out.find("into 1 outputs"), std::string::npos) << r.out;
    }
  }
}

TEST(OutboxLakeCompact, AuditRowsWithAnEmptyOrSharedIdAllSurviveCompactionEqualToPostgres) {
  OutboxDb db;
  db.Migrate();
  const auto insert = [&](const std::string& id) {
    db.Sql("INSERT INTO audit_events (id, tenant_id, time, action, resource_type, resource_id) "
           "VALUES ($1, 'ten_1', $2::timestamptz, 'reservation.create', 'reservation', 'rsv_1')",
           {id, std::string(kClosedDay) + " 10:00:00+00"});
  };
  TempDir tmp;
  const fs::path lake = tmp / "lake";
  {
    Background dispatcher({SinkdBinary(), "dispatch", "--config",
                           DispatchConfig(tmp, db.conninfo(), lake, "box-1", 16)},
                          tmp / "dispatch.log");
    // Two deliveries, so the date holds two Parts that compaction merges.
    for (const std::string id : {"", "", "aud_x"}) insert(id);
    ASSERT_TRUE(WaitUntil([&] { return AuditCaughtUp(db); }, std::chrono::seconds(60)))
        << dispatcher.Log();
    for (const std::string id : {"", "aud_x"}) insert(id);
    ASSERT_TRUE(WaitUntil([&] { return AuditCaughtUp(db); }, std::chrono::seconds(60)))
        << dispatcher.Log();
    dispatcher.Signal(SIGTERM);
    EXPECT_EQ(dispatcher.Wait(std::chrono::seconds(15)), 0) << dispatcher.Log();
  }
  const fs::path audit = lake / "outbox_audit";
  ASSERT_EQ(sinkd::testing::LakeFiles(audit).size(), 2u) << "the premise: two Parts of one date";
  const std::string postgres = std::string(db.Sql(
      "SELECT string_agg(id || '@' || txid::text || ':' || seq, ',' ORDER BY txid, seq) "
      "FROM audit_events").Text(0, 0));
  ASSERT_EQ(LakeRows(audit), postgres);

  CompactTwice("outbox_audit", lake);
  EXPECT_EQ(sinkd::testing::LakeFiles(audit).size(), 1u) << "the output alone, its inputs deleted";
  EXPECT_EQ(LakeCount(audit, "count(*)"), 5);
  EXPECT_EQ(LakeRows(audit), postgres);
}

TEST(OutboxLakeCompact, EventsRedeliveredAfterAKillLoseTheirCopiesAndNothingElse) {
  OutboxDb db;
  db.Migrate();
  // Twelve events of the closed date; evt_same twice, at two positions: two records.
  for (int i = 0; i < 12; ++i) {
    const std::string id = i == 3 || i == 9 ? "evt_same" : "evt_" + std::to_string(i);
    db.Sql("INSERT INTO outbox (topic, payload) VALUES ('reservation.placed', jsonb_build_object("
           "'id', $1::text, 'type', 'reservation.placed', 'tenantId', 'ten_1', 'subject', "
           "'reservation/rsv_1', 'time', $2::text, 'data', jsonb_build_object('n', $3::int)))",
           {id, std::string(kClosedDay) + "T10:00:00.000000Z", std::to_string(i)});
  }
  TempDir tmp;
  const fs::path lake = tmp / "lake";
  const fs::path events = lake / "outbox_events";
  {
    // The cursor table locked: the first dispatcher writes its first batch to the lake, then
    // waits to save its cursor, and is killed there, as a crash between the two would leave it.
    PgConn locker = db.Connect();
    ASSERT_TRUE(locker.Exec("BEGIN").ok());
    ASSERT_TRUE(locker.Exec("LOCK TABLE outbox_cursors IN EXCLUSIVE MODE").ok());
    Background first({SinkdBinary(), "dispatch", "--config",
                      DispatchConfig(tmp, db.conninfo(), lake, "box-1", 5)},
                     tmp / "box-1.log");
    ASSERT_TRUE(WaitUntil([&] { return sinkd::testing::LakeFiles(events).size() >= 1; },
                          std::chrono::seconds(60)))
        << first.Log();
    const auto waiting = [&] {
      return db.Count("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                      "AND wait_event_type = 'Lock'");
    };
    ASSERT_TRUE(WaitUntil([&] { return waiting() == 1; }, std::chrono::seconds(60)))
        << first.Log();
    first.Signal(SIGKILL);
    ASSERT_EQ(first.Wait(std::chrono::seconds(5)), 128 + SIGKILL);
    // Its session would still save the cursor once the lock is gone (a server notices a dead
    // client only when it answers): ended here, as if the process had died before sending it.
    db.Sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = "
           "current_database() AND wait_event_type = 'Lock'");
    ASSERT_TRUE(WaitUntil([&] { return waiting() == 0; }, std::chrono::seconds(10)));
    ASSERT_TRUE(locker.Exec("ROLLBACK").ok());
  }
  ASSERT_EQ(db.Count("SELECT count(*) FROM outbox_cursors"), 0) << "the premise: no cursor saved";
  // The killed holder's lease, over at once rather than after its time to live.
  db.Sql("UPDATE sinkd_leases SET expires_at = now() - interval '1 second'");
  {
    // Another instance with other batches: the first batch's positions land under other keys.
    Background second({SinkdBinary(), "dispatch", "--config",
                       DispatchConfig(tmp, db.conninfo(), lake, "box-2", 4)},
                      tmp / "box-2.log");
    ASSERT_TRUE(WaitUntil([&] { return EventsCaughtUp(db); }, std::chrono::seconds(60)))
        << second.Log();
    second.Signal(SIGTERM);
    EXPECT_EQ(second.Wait(std::chrono::seconds(15)), 0) << second.Log();
  }
  ASSERT_EQ(LakeCount(events, "count(DISTINCT sequence)"), 12);
  ASSERT_GT(LakeCount(events, "count(*)"), 12) << "the premise: redelivered positions";
  const std::string postgres = std::string(db.Sql(
      "SELECT string_agg((payload->>'id') || '@' || txid::text || ':' || seq, ',' ORDER BY txid, "
      "seq) FROM outbox").Text(0, 0));

  CompactTwice("outbox_events", lake);
  EXPECT_EQ(sinkd::testing::LakeFiles(events).size(), 1u) << "the output alone, its inputs deleted";
  EXPECT_EQ(LakeCount(events, "count(*)"), 12);
  EXPECT_EQ(LakeCount(events, "count(*) FILTER (WHERE event_id = 'evt_same')"), 2);
  EXPECT_EQ(LakeRows(events), postgres);
}

}  // namespace
}  // namespace sinkd::outbox
