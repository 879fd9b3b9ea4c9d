// Dispatch, one pass at a time (Tick) with scripted sinks: order, cursors, origins, leases.
#include <gtest/gtest.h>

#include "outbox/outbox_fixture.h"
#include "outbox/reader.h"

namespace sinkd::outbox {
namespace {

using testing::CapturedLog;
using testing::Journal;
using testing::One;
using testing::OutboxDb;
using testing::ScriptedRowStore;
using testing::TestOptions;

std::unique_ptr<Dispatcher> MakeDispatcher(const DispatcherOptions& options,
                                           std::vector<EventSinkEntry> sinks) {
  auto d = Dispatcher::Make(options, std::move(sinks), {});
  EXPECT_TRUE(d.ok()) << d.status().ToString();
  return d.ok() ? std::move(d).value() : nullptr;
}

std::vector<int64_t> AllSeqs(OutboxDb& db) {
  PgResult r = db.Sql("SELECT seq FROM outbox ORDER BY txid, seq");
  std::vector<int64_t> out;
  for (int i = 0; i < r.rows(); ++i) out.push_back(r.Int(i, 0));
  return out;
}

std::string SavedCursor(OutboxDb& db, const std::string& sink) {
  PgResult r = db.Sql("SELECT txid::text || ':' || seq FROM outbox_cursors WHERE name = $1",
                      {"sink:" + sink});
  return r.rows() ? std::string(r.Text(0, 0)) : "";
}

TEST(Dispatch, APassReadsUpTo128EventsIntoOneDeliverAndSavesTheCursorAfterEach) {
  OutboxDb db;
  db.Migrate();
  db.InsertEvents(300);
  ManualClock clock;
  CapturedLog log;
  auto journal = std::make_shared<Journal>();
  auto d = MakeDispatcher(TestOptions(db.conninfo(), clock, log.logger()),
                          One(std::make_unique<ScriptedRowStore>("lake", journal)));
  ASSERT_TRUE(d);
  std::vector<size_t> sizes;
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(d->Tick().ok());
    const auto calls = journal->Calls();
    if (calls.size() > sizes.size()) sizes.push_back(calls.back().size());
    if (i == 0) {
      EXPECT_EQ(SavedCursor(db, "lake"), "" + std::to_string(journal->accepted[127].txid) + ":" +
                                             std::to_string(journal->accepted[127].seq))
          << "the cursor is saved after every delivered batch";
    }
  }
  EXPECT_EQ(sizes, (std::vector<size_t>{128, 128, 44}));
  EXPECT_EQ(journal->AcceptedSeqs(), AllSeqs(db)) << "every event once, in (txid, seq) order";
  EXPECT_EQ(SavedCursor(db, "lake"), journal->accepted.back().sequence);
  EXPECT_EQ(journal->accepted[0].sequence.find(':'), std::to_string(journal->accepted[0].txid).size());
}

// A sink added later has no cursor: it receives everything the outbox still holds.
TEST(Dispatch, ANewSinkStartsAtTheOrigin) {
  OutboxDb db;
  db.Migrate();
  db.InsertEvents(50);
  ManualClock clock;
  CapturedLog log;
  auto old_journal = std::make_shared<Journal>();
  {
    auto d = MakeDispatcher(TestOptions(db.conninfo(), clock, log.logger()),
                            One(std::make_unique<ScriptedRowStore>("old", old_journal)));
    ASSERT_TRUE(d->Tick().ok());
    d->Release();
  }
  ASSERT_EQ(old_journal->AcceptedCount(), 50u);
  db.InsertEvents(10);
  auto new_journal = std::make_shared<Journal>();
  std::vector<EventSinkEntry> sinks;
  sinks.push_back({std::make_unique<ScriptedRowStore>("old", old_journal), 0});
  sinks.push_back({std::make_unique<ScriptedRowStore>("new", new_journal), 0});
  auto d = MakeDispatcher(TestOptions(db.conninfo(), clock, log.logger()), std::move(sinks));
  ASSERT_TRUE(d->Tick().ok());
  EXPECT_EQ(new_journal->AcceptedSeqs(), AllSeqs(db)) << "the new sink starts at (0, 0)";
  EXPECT_EQ(old_journal->AcceptedCount(), 60u) << "the old sink resumed from its saved cursor";
}

// One lease per sink: a second dispatcher for the same sink must deliver nothing while the
// first holds it, and must take over from the saved cursor after a clean release.
TEST(Dispatch, TwoDispatchersForOneSinkOnlyOneDelivers) {
  OutboxDb db;
  db.Migrate();
  ManualClock clock;
  CapturedLog log;
  auto ja = std::make_shared<Journal>();
  auto jb = std::make_shared<Journal>();
  auto a = MakeDispatcher(TestOptions(db.conninfo(), clock, log.logger(), "holder-a"),
                          One(std::make_unique<ScriptedRowStore>("shared", ja)));
  auto b = MakeDispatcher(TestOptions(db.conninfo(), clock, log.logger(), "holder-b"),
                          One(std::make_unique<ScriptedRowStore>("shared", jb)));
  for (int round = 0; round < 5; ++round) {
    db.InsertEvents(20);
    ASSERT_TRUE(a->Tick().ok());
    ASSERT_TRUE(b->Tick().ok());
  }
  EXPECT_EQ(ja->AcceptedCount(), 100u);
  EXPECT_TRUE(jb->Calls().empty()) << "the second dispatcher must not deliver at all";
  EXPECT_EQ(db.Sql("SELECT holder FROM sinkd_leases WHERE name = "
                   "'singleton:outbox-dispatch:shared'").Text(0, 0),
            "holder-a");
  a->Release();
  db.InsertEvents(7);
  ASSERT_TRUE(b->Tick().ok());
  EXPECT_EQ(jb->AcceptedCount(), 7u) << "the new holder resumes from the saved cursor";
  EXPECT_EQ(db.Count("SELECT epoch FROM sinkd_leases"), 2) << "a takeover is a new epoch";
}

// The fence at dispatch level: an open transaction that owns an xid holds every later commit.
TEST(Dispatch, AnOpenTransactionHoldsTheFenceAndNothingIsLost) {
  OutboxDb db;
  db.Migrate();
  db.InsertEvents(3);
  ManualClock clock;
  CapturedLog log;
  auto journal = std::make_shared<Journal>();
  auto d = MakeDispatcher(TestOptions(db.conninfo(), clock, log.logger()),
                          One(std::make_unique<ScriptedRowStore>("lake", journal)));
  PgConn slow = db.Connect();
  ASSERT_TRUE(slow.Exec("BEGIN").ok());
  ASSERT_TRUE(slow.Exec("INSERT INTO outbox (topic, payload) VALUES ('t', '{\"id\":\"slow\"}')").ok());
  db.InsertEvents(5);  // commits after the slow transaction took its xid
  ASSERT_TRUE(d->Tick().ok());
  ASSERT_TRUE(d->Tick().ok());
  EXPECT_EQ(journal->AcceptedCount(), 3u) << "only what committed before the open transaction";
  ASSERT_TRUE(slow.Exec("COMMIT").ok());
  ASSERT_TRUE(d->Tick().ok());
  EXPECT_EQ(journal->AcceptedSeqs(), AllSeqs(db)) << "all 9, the slow one before the later five";
  EXPECT_EQ(journal->accepted[3].id, "slow");
}

// B6: a delivery in progress must not pin the horizon: no dispatcher session owns an xid then.
TEST(Dispatch, NoDispatcherSessionOwnsATransactionIdWhileASinkDelivers) {
  OutboxDb db;
  db.Migrate();
  db.InsertEvents(10);
  ManualClock clock;
  CapturedLog log;
  auto journal = std::make_shared<Journal>();
  PgConn probe = db.Connect();
  const std::string count_holders =
      "SELECT count(*) FROM pg_stat_activity WHERE application_name LIKE 'sinkd-dispatch%' AND "
      "backend_xid IS NOT NULL";
  {
    auto premise = PgConn::Connect(db.conninfo(), "sinkd-dispatch-premise");
    ASSERT_TRUE(premise.ok());
    ASSERT_TRUE(premise->Exec("BEGIN").ok());
    ASSERT_TRUE(premise->Exec("SELECT pg_current_xact_id()").ok());
    EXPECT_EQ(probe.Exec(count_holders)->Int(0, 0), 1) << "premise: the probe sees an xid owner";
    ASSERT_TRUE(premise->Exec("ROLLBACK").ok());
  }
  int64_t holding = -1;
  auto sink = std::make_unique<ScriptedRowStore>(
      "lake", journal, [&](std::span<const sinks::Event>) {
        auto r = probe.Exec(count_holders);
        holding = r.ok() ? r->Int(0, 0) : -2;
        return Status::OK();
      });
  auto d = MakeDispatcher(TestOptions(db.conninfo(), clock, log.logger()), One(std::move(sink)));
  ASSERT_TRUE(d->Tick().ok());
  ASSERT_EQ(journal->AcceptedCount(), 10u);
  EXPECT_EQ(holding, 0) << "a session holding an xid would stall every sink of the cluster";
}

TEST(Dispatch, EmptyAndDuplicateIdsAreRefusedBeforeAnythingIsRead) {
  OutboxDb db;
  db.Migrate();
  ManualClock clock;
  CapturedLog log;
  auto journal = std::make_shared<Journal>();
  std::vector<EventSinkEntry> dup;
  dup.push_back({std::make_unique<ScriptedRowStore>("x", journal), 0});
  dup.push_back({std::make_unique<ScriptedRowStore>("x", journal), 0});
  auto d = Dispatcher::Make(TestOptions(db.conninfo(), clock, log.logger()), std::move(dup), {});
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("INVALID_CONFIG"), std::string::npos);
  EXPECT_NE(d.status().message().find("\"x\""), std::string::npos) << d.status().message();
  auto empty = Dispatcher::Make(TestOptions(db.conninfo(), clock, log.logger()),
                                One(std::make_unique<ScriptedRowStore>("", journal)), {});
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("INVALID_CONFIG"), std::string::npos);
}

TEST(Dispatch, AMissingOutboxIsRefusedWithTheWayOut) {
  OutboxDb db;
  ManualClock clock;
  CapturedLog log;
  auto d = Dispatcher::Make(TestOptions(db.conninfo(), clock, log.logger()),
                            One(std::make_unique<ScriptedRowStore>("x", std::make_shared<Journal>())),
                            {});
  ASSERT_FALSE(d.ok());
  EXPECT_TRUE(d.status().IsRefuse());
  EXPECT_NE(d.status().message().find("sinkd outbox migrate"), std::string::npos)
      << d.status().message();
}

}  // namespace
}  // namespace sinkd::outbox
