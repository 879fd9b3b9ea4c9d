// kill -9 of a dispatcher that is not delivering (idle at one cursor) is not a failed delivery:
// thirty such deaths in a row, then two events, and both reach the lake with no dead letter.
// Before, every unclean stop counted as a failed delivery of the next batch, so about
// log2(read size) + 5 of them (18 for a lake sink) dead-lettered an event never delivered.
// Labelled slow: thirty real `sinkd dispatch` processes.
#include <gtest/gtest.h>

#include "outbox/outbox_fixture.h"
#include "outbox/process.h"
#include "support/support.h"

namespace sinkd::outbox {
namespace {

namespace fs = std::filesystem;
using sinkd::testing::DuckDb;
using sinkd::testing::SinkdBinary;
using sinkd::testing::SqlQuote;
using sinkd::testing::TempDir;
using sinkd::testing::WaitUntil;
using sinkd::testing::WriteFile;
using testing::Background;
using testing::OutboxDb;

TEST(IdleKill, ThirtyKillsOfAnIdleDispatcherCostNoFailedDeliveryAndNoDeadLetter) {
  OutboxDb db;
  db.Migrate();
  TempDir tmp;
  const fs::path lake = tmp / "lake";
  const fs::path config = tmp / "dispatch.toml";
  WriteFile(config, "[postgres]\nurl = \"" + db.conninfo() + "\"\n[dispatch]\n"
                    "poll_interval = \"50ms\"\ninstance = \"idle\"\n[[sinks.events]]\n"
                    "id = \"lake\"\ntype = \"lake\"\nlake_dir = \"" + lake.string() + "\"\n");
  const std::vector<std::string> argv = {SinkdBinary(), "dispatch", "--config", config.string()};
  for (int kill = 1; kill <= 30; ++kill) {
    // The progress row written after `since` proves this run took the lease over (the save that
    // counted a lost delivery in the old code) and sits idle at the cursor.
    const std::string since(db.Sql("SELECT clock_timestamp()::text").Text(0, 0));
    Background run(argv, tmp / ("run" + std::to_string(kill) + ".log"));
    ASSERT_TRUE(WaitUntil(
        [&] {
          return db.Count("SELECT count(*) FROM sinkd_sink_progress WHERE updated_at > '" + since +
                          "'::timestamptz") == 1;
        },
        std::chrono::seconds(30)))
        << "run " << kill << " never took the sink over:\n" << run.Log();
    run.Signal(SIGKILL);
    ASSERT_EQ(run.Wait(std::chrono::seconds(10)), 128 + SIGKILL);
    db.Sql("UPDATE sinkd_leases SET expires_at = now()");  // the next run takes over at once
  }
  EXPECT_EQ(db.Count("SELECT attempts + suspect FROM sinkd_sink_progress"), 0)
      << "no failure was counted at the cursor";

  db.InsertEvents(1);
  db.InsertEvents(1);
  Background last(argv, tmp / "last.log");
  ASSERT_TRUE(WaitUntil(
      [&] {
        return db.Count("SELECT count(*) FROM outbox_cursors c WHERE (c.txid, c.seq) = (SELECT "
                        "o.txid, o.seq FROM outbox o ORDER BY o.txid DESC, o.seq DESC LIMIT 1)") ==
               1;
      },
      std::chrono::seconds(60)))
      << last.Log();
  EXPECT_EQ(db.Count("SELECT count(*) FROM outbox_dead_letters"), 0) << last.Log();
  auto q = DuckDb("SELECT string_agg(event_id, ',' ORDER BY event_id) FROM read_parquet(" +
                  SqlQuote((lake / "outbox_events" / "**" / "*.parquet").string()) + ")");
  ASSERT_TRUE(q.ok) << q.error;
  EXPECT_EQ(q.rows[0][0], "evt_0,evt_1") << "both events delivered";
  EXPECT_EQ(last.Log().find("\"previous_holder_died\":true"), std::string::npos) << last.Log();
}

}  // namespace
}  // namespace sinkd::outbox
