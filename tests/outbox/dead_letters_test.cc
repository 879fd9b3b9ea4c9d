// The event sinks' dead letters read back and replayed (outbox/dead_letters.h): a poison event
// dead-lettered by a real dispatcher, the sink fixed, the event re-inserted once however often
// and however concurrently the replay runs.
#include <atomic>
#include <thread>

#include <gtest/gtest.h>

#include "outbox/dead_letters.h"
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

// Four events; the sink "lake" refuses evt_2 while `broken`, so the dispatcher dead-letters it.
struct PoisonedOutbox {
  OutboxDb db;
  ManualClock clock;
  CapturedLog log;
  std::shared_ptr<Journal> journal = std::make_shared<Journal>();
  std::shared_ptr<std::atomic<bool>> broken = std::make_shared<std::atomic<bool>>(true);
  std::unique_ptr<Dispatcher> dispatcher;

  PoisonedOutbox() {
    db.Migrate();
    db.InsertEvents(4);
    auto fails = [broken = broken](std::span<const sinks::Event> events) {
      for (const auto& e : events) {
        if (*broken && e.id == "evt_2") return Status::Retry("cannot store evt_2");
      }
      return Status::OK();
    };
    auto d = Dispatcher::Make(TestOptions(db.conninfo(), clock, log.logger()),
                              One(std::make_unique<ScriptedRowStore>("lake", journal, fails)), {});
    EXPECT_TRUE(d.ok()) << d.status().ToString();
    if (d.ok()) dispatcher = std::move(d).value();
  }
  // Passes (the clock moved to each retry) until the sink's cursor is past every event.
  void RunUntilCaughtUp() {
    const int64_t last = db.Count("SELECT max(seq) FROM outbox");
    for (int pass = 0; pass < 40; ++pass) {
      ASSERT_TRUE(dispatcher->Tick().ok());
      if (db.Count("SELECT coalesce(max(seq), 0) FROM outbox_cursors") == last) return;
      const double wait = dispatcher->Figures()[0].retry_in_seconds;
      clock.Advance(std::chrono::duration_cast<Duration>(std::chrono::duration<double>(wait)) +
                    std::chrono::microseconds(1));
    }
    FAIL() << "the dispatcher did not catch up";
  }
  Cursor DeadPosition() {
    PgResult r = db.Sql("SELECT txid::text, seq FROM outbox_dead_letters");
    EXPECT_EQ(r.rows(), 1);
    if (r.rows() != 1) return {};
    return Cursor{*ParseXid8(r.Text(0, 0)), r.Int(0, 1)};
  }
  std::vector<std::string> AcceptedIds() {
    std::lock_guard<std::mutex> lock(journal->mu);
    std::vector<std::string> ids;
    for (const auto& e : journal->accepted) ids.push_back(e.id);
    return ids;
  }
};

TEST(OutboxDeadLetters, AReplayedDeadLetterReachesTheFixedSinkAndASecondReplayInsertsNothing) {
  PoisonedOutbox o;
  o.RunUntilCaughtUp();
  const Cursor dead = o.DeadPosition();
  ASSERT_EQ(o.AcceptedIds(), (std::vector<std::string>{"evt_0", "evt_1", "evt_3"}));
  PgConn conn = o.db.Connect();
  auto listed = ListOutboxDeadLetters(conn, {});
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].event_id, "evt_2");
  EXPECT_EQ((*listed)[0].error, "cannot store evt_2");
  EXPECT_FALSE((*listed)[0].replayed_as.has_value());

  *o.broken = false;  // the sink was fixed
  auto first = ReplayOutboxDeadLetter(conn, dead);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_TRUE(first->replayed);
  EXPECT_EQ(o.db.Count("SELECT count(*) FROM outbox"), 5);
  EXPECT_EQ(o.db.Count("SELECT count(*) FROM outbox WHERE seq = " +
                       std::to_string(first->outbox_seq) +
                       " AND payload = (SELECT payload FROM outbox WHERE seq = " +
                       std::to_string(dead.seq) + ")"),
            1)
      << "the original row's payload, as a new row";
  o.RunUntilCaughtUp();
  EXPECT_EQ(o.AcceptedIds(), (std::vector<std::string>{"evt_0", "evt_1", "evt_3", "evt_2"}));

  auto second = ReplayOutboxDeadLetter(conn, dead);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_FALSE(second->replayed);
  EXPECT_EQ(second->outbox_seq, first->outbox_seq);
  EXPECT_EQ(o.db.Count("SELECT count(*) FROM outbox"), 5) << "nothing inserted twice";
  listed = ListOutboxDeadLetters(conn, {});
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u) << "the dead letter stays";
  EXPECT_EQ((*listed)[0].replayed_as, first->outbox_seq);
  OutboxDeadSelection unreplayed;
  unreplayed.unreplayed = true;
  EXPECT_TRUE(ListOutboxDeadLetters(conn, unreplayed)->empty());
}

TEST(OutboxDeadLetters, ConcurrentReplaysOfOnePositionInsertOneRow) {
  PoisonedOutbox o;
  o.RunUntilCaughtUp();
  const Cursor dead = o.DeadPosition();
  std::atomic<int> replayed{0}, failed{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 6; ++i) {
    threads.emplace_back([&] {
      PgConn conn = o.db.Connect();
      auto r = ReplayOutboxDeadLetter(conn, dead);
      if (!r.ok()) ++failed;
      if (r.ok() && r->replayed) ++replayed;
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(replayed.load(), 1);
  EXPECT_EQ(o.db.Count("SELECT count(*) FROM outbox"), 5);
}

TEST(OutboxDeadLetters, APrunedOriginalIsReplayedFromTheDeadLetterUnderItsType) {
  PoisonedOutbox o;
  o.RunUntilCaughtUp();
  const Cursor dead = o.DeadPosition();
  const std::string payload =
      std::string(o.db.Sql("SELECT payload::text FROM outbox WHERE seq = " +
                           std::to_string(dead.seq)).Text(0, 0));
  o.db.Sql("DELETE FROM outbox");  // what `outbox retain` does behind the cursors
  PgConn conn = o.db.Connect();
  auto r = ReplayOutboxDeadLetter(conn, dead);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  PgResult row = o.db.Sql("SELECT topic, payload::text FROM outbox");
  ASSERT_EQ(row.rows(), 1);
  EXPECT_EQ(row.Text(0, 0), "reservation.placed");
  EXPECT_EQ(row.Text(0, 1), payload) << "the event as delivered, without its old position";
}

TEST(OutboxDeadLetters, OnePositionDeadLetteredByTwoSinksIsReplayedOnceForBoth) {
  PoisonedOutbox o;
  o.RunUntilCaughtUp();
  const Cursor dead = o.DeadPosition();
  o.db.Sql("INSERT INTO outbox_dead_letters (sink, txid, seq, event, error, attempts) SELECT "
           "'webhook', txid, seq, event, 'HTTP 500', 5 FROM outbox_dead_letters");
  PgConn conn = o.db.Connect();
  OutboxDeadSelection webhook;
  webhook.sink = "webhook";
  auto listed = ListOutboxDeadLetters(conn, webhook);
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].error, "HTTP 500");
  auto r = ReplayOutboxDeadLetter(conn, dead);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(o.db.Count("SELECT count(*) FROM outbox"), 5);
  EXPECT_EQ(o.db.Count("SELECT count(*) FROM sinkd_dead_letter_replays WHERE outbox_seq = " +
                       std::to_string(r->outbox_seq)),
            2);
}

TEST(OutboxDeadLetters, TheListSelectsByPositionAndTimeAndAMissingPositionIsNotFound) {
  PoisonedOutbox o;
  o.RunUntilCaughtUp();
  const Cursor dead = o.DeadPosition();
  PgConn conn = o.db.Connect();
  OutboxDeadSelection at;
  at.positions = {dead};
  EXPECT_EQ(ListOutboxDeadLetters(conn, at)->size(), 1u);
  at.positions = {Cursor{dead.txid, dead.seq + 1}};
  EXPECT_TRUE(ListOutboxDeadLetters(conn, at)->empty());
  OutboxDeadSelection later;
  later.since = "2999-01-01T00:00:00Z";
  EXPECT_TRUE(ListOutboxDeadLetters(conn, later)->empty());
  OutboxDeadSelection earlier;
  earlier.until = "2999-01-01T00:00:00Z";
  earlier.since = "2000-01-01T00:00:00Z";
  EXPECT_EQ(ListOutboxDeadLetters(conn, earlier)->size(), 1u);
  auto missing = ReplayOutboxDeadLetter(conn, Cursor{dead.txid, dead.seq + 1});
  EXPECT_TRUE(missing.status().IsNotFound()) << missing.status().ToString();
  EXPECT_EQ(o.db.Count("SELECT count(*) FROM sinkd_dead_letter_replays"), 0) << "rolled back";
}

TEST(OutboxDeadLetters, WithoutTheReplayTableAReplayIsRefusedNamingMigrate) {
  PoisonedOutbox o;
  o.RunUntilCaughtUp();
  const Cursor dead = o.DeadPosition();
  o.db.Sql("DROP TABLE sinkd_dead_letter_replays");
  PgConn conn = o.db.Connect();
  auto listed = ListOutboxDeadLetters(conn, {});
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  EXPECT_EQ(listed->size(), 1u);
  auto r = ReplayOutboxDeadLetter(conn, dead);
  EXPECT_NE(r.status().ToString().find("sinkd outbox migrate"), std::string::npos)
      << r.status().ToString();
  EXPECT_EQ(o.db.Count("SELECT count(*) FROM outbox"), 4);
}

}  // namespace
}  // namespace sinkd::outbox
