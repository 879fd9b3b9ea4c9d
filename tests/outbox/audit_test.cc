// Audit sinks: 500 records per write until a short batch, whole-batch retries with back-off,
// their own cursor table and lease; and the tables the document lets an application leave out.
#include <gtest/gtest.h>

#include "outbox/outbox_fixture.h"

namespace sinkd::outbox {
namespace {

using testing::CapturedLog;
using testing::Journal;
using testing::One;
using testing::OutboxDb;
using testing::ScriptedAuditSink;
using testing::ScriptedRowStore;
using testing::TestOptions;

std::unique_ptr<Dispatcher> AuditDispatcher(OutboxDb& db, const Clock& clock, Logger& log,
                                            std::unique_ptr<sinks::AuditSink> sink) {
  std::vector<std::unique_ptr<sinks::AuditSink>> audit;
  audit.push_back(std::move(sink));
  auto d = Dispatcher::Make(TestOptions(db.conninfo(), clock, log), {}, std::move(audit));
  EXPECT_TRUE(d.ok()) << d.status().ToString();
  return d.ok() ? std::move(d).value() : nullptr;
}

TEST(Audit, RecordsGoOutFiveHundredPerWriteUntilABatchComesBackShort) {
  OutboxDb db;
  db.Migrate();
  db.InsertAudit(1234);
  ManualClock clock;
  CapturedLog log;
  auto journal = std::make_shared<Journal>();
  auto d = AuditDispatcher(db, clock, log.logger(),
                           std::make_unique<ScriptedAuditSink>("siem", journal));
  ASSERT_TRUE(d->Tick().ok());
  EXPECT_EQ(journal->write_sizes, (std::vector<size_t>{500, 500, 234})) << "one pass drains it";
  ASSERT_EQ(journal->written.size(), 1234u);
  for (size_t i = 0; i < journal->written.size(); ++i) {
    ASSERT_EQ(journal->written[i].id, "aud_" + std::to_string(i)) << "in (txid, seq) order";
  }
  EXPECT_EQ(db.Sql("SELECT txid::text || ':' || seq FROM audit_sink_cursors WHERE sink_id = 'siem'")
                .Text(0, 0),
            journal->written.back().sequence);
  EXPECT_EQ(db.Count("SELECT count(*) FROM sinkd_leases WHERE name = "
                     "'singleton:audit-sinks:siem'"),
            1)
      << "each audit sink has its own lease";
  ASSERT_TRUE(d->Tick().ok());
  EXPECT_EQ(journal->write_sizes.size(), 3u) << "nothing more to write";
  EXPECT_NE(sinks::AuditRecordJson(journal->written[0]).find("\"resource\":{\"type\":"
                                                             "\"reservation\",\"id\":\"rsv_0\"}"),
            std::string::npos);
}

// I2: no bisection, no dead letters: the same 500 are retried whole, 1 s, 2 s, 4 s apart.
TEST(Audit, AFailedWriteRetriesTheWholeBatchAfterABackOffAndSkipsNothing) {
  OutboxDb db;
  db.Migrate();
  db.InsertAudit(700);
  ManualClock clock;
  CapturedLog log;
  auto journal = std::make_shared<Journal>();
  int failures_left = 3;
  auto d = AuditDispatcher(
      db, clock, log.logger(),
      std::make_unique<ScriptedAuditSink>("siem", journal, [&](auto) {
        return failures_left-- > 0 ? Status::Retry("siem unavailable") : Status::OK();
      }));
  ASSERT_TRUE(d->Tick().ok());  // the first write fails
  for (int wait : {1, 2, 4}) {
    const size_t writes = journal->write_sizes.size();
    ASSERT_TRUE(d->Tick().ok());
    EXPECT_EQ(journal->write_sizes.size(), writes) << "no retry before the back-off is over";
    EXPECT_NEAR(d->Figures()[0].retry_in_seconds, wait, 0.01);
    clock.Advance(std::chrono::seconds(wait));
    ASSERT_TRUE(d->Tick().ok());
    EXPECT_EQ(journal->write_sizes.size(), writes + (wait == 4 ? 2 : 1));
  }
  EXPECT_EQ(journal->write_sizes, (std::vector<size_t>{500, 500, 500, 500, 200}))
      << "the failing batch is retried whole, never split";
  EXPECT_EQ(journal->written.size(), 700u);
  EXPECT_EQ(db.Count("SELECT count(*) FROM outbox_dead_letters"), 0);
}

TEST(Degraded, WithoutOutboxCursorsCursorsLiveInMemoryWithOneWarning) {
  OutboxDb db;
  db.Migrate();
  db.Sql("DROP TABLE outbox_cursors");
  db.InsertEvents(10);
  ManualClock clock;
  CapturedLog log;
  auto first = std::make_shared<Journal>();
  {
    auto d = Dispatcher::Make(TestOptions(db.conninfo(), clock, log.logger()),
                              One(std::make_unique<ScriptedRowStore>("s", first)), {});
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    ASSERT_TRUE((*d)->Tick().ok());
    ASSERT_TRUE((*d)->Tick().ok());
    (*d)->Release();
  }
  EXPECT_EQ(first->AcceptedCount(), 10u) << "delivery works without the table";
  EXPECT_EQ(log.Lines("no outbox_cursors table").size(), 1u) << "one warning, not one per pass";
  auto second = std::make_shared<Journal>();
  auto d = Dispatcher::Make(TestOptions(db.conninfo(), clock, log.logger(), "next"),
                            One(std::make_unique<ScriptedRowStore>("s", second)), {});
  ASSERT_TRUE((*d)->Tick().ok());
  EXPECT_EQ(second->AcceptedCount(), 10u) << "a new holder starts at the origin";
}

TEST(Degraded, WithoutDeadLettersAPoisonEventIsOnlyLoggedAndTheCursorMovesPastIt) {
  OutboxDb db;
  db.Migrate();
  db.Sql("DROP TABLE outbox_dead_letters");
  db.InsertEvents(3);
  ManualClock clock;
  CapturedLog log;
  auto journal = std::make_shared<Journal>();
  auto d = Dispatcher::Make(
      TestOptions(db.conninfo(), clock, log.logger()),
      One(std::make_unique<ScriptedRowStore>("s", journal,
                                         [](std::span<const sinks::Event> events) {
                                           for (const auto& e : events) {
                                             if (e.id == "evt_1") return Status::Reject("bad");
                                           }
                                           return Status::OK();
                                         })),
      {});
  ASSERT_TRUE(d.ok());
  for (int i = 0; i < 5; ++i) ASSERT_TRUE((*d)->Tick().ok());
  EXPECT_EQ(journal->AcceptedCount(), 2u);
  const auto logged = log.Lines("no outbox_dead_letters table; the poison event is only logged");
  ASSERT_EQ(logged.size(), 1u);
  EXPECT_NE(logged[0].find("evt_1"), std::string::npos) << "the event itself is in the log";
  EXPECT_EQ(db.Count("SELECT seq FROM outbox_cursors"),
            db.Count("SELECT max(seq) FROM outbox")) << "the cursor moved past it";
}

}  // namespace
}  // namespace sinkd::outbox
