// What survives a holder: forward-only cursors, fenced progress, lease epochs, and failure counts
// that let a crash-looping dispatcher still converge on a poison event.
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <set>

#include <gtest/gtest.h>

#include "outbox/outbox_fixture.h"
#include "outbox/sink_store.h"
#include "support/support.h"

namespace sinkd::outbox {
namespace {

using testing::CapturedLog;
using testing::Journal;
using testing::One;
using testing::OutboxDb;
using testing::ScriptedRowStore;
using testing::TestOptions;

std::string Saved(OutboxDb& db) {
  PgResult r = db.Sql("SELECT txid::text || ':' || seq FROM outbox_cursors WHERE name = 'sink:s'");
  return r.rows() ? std::string(r.Text(0, 0)) : "";
}

// C2: a save applies only when it moves the cursor forward; equal or older saves change nothing.
TEST(Handover, CursorSavesOnlyMoveForward) {
  OutboxDb db;
  db.Migrate();
  PgConn conn = db.Connect();
  ASSERT_TRUE(TryAcquireLease(conn, "L", "me", std::chrono::seconds(10)).ok());
  const Fence fence{"L", "me", 1};
  SinkStore store(SinkKind::kEvents, "s", StoreTables{});
  ASSERT_TRUE(store.Save(conn, Cursor{10, 5}, Progress{}, fence).ok());
  EXPECT_EQ(Saved(db), "10:5");
  ASSERT_TRUE(store.Save(conn, Cursor{9, 99}, Progress{}, fence).ok());
  EXPECT_EQ(Saved(db), "10:5") << "an older position never moves the cursor back";
  ASSERT_TRUE(store.Save(conn, Cursor{10, 5}, Progress{}, fence).ok());
  EXPECT_EQ(Saved(db), "10:5");
  ASSERT_TRUE(store.Save(conn, Cursor{12, 1}, Progress{}, fence).ok());
  ASSERT_TRUE(store.Save(conn, Cursor{11, 1}, Progress{}, fence).ok());
  EXPECT_EQ(Saved(db), "12:1") << "two racing saves: the greater one wins in either order";
  ASSERT_TRUE(store.Save(conn, Cursor{18446744073709551615ull, 0}, Progress{}, fence).ok());
  EXPECT_EQ(Saved(db), "18446744073709551615:0") << "xid8 compared unsigned, not as bigint";
}

// D2: a holder that lost its lease may still try a late save: the cursor cannot go back, and its
// progress write is fenced out by the epoch.
TEST(Handover, AHolderThatLostItsLeaseCannotMoveTheCursorBackOrOverwriteProgress) {
  OutboxDb db;
  db.Migrate();
  PgConn conn = db.Connect();
  const auto ttl = std::chrono::seconds(10);
  ASSERT_EQ(**TryAcquireLease(conn, "L", "old", ttl), 1);
  db.Sql("UPDATE sinkd_leases SET expires_at = now() - interval '1 second'");  // old one stalls
  ASSERT_EQ(**TryAcquireLease(conn, "L", "new", ttl), 2) << "taken over under a new epoch";
  SinkStore store(SinkKind::kEvents, "s", StoreTables{});
  Progress fresh;
  fresh.attempts = 0;
  ASSERT_TRUE(store.Save(conn, Cursor{50, 1}, fresh, Fence{"L", "new", 2}).ok());
  Progress stale;
  stale.attempts = 4;
  stale.last_error = "stale";
  ASSERT_TRUE(store.Save(conn, Cursor{40, 1}, stale, Fence{"L", "old", 1}).ok());
  EXPECT_EQ(Saved(db), "50:1");
  EXPECT_EQ(db.Count("SELECT attempts FROM sinkd_sink_progress"), 0);
  EXPECT_FALSE(*RenewLease(conn, "L", "old", 1, ttl)) << "the old holder cannot renew";
}

TEST(Handover, ALeaseIsHeldByOneKeeperAndTakenOverUnderANewEpochWhenItExpires) {
  OutboxDb db;
  db.Migrate();
  PgConn conn = db.Connect();
  ManualClock clock;
  LeaseOptions options;
  LeaseKeeper a("a", options, clock);
  LeaseKeeper b("b", options, clock);
  a.Want("L");
  b.Want("L");
  ASSERT_TRUE(a.Refresh(conn, true).ok());
  ASSERT_TRUE(b.Refresh(conn, true).ok());
  EXPECT_EQ(a.HeldEpoch("L"), 1);
  EXPECT_EQ(b.HeldEpoch("L"), 0);
  db.Sql("UPDATE sinkd_leases SET expires_at = now()");  // a stopped renewing
  ASSERT_TRUE(b.Refresh(conn, true).ok());
  EXPECT_EQ(b.HeldEpoch("L"), 2);
  ASSERT_TRUE(a.Refresh(conn, true).ok());
  EXPECT_EQ(a.HeldEpoch("L"), 0) << "a renewal under the old epoch finds the lease gone";
  clock.Advance(options.ttl);
  EXPECT_EQ(b.HeldEpoch("L"), 0) << "unrenewed, a lease is not trusted past 3/4 of its ttl";
  ASSERT_TRUE(b.Refresh(conn).ok());
  EXPECT_EQ(b.HeldEpoch("L"), 2) << "renewed under the same epoch: nobody else delivered";
}

// A new holder (new epoch) reloads the cursor the last holder saved.
TEST(Handover, ANewHolderReloadsTheCursorTheLastOneSaved) {
  OutboxDb db;
  db.Migrate();
  db.InsertEvents(30);
  ManualClock clock;
  CapturedLog log;
  auto ja = std::make_shared<Journal>();
  auto a = Dispatcher::Make(TestOptions(db.conninfo(), clock, log.logger(), "a"),
                            One(std::make_unique<ScriptedRowStore>("s", ja)), {});
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE((*a)->Tick().ok());
  ASSERT_EQ(ja->AcceptedCount(), 30u);
  db.InsertEvents(5);
  db.Sql("UPDATE sinkd_leases SET expires_at = now()");  // a died without releasing
  auto jb = std::make_shared<Journal>();
  auto b = Dispatcher::Make(TestOptions(db.conninfo(), clock, log.logger(), "b"),
                            One(std::make_unique<ScriptedRowStore>("s", jb)), {});
  ASSERT_TRUE((*b)->Tick().ok());
  ASSERT_TRUE((*b)->Tick().ok());
  EXPECT_EQ(jb->AcceptedCount(), 5u) << "resumed after the 30 already saved";
  EXPECT_EQ(log.Lines("\"previous_holder_died\":true").size(), 0u)
      << "a holder that died between deliveries (idle) left no delivery in flight to count";
}

// H1: a dispatcher whose process dies on the poison event (the sink crashes it) restarts with
// the count it persisted, so the loop converges: bisected down, five lone failures, dead letter.
TEST(Handover, ADispatcherThatCrashesOnAPoisonEventStillDeadLettersIt) {
  OutboxDb db;
  db.Migrate();
  db.InsertEvents(8);
  sinkd::testing::TempDir tmp;
  const std::string delivered = (tmp / "delivered").string();
  int runs = 0;
  while (db.Count("SELECT count(*) FROM outbox_dead_letters") == 0 && runs < 20) {
    ++runs;
    const pid_t pid = fork();
    if (pid == 0) {
      ManualClock clock;
      Logger quiet(stderr, LogLevel::kError);
      auto sink = std::make_unique<ScriptedRowStore>(
          "s", std::make_shared<Journal>(), [&](std::span<const sinks::Event> events) {
            for (const auto& e : events) {
              if (e.id == "evt_5") _exit(3);  // the sink takes the process down
            }
            std::ofstream out(delivered, std::ios::app);
            for (const auto& e : events) out << e.id << "\n";
            return Status::OK();
          });
      auto d = Dispatcher::Make(TestOptions(db.conninfo(), clock, quiet, "run"), One(std::move(sink)), {});
      if (!d.ok()) _exit(2);
      for (int i = 0; i < 10; ++i) (void)(*d)->Tick();
      _exit(0);
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    ASSERT_NE(WEXITSTATUS(status), 2) << "the child could not start its dispatcher";
    db.Sql("UPDATE sinkd_leases SET expires_at = now()");  // the next run takes over at once
  }
  EXPECT_EQ(db.Count("SELECT count(*) FROM outbox_dead_letters"), 1) << "after " << runs << " runs";
  EXPECT_EQ(db.Count("SELECT attempts FROM outbox_dead_letters"), 5);
  EXPECT_EQ(runs, 9) << "8, 4, 2 and 1 event(s) crash, e5 alone crashes 4 more times, the probe";
  std::set<std::string> ids;
  std::ifstream in(delivered);
  for (std::string line; std::getline(in, line);) ids.insert(line);
  EXPECT_EQ(ids, (std::set<std::string>{"evt_0", "evt_1", "evt_2", "evt_3", "evt_4", "evt_6",
                                        "evt_7"}));
}

}  // namespace
}  // namespace sinkd::outbox
