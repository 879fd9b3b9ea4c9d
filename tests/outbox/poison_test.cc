// Bisection, back-off, the neighbour probe and dead letters, driven pass by pass with a manual
// clock so five minutes of back-off cost nothing.
#include <cmath>

#include <gtest/gtest.h>

#include "outbox/outbox_fixture.h"

namespace sinkd::outbox {
namespace {

using testing::CapturedLog;
using testing::Journal;
using testing::One;
using testing::OutboxDb;
using testing::ScriptedRowStore;
using testing::TestOptions;
using Seqs = std::vector<int64_t>;

struct Harness {
  OutboxDb db;
  ManualClock clock;
  CapturedLog log;
  std::shared_ptr<Journal> journal = std::make_shared<Journal>();
  std::unique_ptr<Dispatcher> dispatcher;
  Seqs seqs;  // every outbox seq in (txid, seq) order

  // `events` committed, then a dispatcher with one sink answering by `rule`.
  Harness(int events, ScriptedRowStore::Rule rule) {
    db.Migrate();
    db.InsertEvents(events);
    Reload();
    auto d = Dispatcher::Make(TestOptions(db.conninfo(), clock, log.logger()),
                              One(std::make_unique<ScriptedRowStore>("lake", journal, rule)), {});
    EXPECT_TRUE(d.ok()) << d.status().ToString();
    if (d.ok()) dispatcher = std::move(d).value();
  }
  void Reload() {
    seqs.clear();
    PgResult r = db.Sql("SELECT seq FROM outbox ORDER BY txid, seq");
    for (int i = 0; i < r.rows(); ++i) seqs.push_back(r.Int(i, 0));
  }
  Seqs Range(int from, int to) const { return Seqs(seqs.begin() + from, seqs.begin() + to + 1); }
  void Tick() { ASSERT_TRUE(dispatcher->Tick().ok()); }
  size_t CallCount() { return journal->Calls().size(); }
  // Moves the clock to the sink's retry time and runs one pass.
  void TickWhenDue() {
    const double wait = dispatcher->Figures()[0].retry_in_seconds;
    clock.Advance(std::chrono::duration_cast<Duration>(std::chrono::duration<double>(wait)) +
                  std::chrono::microseconds(1));
    Tick();
  }
  int64_t DeadLetters() { return db.Count("SELECT count(*) FROM outbox_dead_letters"); }
};

Status FailIfHolds(std::span<const sinks::Event> events, const std::string& id) {
  for (const auto& e : events) {
    if (e.id == id) return Status::Retry("cannot store " + id);
  }
  return Status::OK();
}

// F4: the exact sequence of calls that isolates a poison event in a batch of eight.
TEST(Poison, APoisonEventInABatchOfEightIsBisectedPassByPassUntilAlone) {
  Harness h(8, [](auto events) { return FailIfHolds(events, "evt_5"); });
  for (int i = 0; i < 7; ++i) h.Tick();
  EXPECT_EQ(h.journal->Calls(),
            (std::vector<Seqs>{h.Range(0, 7), h.Range(0, 3), h.Range(4, 7), h.Range(4, 5),
                               h.Range(4, 4), h.Range(5, 5)}))
      << "six calls, then the seventh pass waits out the 1 s back-off";
  EXPECT_EQ(h.journal->AcceptedSeqs(), h.Range(0, 4));
  EXPECT_EQ(h.db.Count("SELECT seq FROM outbox_cursors"), h.seqs[4]) << "cursor right before e5";
}

// H2/H3: five lone failures, then the next event alone; it goes through, so e5 is poison.
TEST(Poison, APoisonEventIsDeadLetteredAfterExactlyFiveLoneFailuresWhenItsNeighbourSucceeds) {
  Harness h(8, [](auto events) { return FailIfHolds(events, "evt_5"); });
  for (int i = 0; i < 6; ++i) h.Tick();  // bisection down to the first lone failure
  ASSERT_EQ(h.CallCount(), 6u);
  for (int attempt = 2; attempt <= 5; ++attempt) {
    EXPECT_EQ(h.DeadLetters(), 0) << "nothing is dead-lettered before the fifth failure";
    h.TickWhenDue();
  }
  const auto calls = h.journal->Calls();
  ASSERT_EQ(calls.size(), 11u) << "4 bisection calls, 5 lone calls of e5, 1 probe of e6, + e4";
  for (size_t i = 5; i < 10; ++i) EXPECT_EQ(calls[i], h.Range(5, 5)) << "call " << i;
  EXPECT_EQ(calls[10], h.Range(6, 6)) << "the neighbour, delivered on its own";
  PgResult dl = h.db.Sql("SELECT sink, seq, attempts, error, event->>'id', event->>'sequence' "
                         "FROM outbox_dead_letters");
  ASSERT_EQ(dl.rows(), 1);
  EXPECT_EQ(dl.Text(0, 0), "lake");
  EXPECT_EQ(dl.Int(0, 1), h.seqs[5]);
  EXPECT_EQ(dl.Int(0, 2), 5) << "attempts counts the lone failures";
  EXPECT_EQ(dl.Text(0, 3), "cannot store evt_5");
  EXPECT_EQ(dl.Text(0, 4), "evt_5") << "the event as delivered";
  EXPECT_EQ(h.db.Count("SELECT seq FROM outbox_cursors"), h.seqs[6]) << "past both events";
  h.Tick();
  EXPECT_EQ(h.journal->AcceptedSeqs(),
            (Seqs{h.seqs[0], h.seqs[1], h.seqs[2], h.seqs[3], h.seqs[4], h.seqs[6], h.seqs[7]}));
  const auto warnings = h.log.Lines("lone event failed");
  ASSERT_EQ(warnings.size(), 5u);
  for (int i = 0; i < 5; ++i) {
    EXPECT_NE(warnings[i].find("\"attempt\":" + std::to_string(i + 1)), std::string::npos)
        << warnings[i];
  }
  EXPECT_EQ(h.log.Lines("\"level\":\"ERROR\",\"msg\":\"outbox: poison event dead-lettered").size(),
            1u);
}

// H4: an outage is not poison. The probe fails too, nothing is dead-lettered, nothing is lost.
TEST(Poison, ASinkThatIsDownForAWhileGetsNoDeadLettersAndEverythingInOrderAfterwards) {
  bool down = true;
  Harness h(20, [&down](auto) { return down ? Status::Retry("connection refused") : Status::OK(); });
  for (int i = 0; i < 6; ++i) h.Tick();  // 20, 10, 5, 3, 2, 1
  for (int i = 0; i < 12; ++i) h.TickWhenDue();
  EXPECT_GE(h.dispatcher->Figures()[0].attempts, 12) << "premise: many lone failures";
  EXPECT_GE(h.log.Lines("the sink is down").size(), 7u) << "premise: the probe ran and failed";
  EXPECT_EQ(h.DeadLetters(), 0);
  EXPECT_EQ(h.journal->AcceptedCount(), 0u);
  down = false;
  for (int i = 0; i < 8 && h.journal->AcceptedCount() < 20; ++i) h.TickWhenDue();
  EXPECT_EQ(h.journal->AcceptedSeqs(), h.seqs) << "all twenty, once each, in order";
  EXPECT_EQ(h.DeadLetters(), 0);
}

// G1: the waits between lone attempts, measured on the injected clock, to the millisecond.
TEST(Poison, ALoneFailureBacksOffOneTwoFourSecondsUpToFiveMinutes) {
  Harness h(1, [](auto) { return Status::Retry("down"); });
  h.Tick();
  ASSERT_EQ(h.CallCount(), 1u);
  std::vector<int64_t> waits;
  for (int i = 0; i < 11; ++i) {
    const double wait = h.dispatcher->Figures()[0].retry_in_seconds;
    waits.push_back(std::llround(wait));
    h.clock.Advance(std::chrono::duration_cast<Duration>(std::chrono::duration<double>(wait)) -
                    std::chrono::milliseconds(1));
    const size_t before = h.CallCount();
    h.Tick();
    EXPECT_EQ(h.CallCount(), before) << "no retry a millisecond early (wait " << wait << " s)";
    h.clock.Advance(std::chrono::milliseconds(2));
    h.Tick();
    EXPECT_EQ(h.CallCount(), before + 1) << "the retry comes when the wait is over";
  }
  EXPECT_EQ(waits, (std::vector<int64_t>{1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300}));
  EXPECT_EQ(h.DeadLetters(), 0) << "no neighbour: it keeps retrying";
}

// H5: the failing event is the last one; once a neighbour exists, the next probe decides.
TEST(Poison, APoisonEventWithNoNeighbourKeepsRetryingUntilOneArrives) {
  Harness h(6, [](auto events) { return FailIfHolds(events, "evt_5"); });
  for (int i = 0; i < 20 && h.dispatcher->Figures()[0].attempts < 7; ++i) h.TickWhenDue();
  EXPECT_EQ(h.dispatcher->Figures()[0].attempts, 7);
  EXPECT_EQ(h.DeadLetters(), 0) << "without a neighbour nothing can be decided";
  h.db.InsertEvents(1);
  h.TickWhenDue();
  EXPECT_EQ(h.db.Count("SELECT attempts FROM outbox_dead_letters"), 8);
  EXPECT_EQ(h.journal->AcceptedCount(), 6u) << "e0–e4 and the new neighbour";
}

// A sink that knows an event can never be taken says Reject: no five retries, no probe.
TEST(Poison, AnEventTheSinkRejectsPermanentlyIsDeadLetteredAtOnce) {
  Harness h(5, [](auto events) {
    for (const auto& e : events) {
      if (e.id == "evt_2") return Status::Reject("no time: the lake cannot date it");
    }
    return Status::OK();
  });
  for (int i = 0; i < 8; ++i) h.Tick();
  EXPECT_EQ(h.db.Count("SELECT attempts FROM outbox_dead_letters"), 1);
  EXPECT_EQ(h.journal->AcceptedSeqs(), (Seqs{h.seqs[0], h.seqs[1], h.seqs[3], h.seqs[4]}));
  EXPECT_EQ(h.log.Lines("lone event failed").size(), 0u) << "no back-off for a permanent failure";
}

// H6: dead letters and back-off are per sink; the healthy sink is not delayed at all.
TEST(Poison, AFailingSinkNeitherDelaysNorDeadLettersForAnotherSink) {
  OutboxDb db;
  db.Migrate();
  db.InsertEvents(40);
  ManualClock clock;
  CapturedLog log;
  auto bad = std::make_shared<Journal>();
  auto good = std::make_shared<Journal>();
  std::vector<EventSinkEntry> sinks;
  sinks.push_back({std::make_unique<ScriptedRowStore>(
                       "bad", bad, [](auto events) { return FailIfHolds(events, "evt_3"); }),
                   0});
  sinks.push_back({std::make_unique<ScriptedRowStore>("good", good), 0});
  auto d = Dispatcher::Make(TestOptions(db.conninfo(), clock, log.logger()), std::move(sinks), {});
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  ASSERT_TRUE((*d)->Tick().ok());
  EXPECT_EQ(good->AcceptedCount(), 40u) << "all of it in the first pass";
  EXPECT_EQ(bad->AcceptedCount(), 0u);
  EXPECT_EQ(db.Count("SELECT count(*) FROM outbox_dead_letters"), 0);
  EXPECT_EQ(db.Count("SELECT count(*) FROM outbox_cursors"), 1) << "only the good sink moved";
}

}  // namespace
}  // namespace sinkd::outbox
