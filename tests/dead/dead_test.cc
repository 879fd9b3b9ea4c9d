// Dead letters read back from a real nats-server's GARM_SINK_DEAD, written by the drain's own
// publisher (jetstream/dead_letter_publisher.h): what a list selects, what a replay publishes and
// where, that a replay run twice stores each record once, and what the decode attempt says.
#include <gtest/gtest.h>

#include <thread>

#include "contract/wire_decoder.h"
#include "dead/dead_stream.h"
#include "jetstream/dead_letter_publisher.h"
#include "jetstream/jetstream_test_support.h"

namespace sinkd {
namespace {

using namespace std::chrono_literals;
using testing::MakeEvent;

struct DeadStream : ::testing::Test {
  void SetUp() override {
    ASSERT_TRUE(server.ok()) << server.error();
    connection = testing::Connect(server);
    ASSERT_NE(connection, nullptr);
    testing::ProvisionAll(*connection);
  }

  // Stores one dead letter as a drain of `origin` would; returns its GARM_SINK_DEAD sequence.
  uint64_t Store(const std::string& origin, contract::RejectReason reason, int index,
                 const std::string& payload, const std::string& subject, uint64_t sequence) {
    jetstream::DeadLetterPublisher publisher(*connection, origin);
    contract::Reject reject = contract::MakeReject(reason, "the error text", index, payload);
    jetstream::DeadLetterRecord record;
    record.reject = &reject;
    record.stream = origin == "ledger" ? jetstream::kLedgerStream : jetstream::kAuditStream;
    record.subject = subject;
    record.sequence = sequence;
    auto stored = publisher.Publish(record);
    EXPECT_TRUE(stored.ok() && *stored) << stored.status().ToString();
    auto state = jetstream::GetStreamState(*connection, jetstream::kDeadStream);
    return state.ok() ? state->last_sequence : 0;
  }

  std::vector<dead::DeadLetter> List(const dead::Selection& selection) {
    std::vector<dead::DeadLetter> out;
    Status s = dead::ForEachDeadLetter(*connection, selection, [&](const dead::DeadLetter& d) {
      out.push_back(d);
      return Status::OK();
    });
    EXPECT_TRUE(s.ok()) << s.ToString();
    return out;
  }

  static std::vector<uint64_t> Sequences(const std::vector<dead::DeadLetter>& letters) {
    std::vector<uint64_t> out;
    for (const auto& d : letters) out.push_back(d.dead_sequence);
    return out;
  }

  testing::NatsServer server;
  std::unique_ptr<jetstream::Connection> connection;
};

std::string NoTime(const std::string& id) {
  auto e = MakeEvent(id);
  e.clear_time();
  return e.SerializeAsString();
}

TEST_F(DeadStream, ADeadLetterReadsBackWithTheHeadersTheDrainWrote) {
  const std::string event = NoTime("e-1");
  const uint64_t seq = Store("ledger", contract::RejectReason::kMissingTime, 3, event,
                             "garm.v1.ledger.acme.svc", 42);
  auto d = dead::GetDeadLetter(*connection, seq);
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_EQ(d->dead_sequence, seq);
  EXPECT_EQ(d->dead_subject, "garm.v1.sink.dead.ledger");
  EXPECT_EQ(d->reason, "missing_time");
  EXPECT_EQ(d->error, "the error text");
  EXPECT_EQ(d->stream, "GARM_LEDGER");
  EXPECT_EQ(d->subject, "garm.v1.ledger.acme.svc");
  EXPECT_EQ(d->sequence, 42u);
  EXPECT_EQ(d->event_index, 3);
  EXPECT_EQ(d->payload, event);
  EXPECT_GT(d->time_ns, 0);
  const auto listed = List({});
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].payload, event) << "a scan reads what a direct get reads";
  EXPECT_EQ(listed[0].time_ns, d->time_ns);
  EXPECT_TRUE(dead::GetDeadLetter(*connection, seq + 5).status().IsNotFound());
}

TEST_F(DeadStream, FiltersSelectByStreamReasonSubjectAndSequence) {
  const uint64_t a = Store("ledger", contract::RejectReason::kMissingTime, 0, NoTime("a"),
                           "garm.v1.ledger.acme.svc", 1);
  const uint64_t b = Store("ledger", contract::RejectReason::kUnmarshal, -1, "\xff\xff",
                           "garm.v1.ledger.initech.billing", 2);
  const uint64_t c = Store("audit", contract::RejectReason::kMissingTime, -1, NoTime("c"),
                           "garm.v1.audit.acme.svc", 1);
  EXPECT_EQ(Sequences(List({})), (std::vector<uint64_t>{a, b, c}));
  dead::Selection by_stream;
  by_stream.stream = "GARM_AUDIT";
  EXPECT_EQ(Sequences(List(by_stream)), std::vector<uint64_t>{c});
  dead::Selection by_reason;
  by_reason.reason = "missing_time";
  EXPECT_EQ(Sequences(List(by_reason)), (std::vector<uint64_t>{a, c}));
  dead::Selection by_subject;
  by_subject.subject = "garm.v1.*.acme.>";
  EXPECT_EQ(Sequences(List(by_subject)), (std::vector<uint64_t>{a, c}));
  dead::Selection both;
  both.reason = "missing_time";
  both.stream = "GARM_LEDGER";
  EXPECT_EQ(Sequences(List(both)), std::vector<uint64_t>{a});
  dead::Selection given;
  given.sequences = {c, a, c};
  EXPECT_EQ(Sequences(List(given)), (std::vector<uint64_t>{a, c})) << "in order, once each";
  given.reason = "unmarshal";
  EXPECT_TRUE(List(given).empty()) << "sequences and filters must all hold";
}

TEST_F(DeadStream, SinceAndUntilSelectByTheTimeTheDeadStreamStoredIt) {
  const uint64_t early = Store("ledger", contract::RejectReason::kMissingTime, 0, NoTime("a"),
                               "garm.v1.ledger.acme.svc", 1);
  std::this_thread::sleep_for(50ms);
  const uint64_t late = Store("ledger", contract::RejectReason::kMissingTime, 0, NoTime("b"),
                              "garm.v1.ledger.acme.svc", 2);
  auto first = dead::GetDeadLetter(*connection, early);
  auto second = dead::GetDeadLetter(*connection, late);
  ASSERT_TRUE(first.ok() && second.ok());
  ASSERT_LT(first->time_ns, second->time_ns);
  dead::Selection since;
  since.since_ns = second->time_ns;
  EXPECT_EQ(Sequences(List(since)), std::vector<uint64_t>{late});
  dead::Selection until;
  until.until_ns = second->time_ns;
  EXPECT_EQ(Sequences(List(until)), std::vector<uint64_t>{early});
  since.since_ns = second->time_ns + 1;
  EXPECT_TRUE(List(since).empty());
}

TEST_F(DeadStream, OneEventOfABatchIsReplayedAsABatchHoldingThatEventAlone) {
  const std::string event = MakeEvent("e-7").SerializeAsString();
  const uint64_t seq = Store("ledger", contract::RejectReason::kTooManyPartitions, 5, event,
                             "garm.v1.ledger.acme.svc", 9);
  auto d = dead::GetDeadLetter(*connection, seq);
  ASSERT_TRUE(d.ok());
  auto plan = dead::PlanReplay(*d);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_TRUE(plan->wrapped);
  EXPECT_EQ(plan->subject, "garm.v1.ledger.acme.svc");
  EXPECT_EQ(plan->msg_id, "sinkd-replay-GARM_LEDGER-9-5");
  garm::ledger::v1::Batch batch;
  ASSERT_TRUE(batch.ParseFromString(plan->payload));
  ASSERT_EQ(batch.events_size(), 1);
  EXPECT_EQ(batch.events(0).SerializeAsString(), event);
  // A long event needs a multi-byte length.
  const std::string big(300, 'x');
  EXPECT_EQ(dead::BatchOfOne(big).substr(0, 3), std::string("\x0a\xac\x02", 3));
  // A whole message goes back as it came: an audit Event, or a ledger Batch.
  const uint64_t whole = Store("audit", contract::RejectReason::kMissingTime, -1, NoTime("a"),
                               "garm.v1.audit.acme.svc", 3);
  auto audit = dead::PlanReplay(*dead::GetDeadLetter(*connection, whole));
  ASSERT_TRUE(audit.ok());
  EXPECT_FALSE(audit->wrapped);
  EXPECT_EQ(audit->payload, NoTime("a"));
}

TEST_F(DeadStream, AReplayRunTwiceStoresEachRecordOnceOnItsOriginStream) {
  const uint64_t seq = Store("ledger", contract::RejectReason::kTooManyPartitions, 0,
                             MakeEvent("e-1").SerializeAsString(), "garm.v1.ledger.acme.svc", 4);
  auto d = dead::GetDeadLetter(*connection, seq);
  ASSERT_TRUE(d.ok());
  auto plan = dead::PlanReplay(*d);
  ASSERT_TRUE(plan.ok());
  auto first = dead::PublishReplay(*connection, *plan, seq);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_TRUE(*first);
  auto second = dead::PublishReplay(*connection, *plan, seq);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_FALSE(*second) << "the same Nats-Msg-Id within the duplicate window";
  const auto ledger = testing::ReadStream(*connection, "GARM_LEDGER");
  ASSERT_EQ(ledger.size(), 1u);
  EXPECT_EQ(ledger[0].subject, "garm.v1.ledger.acme.svc");
  EXPECT_EQ(ledger[0].data, plan->payload);
  EXPECT_EQ(ledger[0].headers.at("Nats-Msg-Id"), "sinkd-replay-GARM_LEDGER-4-0");
  EXPECT_EQ(ledger[0].headers.at("Garm-Replay-Of"), "GARM_SINK_DEAD-" + std::to_string(seq));
  EXPECT_EQ(testing::ReadStream(*connection, "GARM_SINK_DEAD").size(), 1u)
      << "reading and replaying leave the dead letter where it is";
}

TEST_F(DeadStream, AReplayIsNeverStoredOnAStreamOtherThanItsOrigin) {
  // A dead letter naming GARM_AUDIT with a ledger subject: the publish must not land it on
  // GARM_LEDGER, whose subjects take it.
  const uint64_t seq = Store("audit", contract::RejectReason::kMissingTime, -1, NoTime("x"),
                             "garm.v1.ledger.acme.svc", 1);
  auto plan = dead::PlanReplay(*dead::GetDeadLetter(*connection, seq));
  ASSERT_TRUE(plan.ok());
  auto r = dead::PublishReplay(*connection, *plan, seq);
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(testing::ReadStream(*connection, "GARM_LEDGER").empty());
}

TEST_F(DeadStream, TheDecodeAttemptGivesTheDecodersRowsOrItsRejects) {
  const uint64_t good = Store("ledger", contract::RejectReason::kTooManyPartitions, 2,
                              MakeEvent("e-ok").SerializeAsString(), "garm.v1.ledger.acme.svc", 1);
  const uint64_t bad = Store("ledger", contract::RejectReason::kMissingTime, 0, NoTime("e-bad"),
                             "garm.v1.ledger.acme.svc", 2);
  auto attempt = dead::Decode(*dead::GetDeadLetter(*connection, good));
  ASSERT_TRUE(attempt.ok());
  EXPECT_TRUE(attempt->decodable());
  EXPECT_EQ(attempt->rows.rows(), 1u);
  auto rejected = dead::Decode(*dead::GetDeadLetter(*connection, bad));
  ASSERT_TRUE(rejected.ok());
  ASSERT_EQ(rejected->rejects.size(), 1u);
  EXPECT_EQ(rejected->rejects[0].reason, contract::RejectReason::kMissingTime);
  EXPECT_EQ(rejected->rows.rows(), 0u);
  dead::Selection decodable;
  decodable.decodable = true;
  EXPECT_EQ(Sequences(List(decodable)), std::vector<uint64_t>{good});
}

TEST_F(DeadStream, AMessageWithoutTheDrainsHeadersIsListedButNeverReplayed) {
  ASSERT_GT(testing::Publish(*connection, "garm.v1.sink.dead.ledger", "stray"), 0u);
  const auto listed = List({});
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0].payload, "stray");
  auto plan = dead::PlanReplay(listed[0]);
  ASSERT_FALSE(plan.ok());
  EXPECT_NE(plan.status().message().find("not written by a sinkd drain"), std::string::npos);
}

TEST(DeadSelection, SubjectPatternsMatchAsNatsDoes) {
  EXPECT_TRUE(dead::SubjectMatches("garm.v1.ledger.>", "garm.v1.ledger.acme.svc"));
  EXPECT_FALSE(dead::SubjectMatches("garm.v1.ledger.>", "garm.v1.ledger"));
  EXPECT_TRUE(dead::SubjectMatches("garm.*.ledger.acme.svc", "garm.v1.ledger.acme.svc"));
  EXPECT_FALSE(dead::SubjectMatches("garm.*.ledger", "garm.v1.ledger.acme"));
  EXPECT_FALSE(dead::SubjectMatches("garm.v1.ledger.acme", "garm.v1.ledger"));
  EXPECT_TRUE(dead::SubjectMatches("a.b", "a.b"));
  EXPECT_FALSE(dead::SubjectMatches("a.b", "a.bc"));
  EXPECT_FALSE(dead::SubjectMatches("*", ""));
  EXPECT_TRUE(dead::CheckSubjectPattern("garm.v1.>").ok());
  EXPECT_FALSE(dead::CheckSubjectPattern("garm..x").ok());
  EXPECT_FALSE(dead::CheckSubjectPattern("garm.>.x").ok());
}

TEST(DeadSelection, ATimeBoundIsAnRfc3339TimeOrADurationBackFromNow) {
  auto at = dead::ParseTimeBound("2026-12-03T10:00:00Z", 0);
  ASSERT_TRUE(at.ok());
  EXPECT_EQ(*at, 1'796'292'000'000'000'000);
  auto ago = dead::ParseTimeBound("2h", 10'000'000'000'000);
  ASSERT_TRUE(ago.ok());
  EXPECT_EQ(*ago, 10'000'000'000'000 - 7'200'000'000'000);
  auto bad = dead::ParseTimeBound("yesterday", 0);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("\"yesterday\""), std::string::npos);
  EXPECT_EQ(*dead::ParseOriginStream("ledger"), "GARM_LEDGER");
  EXPECT_EQ(*dead::ParseOriginStream("GARM_AUDIT"), "GARM_AUDIT");
  EXPECT_FALSE(dead::ParseOriginStream("GARM_SINK_DEAD").ok());
  EXPECT_TRUE(dead::ParseReason("too_many_partitions").ok());
  EXPECT_NE(dead::ParseReason("bad").status().message().find("unmarshal, missing_event_id"),
            std::string::npos);
}

}  // namespace
}  // namespace sinkd
