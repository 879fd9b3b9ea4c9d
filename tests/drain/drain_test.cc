// The drain against a real nats-server: what is acked, terminated, nak'd and dead-lettered, and when.
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/backoff.h"
#include "drain/drain_rig.h"
#include "table/commit.h"

namespace sinkd {
namespace {

using namespace std::chrono_literals;
using testing::DrainRig;
using testing::MakeEvent;
using testing::ReadStream;
using testing::WaitUntil;

std::vector<garm::ledger::v1::Event> Events(const std::string& prefix, int n) {
  std::vector<garm::ledger::v1::Event> out;
  for (int i = 0; i < n; ++i) out.push_back(MakeEvent(prefix + std::to_string(i)));
  return out;
}

size_t RowsInLake(const std::filesystem::path& lake) {
  auto q = testing::DuckDb("SELECT count(*) FROM read_parquet(" +
                           testing::SqlQuote((lake / "**/*.parquet").string()) +
                           ", hive_partitioning=true)");
  EXPECT_TRUE(q.ok) << q.error;
  return q.ok ? std::stoul(q.rows[0][0]) : 0;
}

// The limit once counted messages, so 1,000 batched messages meant million-row files. With a limit
// of 5 rows, one message per fetch and 4 events per message, the first flush holds 8 rows: it
// closed on rows (after the second message), not on messages and not on the interval.
TEST(Drain, TheBatchLimitCountsRowsAndNotMessages) {
  DrainRig rig;
  ASSERT_TRUE(rig.server.ok()) << rig.server.error();
  rig.options.batch_max_rows = 5;
  rig.options.fetch_max = 1;
  rig.options.batch_interval = 1h;
  for (int m = 0; m < 3; ++m) testing::PublishLedger(*rig.connection, Events("m" + std::to_string(m) + "-", 4));
  ASSERT_TRUE(rig.Start());
  ASSERT_TRUE(WaitUntil([&] { return rig.store->flushes() > 0; }, 10s))
      << "no flush: the row limit never closed the batch";
  rig.Stop();
  EXPECT_EQ(rig.store->flushed_rows()[0], 8u) << "4 would mean rows per message; 12 all messages";
  EXPECT_EQ(rig.store->ranges()[0], std::make_pair(uint64_t{1}, uint64_t{2}));
}

// A quiet stream must not hold records forever: a partial batch flushes when the interval since
// its first message has passed, and only then is it acked.
TEST(Drain, APartialBatchIsFlushedWhenTheIntervalExpires) {
  DrainRig rig;
  ASSERT_TRUE(rig.server.ok()) << rig.server.error();
  testing::PublishLedger(*rig.connection, Events("a", 2));
  ASSERT_TRUE(rig.Start());
  ASSERT_TRUE(WaitUntil([&] { return rig.Drained(); }, 10s)) << "never acked after the interval";
  EXPECT_EQ(rig.store->flushes(), 1u);
  EXPECT_EQ(RowsInLake(rig.lake_dir()), 2u);
}

// A flush that fails must leave its messages on the stream: nak'd, redelivered, written later.
TEST(Drain, AFailedFlushIsRedeliveredRatherThanAcked) {
  DrainRig rig;
  ASSERT_TRUE(rig.server.ok()) << rig.server.error();
  rig.store->failures = 1;
  testing::PublishLedger(*rig.connection, Events("f", 3));
  ASSERT_TRUE(rig.Start());
  ASSERT_TRUE(WaitUntil([&] { return rig.Drained(); }, 15s)) << "the batch never landed";
  EXPECT_GE(rig.store->attempts.load(), 2) << "premise: the first flush must have failed";
  EXPECT_GE(rig.metrics.naks.load(), 1u) << "a failed flush is nak'd";
  EXPECT_GE(rig.metrics.redeliveries.load(), 1u) << "the nak'd message came back";
  EXPECT_EQ(RowsInLake(rig.lake_dir()), 3u) << "every id lands, once, after the retry";
}

// A flush slower than twice the ack wait (3 s) must not get healthy messages redelivered: every
// message the drain holds (fetched ahead while a flush runs, buffered, settling) is kept alive from
// its delivery until it is settled. Two batches of two messages, each flush 7 s: the second batch
// is fetched while the first is written and waits 7 s untaken. JetStream's num_redelivered counts
// only messages not yet acked, so it is sampled throughout, not read once at the end.
TEST(Drain, ASinkSlowerThanTwiceTheAckWaitGetsEveryMessageDeliveredOnce) {
  DrainRig rig;
  ASSERT_TRUE(rig.server.ok()) << rig.server.error();
  rig.options.batch_max_rows = 2;
  rig.options.fetch_max = 2;
  rig.options.batch_interval = 1h;
  rig.store->delay = 7s;
  for (int m = 0; m < 4; ++m) testing::PublishLedger(*rig.connection, Events("k" + std::to_string(m) + "-", 1));
  ASSERT_TRUE(rig.Start());
  int64_t most_redelivered = 0;
  ASSERT_TRUE(WaitUntil(
      [&] {
        most_redelivered = std::max(most_redelivered, rig.State().redelivered);
        return rig.Drained();
      },
      60s))
      << "not drained";
  rig.Stop();
  EXPECT_EQ(most_redelivered, 0) << "a held message outlived its ack wait";
  EXPECT_EQ(rig.metrics.redeliveries.load(), 0u) << "the drain was handed a message twice";
  EXPECT_EQ(rig.store->flushed_rows(), (std::vector<size_t>{2, 2})) << "each row written once";
  EXPECT_EQ(RowsInLake(rig.lake_dir()), 4u);
}

// A bug is not a redelivery: an Internal status from the lake step still naks (nothing is lost,
// the batch lands on the next try), but it is logged as a bug to report, with its stage and the
// batch's sequence range, and not as the ordinary "flush failed" line.
TEST(Drain, AnInternalErrorIsLoggedAsABugWithItsBatchAndStage) {
  DrainRig rig;
  ASSERT_TRUE(rig.server.ok()) << rig.server.error();
  rig.store->failures = 1;
  rig.store->FailWith(Status::Internal("parquet: column amount has the wrong array type"));
  testing::PublishLedger(*rig.connection, Events("b", 3));
  ASSERT_TRUE(rig.Start());
  ASSERT_TRUE(WaitUntil([&] { return rig.Drained(); }, 15s)) << "the batch never landed";
  rig.Stop();
  EXPECT_EQ(RowsInLake(rig.lake_dir()), 3u) << "a bug naks like any failure: nothing lost";
  std::vector<nlohmann::json> bugs;
  std::vector<nlohmann::json> redeliveries;
  std::istringstream lines(rig.LogText());
  for (std::string line; std::getline(lines, line);) {
    auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object()) continue;
    const std::string msg = j.value("msg", "");
    if (msg.starts_with("bug: ")) bugs.push_back(j);
    if (msg.starts_with("flush failed")) redeliveries.push_back(j);
  }
  ASSERT_EQ(bugs.size(), 1u) << rig.LogText();
  EXPECT_TRUE(redeliveries.empty()) << "a bug is not logged as an ordinary redelivery";
  const nlohmann::json& bug = bugs[0];
  EXPECT_EQ(bug["level"], "ERROR");
  EXPECT_EQ(bug["stage"], "flush");
  EXPECT_EQ(bug["first_seq"], 1);
  EXPECT_EQ(bug["last_seq"], 1);
  EXPECT_EQ(bug["messages"], 1);
  EXPECT_EQ(bug["rows"], 3);
  EXPECT_NE(bug.value("error", "").find("wrong array type"), std::string::npos) << bug.dump();
  EXPECT_NE(bug.value("report", "").find("bug in sinkd"), std::string::npos) << bug.dump();
}

// The ordinary failure stays ordinary: a Redeliver from the lake step is the "flush failed" line,
// with the same context, and no bug report.
TEST(Drain, ARedeliverIsLoggedAsARedeliveryNotAsABug) {
  DrainRig rig;
  ASSERT_TRUE(rig.server.ok()) << rig.server.error();
  rig.store->failures = 1;
  testing::PublishLedger(*rig.connection, Events("c", 2));
  ASSERT_TRUE(rig.Start());
  ASSERT_TRUE(WaitUntil([&] { return rig.Drained(); }, 15s)) << "the batch never landed";
  rig.Stop();
  const std::string log = rig.LogText();
  EXPECT_NE(log.find("\"msg\":\"flush failed; nak for redelivery\""), std::string::npos) << log;
  EXPECT_NE(log.find("\"stage\":\"flush\""), std::string::npos) << log;
  EXPECT_EQ(log.find("bug"), std::string::npos) << log;
}

// Garbage goes to GARM_SINK_DEAD with its original bytes and the headers naming where it came
// from, and only then is it terminated (the consumer ends with nothing pending).
TEST(Drain, AnUnreadableMessageIsDeadLetteredBeforeItIsTerminated) {
  DrainRig rig;
  ASSERT_TRUE(rig.server.ok()) << rig.server.error();
  const std::string garbage = "\x0f\xff not protobuf";
  const uint64_t seq = testing::Publish(*rig.connection, "garm.v1.ledger.acme.svc", garbage);
  ASSERT_TRUE(rig.Start());
  ASSERT_TRUE(WaitUntil([&] { return rig.Drained(); }, 10s));
  rig.Stop();
  auto dead = ReadStream(*rig.connection, jetstream::kDeadStream);
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].subject, "garm.v1.sink.dead.ledger");
  EXPECT_EQ(dead[0].data, garbage) << "the dead letter must carry the original bytes";
  EXPECT_EQ(dead[0].headers["Garm-Dead-Reason"], "unmarshal");
  EXPECT_FALSE(dead[0].headers["Garm-Dead-Error"].empty());
  EXPECT_EQ(dead[0].headers["Garm-Dead-Stream"], "GARM_LEDGER");
  EXPECT_EQ(dead[0].headers["Garm-Dead-Subject"], "garm.v1.ledger.acme.svc");
  EXPECT_EQ(dead[0].headers["Garm-Dead-Sequence"], std::to_string(seq));
  EXPECT_EQ(dead[0].headers["Garm-Dead-Event-Index"], "-1");
  EXPECT_EQ(dead[0].headers["Nats-Msg-Id"], "GARM_LEDGER-" + std::to_string(seq) + "--1");
  EXPECT_EQ(rig.metrics.dead_unmarshal.load(), 1u);
  EXPECT_TRUE(rig.store->flushes() == 0) << "no rows, so no Part";
}

// The blast radius is one event: 2 rows, one dead letter holding the bad event's own bytes (a
// readable Event) at index 1, and the message is acked.
TEST(Drain, OneBadEventDoesNotDiscardTheGoodOnesBesideIt) {
  DrainRig rig;
  ASSERT_TRUE(rig.server.ok()) << rig.server.error();
  auto events = Events("g", 3);
  events[1].clear_event_id();
  testing::PublishLedger(*rig.connection, events);
  ASSERT_TRUE(rig.Start());
  ASSERT_TRUE(WaitUntil([&] { return rig.Drained(); }, 10s));
  rig.Stop();
  EXPECT_EQ(RowsInLake(rig.lake_dir()), 2u);
  auto dead = ReadStream(*rig.connection, jetstream::kDeadStream);
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].headers["Garm-Dead-Event-Index"], "1");
  EXPECT_EQ(dead[0].headers["Garm-Dead-Reason"], "missing_event_id");
  garm::ledger::v1::Event back;
  ASSERT_TRUE(back.ParseFromString(dead[0].data)) << "the payload is the bad event itself";
  EXPECT_EQ(back.app(), "svc");
  EXPECT_EQ(rig.State().ack_floor_stream, 1u) << "acked, not terminated or left pending";
}

// An unreadable record may be terminated only once it is stored: with the dead-letter stream
// failing, the message is never consumed and nothing is written anywhere.
TEST(Drain, NothingIsTerminatedWhenTheDeadLetterWriteFails) {
  DrainRig rig;
  ASSERT_TRUE(rig.server.ok()) << rig.server.error();
  testing::Publish(*rig.connection, "garm.v1.ledger.acme.svc", std::string("\x0f\xfe", 2));
  testing::PublishLedger(*rig.connection, Events("h", 2));
  rig.dead->fail = true;
  ASSERT_TRUE(rig.Start());
  ASSERT_TRUE(WaitUntil([&] { return rig.dead->attempts.load() >= 2; }, 10s))
      << "premise: the dead-letter write must have been tried, and retried";
  auto state = rig.State();
  EXPECT_EQ(state.ack_floor_stream, 0u) << "nothing may be acked or terminated";
  EXPECT_TRUE(ReadStream(*rig.connection, jetstream::kDeadStream).empty());
  EXPECT_TRUE(rig.store->flushes() == 0) << "the good rows of that batch wait too";
  rig.dead->fail = false;
  ASSERT_TRUE(WaitUntil([&] { return rig.Drained(); }, 15s)) << "it lands once the DLQ is back";
  EXPECT_EQ(ReadStream(*rig.connection, jetstream::kDeadStream).size(), 1u);
}

// Retried batches must not multiply dead letters: the Nats-Msg-Id de-duplicates them.
TEST(Drain, ADeadLetterIsWrittenOnceHoweverOftenItIsRetried) {
  DrainRig rig;
  ASSERT_TRUE(rig.server.ok()) << rig.server.error();
  auto events = Events("r", 2);
  events[0].clear_time();
  testing::PublishLedger(*rig.connection, events);
  rig.store->failures = 3;
  ASSERT_TRUE(rig.Start());
  ASSERT_TRUE(WaitUntil([&] { return rig.Drained(); }, 20s));
  EXPECT_GE(rig.store->attempts.load(), 4) << "premise: the batch was retried three times";
  auto dead = ReadStream(*rig.connection, jetstream::kDeadStream);
  EXPECT_EQ(dead.size(), 1u) << "one record, one dead letter, however many attempts";
}

// SIGTERM must not lose the batch in memory: with an hour's interval nothing flushes before the
// stop, and everything is flushed and acked by it.
TEST(Drain, ShutdownFlushesWhatIsBuffered) {
  DrainRig rig;
  ASSERT_TRUE(rig.server.ok()) << rig.server.error();
  rig.options.batch_interval = 1h;
  testing::PublishLedger(*rig.connection, Events("s", 3));
  ASSERT_TRUE(rig.Start());
  ASSERT_TRUE(WaitUntil([&] { return rig.metrics.buffered_rows.load() == 3; }, 10s));
  EXPECT_TRUE(rig.store->flushes() == 0) << "premise: nothing flushed before the stop";
  rig.Stop();
  EXPECT_TRUE(rig.run_status.ok()) << rig.run_status.ToString();
  EXPECT_EQ(RowsInLake(rig.lake_dir()), 3u);
  EXPECT_TRUE(rig.Drained()) << "the shutdown flush acks what it wrote";
}

// An empty Batch holds nothing: it is acked, not redelivered forever and not dead-lettered.
TEST(Drain, AnEmptyBatchIsAckedRatherThanRedeliveredForever) {
  DrainRig rig;
  ASSERT_TRUE(rig.server.ok()) << rig.server.error();
  testing::PublishLedger(*rig.connection, {});
  ASSERT_TRUE(rig.Start());
  ASSERT_TRUE(WaitUntil([&] { return rig.Drained(); }, 10s));
  EXPECT_EQ(rig.State().ack_floor_stream, 1u);
  EXPECT_TRUE(ReadStream(*rig.connection, jetstream::kDeadStream).empty());
  EXPECT_TRUE(rig.store->flushes() == 0);
}

// GARM_AUDIT carries one Event per message, and a bad audit Event is one whole-message reject.
TEST(Drain, TheAuditStreamDrainsSingleEvents) {
  DrainRig rig(/*audit=*/true);
  ASSERT_TRUE(rig.server.ok()) << rig.server.error();
  testing::PublishAudit(*rig.connection, MakeEvent("a1"));
  testing::PublishAudit(*rig.connection, MakeEvent("a2"));
  auto bad = MakeEvent("a3");
  bad.clear_time();
  testing::PublishAudit(*rig.connection, bad);
  ASSERT_TRUE(rig.Start());
  ASSERT_TRUE(WaitUntil([&] { return rig.Drained(); }, 10s));
  rig.Stop();
  EXPECT_EQ(RowsInLake(rig.lake_dir()), 2u);
  auto dead = ReadStream(*rig.connection, jetstream::kDeadStream);
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].subject, "garm.v1.sink.dead.audit");
  EXPECT_EQ(dead[0].headers["Garm-Dead-Event-Index"], "-1");
  EXPECT_EQ(dead[0].data, bad.SerializeAsString()) << "the whole original message";
  EXPECT_FALSE(std::filesystem::exists(rig.lake_dir() / "ledger"));
  EXPECT_TRUE(std::filesystem::exists(rig.lake_dir() / "audit"));
}

// The log lines of settled batches, in the order they were written: "flushed batch" (written
// after the batch's acks) and "flush failed" (after its naks), each with its first sequence.
std::vector<std::pair<std::string, uint64_t>> SettleLines(const std::string& log) {
  std::vector<std::pair<std::string, uint64_t>> out;
  std::istringstream lines(log);
  for (std::string line; std::getline(lines, line);) {
    auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object()) continue;
    const std::string msg = j.value("msg", "");
    if (msg == "flushed batch") out.push_back({"acked", j.value("first_seq", uint64_t{0})});
    if (msg.starts_with("flush failed")) {
      out.push_back({"nak'd", j.value("first_seq", uint64_t{0})});
    }
  }
  return out;
}

// The pipeline: while batch 1 settles (a 6 s flush), batch 2 is fetched and decoded, and no more:
// the drain holds one batch filling and one settling (batch 3 waits in the Prefetcher). The acks
// come per batch, in the order the batches became durable.
TEST(Drain, TheNextBatchIsDecodedWhileThePreviousOneSettlesAndAcksKeepBatchOrder) {
  DrainRig rig;
  ASSERT_TRUE(rig.server.ok()) << rig.server.error();
  rig.options.batch_max_rows = 2;
  rig.options.fetch_max = 2;
  rig.options.batch_interval = 1h;
  rig.store->delay = 6s;
  for (int m = 0; m < 6; ++m) {
    testing::PublishLedger(*rig.connection, Events("p" + std::to_string(m) + "-", 1));
  }
  ASSERT_TRUE(rig.Start());
  ASSERT_TRUE(WaitUntil([&] { return rig.store->in_flight.load() == 1; }, 10s))
      << "premise: the first batch never started to settle";
  EXPECT_TRUE(WaitUntil([&] { return rig.metrics.messages.load() >= 4; }, 5s))
      << "batch 2 was not decoded while batch 1 settled (" << rig.metrics.messages.load()
      << " messages decoded)";
  // Sampled for a second, still inside the first flush.
  uint64_t most = 0;
  (void)WaitUntil([&] { most = std::max(most, rig.metrics.messages.load()); return false; }, 1s);
  EXPECT_EQ(rig.store->flushes(), 0u) << "premise: batch 1 was still settling meanwhile";
  EXPECT_EQ(most, 4u) << "one batch filling while one settles: 4 messages decoded, no more";
  ASSERT_TRUE(WaitUntil([&] { return rig.Drained(); }, 60s)) << "not drained";
  rig.Stop();
  using Ranges = std::vector<std::pair<uint64_t, uint64_t>>;
  EXPECT_EQ(rig.store->ranges(), (Ranges{{1, 2}, {3, 4}, {5, 6}})) << "durable in batch order";
  using Lines = std::vector<std::pair<std::string, uint64_t>>;
  EXPECT_EQ(SettleLines(rig.LogText()), (Lines{{"acked", 1}, {"acked", 3}, {"acked", 5}}))
      << rig.LogText();
  EXPECT_EQ(RowsInLake(rig.lake_dir()), 6u);
}

// The rule when batch N fails and N+1 succeeds: N is nak'd whole before N+1's flush and acks
// begin, none of N is acked (its rows are not durable), and N+1, durable on its own, is acked.
// N comes back after the nak delay and lands then: every row once.
TEST(Drain, AFailedBatchIsNakedWholeBeforeTheNextBatchIsAcked) {
  DrainRig rig;
  ASSERT_TRUE(rig.server.ok()) << rig.server.error();
  rig.options.batch_max_rows = 2;
  rig.options.fetch_max = 2;
  rig.options.batch_interval = 1h;
  rig.store->failures = 1;
  rig.store->delay = 1s;
  for (int m = 0; m < 4; ++m) {
    testing::PublishLedger(*rig.connection, Events("n" + std::to_string(m) + "-", 1));
  }
  ASSERT_TRUE(rig.Start());
  ASSERT_TRUE(WaitUntil([&] { return rig.store->flushes() >= 2; }, 30s)) << "not landed";
  ASSERT_TRUE(WaitUntil([&] { return rig.Drained(); }, 30s)) << "not drained";
  rig.Stop();
  const auto settled = SettleLines(rig.LogText());
  ASSERT_GE(settled.size(), 3u) << rig.LogText();
  EXPECT_EQ(settled[0], (std::pair<std::string, uint64_t>{"nak'd", 1})) << rig.LogText();
  EXPECT_EQ(settled[1], (std::pair<std::string, uint64_t>{"acked", 3})) << rig.LogText();
  EXPECT_EQ(settled[2].first, "acked") << "the nak'd batch lands on its redelivery";
  EXPECT_GE(rig.metrics.naks.load(), 2u) << "both messages of the failed batch are nak'd";
  EXPECT_EQ(RowsInLake(rig.lake_dir()), 4u) << "every row once: nothing of the failed batch landed";
}

// A drain must refuse to start when it could not store a dead letter.
TEST(Drain, ADrainWithNoDeadLetterStreamRefusesToStart) {
  testing::NatsServer server;
  ASSERT_TRUE(server.ok()) << server.error();
  auto c = testing::Connect(server);
  auto specs = jetstream::StreamSpecs({});
  ASSERT_TRUE(jetstream::CreateStream(*c, specs[0]).ok());  // ledger only
  jetstream::DeadLetterPublisher publisher(*c, "ledger");
  Status s = publisher.CheckReachable();
  EXPECT_TRUE(s.IsRefuse()) << s.ToString();
  EXPECT_NE(s.message().find("GARM_SINK_DEAD"), std::string::npos) << s.message();
}

// A drain never creates streams: a missing one is a refusal that says what to run.
TEST(Drain, AMissingStreamIsARefusalThatSaysToProvision) {
  testing::NatsServer server;
  ASSERT_TRUE(server.ok()) << server.error();
  auto c = testing::Connect(server);
  jetstream::ConsumerConfig cc{"GARM_LEDGER", "sink-ledger", "garm.v1.ledger.>"};
  auto bound = jetstream::PullConsumer::Bind(*c, cc);
  ASSERT_FALSE(bound.ok());
  EXPECT_TRUE(bound.status().IsRefuse());
  EXPECT_NE(bound.status().message().find("sinkd provision"), std::string::npos);
  EXPECT_FALSE(jetstream::GetStreamState(*c, "GARM_LEDGER").ok()) << "and it created nothing";
}

// The durable is sized so a whole batch fits in flight: the reference's 4 × fetch = 2048 messages
// capped an audit batch at 2048 rows.
TEST(Drain, MaxAckPendingFitsAFullBatchOfSingleEventMessages) {
  drain::DrainOptions o;
  EXPECT_GE(o.EffectiveMaxAckPending(), static_cast<int64_t>(o.batch_max_rows + o.fetch_max));
  EXPECT_GT(o.EffectiveAckWait(), o.batch_interval + o.flush_timeout);
  EXPECT_EQ(o.EffectiveAckWait(), std::chrono::minutes(11));
}

// The drain's schedules, as DrainOptions gives them: a nak'd batch comes back after 1 s, then
// 2 s, … and at least every 2 minutes; a failing broker is asked again after 100 ms, … 5 s.
TEST(Backoff, TheDrainNaksAfterOneSecondDoublingToTwoMinutesAndRefetchesAfter100msDoublingTo5s) {
  const drain::DrainOptions o;
  BackoffCounter nak(o.nak_backoff);
  for (auto want : {1s, 2s, 4s, 8s, 16s, 32s, 64s, 120s, 120s}) EXPECT_EQ(nak.Next(), want);
  nak.Reset();
  EXPECT_EQ(nak.Next(), 1s) << "a success starts the series again";
  BackoffCounter fetch(o.fetch_backoff);
  for (auto want : {100ms, 200ms, 400ms, 800ms, 1600ms, 3200ms, 5000ms, 5000ms}) {
    EXPECT_EQ(fetch.Next(), want);
  }
  EXPECT_TRUE(o.Validate().ok());
  drain::DrainOptions bad;
  bad.nak_backoff.cap = 10ms;
  EXPECT_TRUE(bad.Validate().IsRefuse());
}

}  // namespace
}  // namespace sinkd

namespace sinkd {
namespace {

// A flush stamp names every message the flush settled: the one dead-lettered whole and the empty
// Batch gave no row but are acknowledged all the same, so `sinkd lake verify` must not see a gap.
TEST(Drain, EveryPartNamesEveryMessageItsFlushSettledThoseWithoutRowsIncluded) {
  DrainRig rig;
  ASSERT_TRUE(rig.server.ok()) << rig.server.error();
  ASSERT_EQ(testing::PublishLedger(*rig.connection, {MakeEvent("s1")}), 1u);
  ASSERT_EQ(testing::Publish(*rig.connection, "garm.v1.ledger.acme.svc", "\xff\xff not a Batch"), 2u);
  ASSERT_EQ(testing::PublishLedger(*rig.connection, {}), 3u);
  ASSERT_EQ(testing::PublishLedger(*rig.connection, {MakeEvent("s4", "web")}), 4u);
  ASSERT_TRUE(rig.Start());
  ASSERT_TRUE(WaitUntil([&] { return rig.Drained(); }, 10s));
  rig.Stop();
  ASSERT_EQ(ReadStream(*rig.connection, jetstream::kDeadStream).size(), 1u)
      << "the premise: message 2 is dead-lettered";
  const auto values =
      testing::FooterValues((rig.lake_dir() / "ledger/**/*.parquet").string(), "sinkd.stamps");
  ASSERT_EQ(values.size(), 2u) << "svc and web, one flush";
  for (const auto& [file, value] : values) {
    const auto stamps = nlohmann::json::parse(value);
    ASSERT_EQ(stamps.size(), 1u);
    EXPECT_EQ(stamps[0]["instance"], "box-77");
    EXPECT_EQ(stamps[0]["source"], jetstream::kLedgerStream);
    EXPECT_EQ(stamps[0]["scope"], "stream");
    EXPECT_EQ(stamps[0]["first"], 1);
    EXPECT_EQ(stamps[0]["last"], 4);
    EXPECT_EQ(stamps[0]["acked"], nlohmann::json::parse("[[1,4]]"));
    EXPECT_EQ(stamps[0]["parts"], 2);
    EXPECT_EQ(stamps[0]["rows"], 2);
    EXPECT_EQ(std::filesystem::path(file),
              rig.lake_dir() / stamps[0]["key"].get<std::string>());
  }
}

// A table (table/commit.h) as the test scripts it: it holds the sequences `held`, fails its
// first `failures` commits, and records what it was asked to commit. sinkd's own interface, as an
// `iceberg` commit implements it; the Settler's thread calls it, the test reads it after Stop.
class ScriptedTable final : public table::Commit {
 public:
  std::string_view format() const override { return "scripted"; }
  Result<std::vector<table::SequenceRange>> Committed(std::string_view,
                                                      const table::Provenance& p) override {
    {
      std::lock_guard<std::mutex> lock(mu);
      asked_created = p.source_created;
    }
    std::vector<table::SequenceRange> out;
    std::vector<table::SequenceRange> asked = p.acknowledged;
    if (asked.empty()) asked.push_back({p.first_sequence, p.last_sequence});
    for (const table::SequenceRange& a : asked) {
      for (const table::SequenceRange& h : held) {
        const uint64_t first = std::max(a.first, h.first), last = std::min(a.last, h.last);
        if (first <= last) out.push_back({first, last});
      }
    }
    return out;
  }
  Status Apply(const table::CommitRequest& request) override {
    std::lock_guard<std::mutex> lock(mu);
    ++applied;
    if (failures > 0) {
      --failures;
      return Status::Retry("scripted commit failure");
    }
    committed.push_back(request.positions.acknowledged);
    identities.push_back(request.positions.source + "@" + request.positions.source_created);
    asked_created = request.positions.source_created;
    return Status::OK();
  }
  std::vector<table::SequenceRange> held;
  int failures = 0;
  std::mutex mu;
  int applied = 0;
  std::vector<std::vector<table::SequenceRange>> committed;
  std::vector<std::string> identities;  // source@source_created of each commit
  std::string asked_created;
};

// Puts `commit` behind the rig's lake row store.
void CommitTo(DrainRig& rig, table::Commit& commit) {
  auto real = std::make_unique<drain::LakeRowStore>(*rig.destination, rig.lake, commit);
  rig.store = std::make_unique<testing::ScriptedRowStore>(*real);
  rig.real_store = std::move(real);
}

// A redelivered message whose rows the table holds already (its commit landed, its ack was lost)
// is acked and not written again, while the messages batched with it are: exactly once in the
// table. The flush's positions leave it out, so the table is never asked to hold it twice.
TEST(Drain, AMessageTheTableHoldsAlreadyIsAckedAndNotWrittenAgain) {
  DrainRig rig;
  ASSERT_TRUE(rig.server.ok()) << rig.server.error();
  ScriptedTable scripted;
  scripted.held = {{2, 2}};
  CommitTo(rig, scripted);
  for (int m = 0; m < 3; ++m) {
    testing::PublishLedger(*rig.connection, Events("m" + std::to_string(m) + "-", 2));
  }
  ASSERT_TRUE(rig.Start());
  ASSERT_TRUE(WaitUntil([&] { return rig.Drained(); }, 10s)) << "not every message was acked";
  rig.Stop();
  EXPECT_EQ(rig.metrics.naks.load(), 0u);
  EXPECT_EQ(RowsInLake(rig.lake_dir()), 4u) << "6 means message 2 was written again";
  auto q = testing::DuckDb("SELECT count(*) FROM read_parquet(" +
                           testing::SqlQuote((rig.lake_dir() / "**/*.parquet").string()) +
                           ") WHERE event_id LIKE 'm1-%'");
  ASSERT_TRUE(q.ok) << q.error;
  EXPECT_EQ(q.rows[0][0], "0");
  std::lock_guard<std::mutex> lock(scripted.mu);
  std::vector<table::SequenceRange> committed;
  for (const auto& ranges : scripted.committed) {
    committed.insert(committed.end(), ranges.begin(), ranges.end());
  }
  EXPECT_EQ(committed, (std::vector<table::SequenceRange>{{1, 1}, {3, 3}}));
  EXPECT_NE(rig.LogText().find("messages already in the table"), std::string::npos);
}

// Nothing is acked before the table has committed the batch: a commit that fails naks it, and the
// redelivery lands it.
TEST(Drain, AFailedCommitNaksTheBatchAndItsRedeliveryLandsIt) {
  DrainRig rig;
  ASSERT_TRUE(rig.server.ok()) << rig.server.error();
  ScriptedTable scripted;
  scripted.failures = 1;
  CommitTo(rig, scripted);
  testing::PublishLedger(*rig.connection, Events("c", 3));
  ASSERT_TRUE(rig.Start());
  ASSERT_TRUE(WaitUntil([&] { return rig.Drained(); }, 15s)) << "the batch never landed";
  rig.Stop();
  EXPECT_GE(rig.metrics.naks.load(), 1u) << "a failed commit is nak'd";
  EXPECT_GE(rig.metrics.redeliveries.load(), 1u);
  std::lock_guard<std::mutex> lock(scripted.mu);
  EXPECT_GE(scripted.applied, 2);
  EXPECT_EQ(RowsInLake(rig.lake_dir()), 3u);
  EXPECT_NE(rig.LogText().find("scripted commit failure"), std::string::npos);
}

// A stream deleted and made again under its name numbers its messages from 1 again, so a table
// knows a stream by its name and creation time: the drain asks and commits under both, the
// creation time as the server holds it.
TEST(Drain, TheTableIsAskedAndCommitsUnderTheStreamsNameAndCreationTime) {
  DrainRig rig;
  ASSERT_TRUE(rig.server.ok()) << rig.server.error();
  ScriptedTable scripted;
  CommitTo(rig, scripted);
  testing::PublishLedger(*rig.connection, Events("i", 2));
  ASSERT_TRUE(rig.Start());
  ASSERT_TRUE(WaitUntil([&] { return rig.Drained(); }, 10s));
  rig.Stop();
  auto stream = jetstream::GetStreamState(*rig.connection, jetstream::kLedgerStream);
  ASSERT_TRUE(stream.ok()) << stream.status().ToString();
  ASSERT_EQ(stream->created.size(), 30u) << stream->created;  // 2026-12-05T07:40:01.123456789Z
  EXPECT_EQ(stream->created[10], 'T');
  EXPECT_EQ(stream->created.back(), 'Z');
  std::lock_guard<std::mutex> lock(scripted.mu);
  EXPECT_EQ(scripted.asked_created, stream->created);
  ASSERT_EQ(scripted.identities.size(), 1u);
  EXPECT_EQ(scripted.identities[0], std::string(jetstream::kLedgerStream) + "@" + stream->created);
}

}  // namespace
}  // namespace sinkd
