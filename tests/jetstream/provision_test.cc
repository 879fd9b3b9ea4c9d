// Provision against a real nats-server: creates, verifies, refuses and never patches; and the two
// discard policies behave as the streams' purposes demand.
#include <gtest/gtest.h>

#include "jetstream/dead_letter_publisher.h"
#include "jetstream/jetstream_test_support.h"

namespace sinkd {
namespace {

using jetstream::ProvisionOutcome;

std::vector<ProvisionOutcome> Outcomes(const jetstream::ProvisionReport& r) {
  std::vector<ProvisionOutcome> out;
  for (const auto& l : r.lines) out.push_back(l.outcome);
  return out;
}

// Created the first time, verified (not created again) the second: a deploy is idempotent.
TEST(Provision, CreatesEachStreamOnceAndThenVerifiesIt) {
  testing::NatsServer server;
  ASSERT_TRUE(server.ok()) << server.error();
  auto c = testing::Connect(server);
  const auto specs = jetstream::StreamSpecs({});
  auto first = jetstream::Provision(*c, specs);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(Outcomes(*first), std::vector<ProvisionOutcome>(3, ProvisionOutcome::kCreated));
  auto second = jetstream::Provision(*c, specs);
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(second->status.ok()) << second->status.ToString();
  EXPECT_EQ(Outcomes(*second), std::vector<ProvisionOutcome>(3, ProvisionOutcome::kOk))
      << "a freshly created stream must diff against nothing (the 0/-1 fold)";
  auto audit = jetstream::GetStreamState(*c, "GARM_AUDIT");
  ASSERT_TRUE(audit.ok());
  EXPECT_EQ(audit->config.discard, "DiscardNew");
  EXPECT_TRUE(audit->config.deny_delete);
  EXPECT_TRUE(audit->config.deny_purge);
}

// An audit stream running DiscardOld is data loss that still acks: provision must refuse it, name
// the fields, keep checking the other streams, and change nothing.
TEST(Provision, RefusesAWrongPolicyAndPatchesNothing) {
  testing::NatsServer server;
  ASSERT_TRUE(server.ok()) << server.error();
  auto c = testing::Connect(server);
  auto specs = jetstream::StreamSpecs({});
  jetstream::StreamSpec wrong = specs[1];
  wrong.discard_new = false;
  wrong.deny_delete = false;
  ASSERT_TRUE(jetstream::CreateStream(*c, wrong).ok());
  auto report = jetstream::Provision(*c, specs);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(Outcomes(*report), (std::vector<ProvisionOutcome>{ProvisionOutcome::kCreated,
                                                              ProvisionOutcome::kRefused,
                                                              ProvisionOutcome::kCreated}))
      << "a refusal does not stop the other streams being handled";
  ASSERT_TRUE(report->status.IsRefuse());
  EXPECT_EQ(report->status.message(),
            "stream exists with a different policy: GARM_AUDIT differs in 2 field(s):\n"
            "  discard: want DiscardNew, running DiscardOld\n"
            "  deny_delete: want true, running false\n"
            "\n"
            "Nothing was changed. Decide which is right: if the running stream is wrong, fix it "
            "explicitly (`nats stream edit GARM_AUDIT`) or recreate it; if this binary is wrong, "
            "it needs a change here.");
  auto after = jetstream::GetStreamState(*c, "GARM_AUDIT");
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(after->config.discard, "DiscardOld") << "provision must never patch";
  EXPECT_FALSE(after->config.deny_delete);
}

TEST(Provision, RefusesAStreamThatHasLostASubject) {
  testing::NatsServer server;
  ASSERT_TRUE(server.ok()) << server.error();
  auto c = testing::Connect(server);
  auto specs = jetstream::StreamSpecs({});
  jetstream::StreamSpec narrow = specs[0];
  narrow.subjects = {"garm.v1.ledger.acme.>"};
  ASSERT_TRUE(jetstream::CreateStream(*c, narrow).ok());
  auto report = jetstream::Provision(*c, specs);
  ASSERT_TRUE(report.ok());
  ASSERT_TRUE(report->status.IsRefuse());
  EXPECT_NE(report->status.message().find(
                "subjects: want [garm.v1.ledger.>], running [garm.v1.ledger.acme.>]"),
            std::string::npos)
      << report->status.message();
  EXPECT_EQ(jetstream::GetStreamState(*c, "GARM_LEDGER")->config.subjects,
            std::vector<std::string>{"garm.v1.ledger.acme.>"});
}

TEST(Provision, TheDiffFoldsUnlimitedAndComparesAgeRaw) {
  auto spec = jetstream::StreamSpecs({})[0];
  jetstream::RunningConfig running{{"garm.v1.ledger.>"}, "File", "Limits", "DiscardOld",
                                   std::chrono::hours(168), spec.max_bytes, -1, 1, false, false};
  EXPECT_TRUE(jetstream::DiffStream(spec, running).empty());
  running.max_msgs = 0;
  EXPECT_TRUE(jetstream::DiffStream(spec, running).empty()) << "0 and -1 both mean unlimited";
  running.max_age = std::chrono::hours(24);
  EXPECT_EQ(jetstream::DiffStream(spec, running),
            std::vector<std::string>{"max_age: want 168h0m0s, running 24h0m0s"});
}

TEST(Provision, DryRunShowsTheOppositeDiscardPolicies) {
  auto specs = jetstream::StreamSpecs({});
  EXPECT_EQ(jetstream::DryRunLine(specs[0]),
            "GARM_LEDGER: subjects=[garm.v1.ledger.>] discard=DiscardOld retention=Limits "
            "max_bytes=8589934592 max_age=168h0m0s replicas=1 deny_delete=false");
  EXPECT_EQ(jetstream::DryRunLine(specs[1]),
            "GARM_AUDIT: subjects=[garm.v1.audit.>] discard=DiscardNew retention=Limits "
            "max_bytes=8589934592 max_age=0s replicas=1 deny_delete=true");
  EXPECT_EQ(jetstream::DryRunLine(specs[2]),
            "GARM_SINK_DEAD: subjects=[garm.v1.sink.dead.>] discard=DiscardNew retention=Limits "
            "max_bytes=1073741824 max_age=0s replicas=1 deny_delete=true");
  jetstream::StreamSizing sizing;
  sizing.ledger_max_bytes = -5;
  EXPECT_EQ(jetstream::StreamSpecs(sizing)[0].max_bytes, -5) << "a negative size passes through";
}

// Audit is the record itself: a full audit stream refuses the write (publishers fail closed)
// rather than discarding an older record, while a full ledger stream keeps accepting metering
// and drops its oldest.
TEST(Provision, AFullAuditStreamRefusesTheWriteWhileAFullLedgerDropsItsOldest) {
  testing::NatsServer server;
  ASSERT_TRUE(server.ok()) << server.error();
  auto c = testing::Connect(server);
  jetstream::StreamSizing sizing;
  sizing.audit_max_bytes = 16 << 10;
  sizing.ledger_max_bytes = 16 << 10;
  testing::ProvisionAll(*c, sizing);
  const std::string payload(1500, 'x');
  bool refused = false;
  for (int i = 0; i < 40 && !refused; ++i) {
    jsPubAck* ack = nullptr;
    jsErrCode jerr = static_cast<jsErrCode>(0);
    natsStatus s = js_Publish(&ack, c->js(), "garm.v1.audit.acme.svc", payload.data(),
                              static_cast<int>(payload.size()), nullptr, &jerr);
    jsPubAck_Destroy(ack);
    if (s != NATS_OK) {
      refused = true;
      EXPECT_EQ(jerr, JSStreamStoreFailedErr) << "maximum bytes exceeded";
    }
  }
  EXPECT_TRUE(refused) << "a full audit stream must refuse the publish";
  EXPECT_EQ(jetstream::GetStreamState(*c, "GARM_AUDIT")->first_sequence, 1u)
      << "and keep every older record";
  for (int i = 0; i < 40; ++i) testing::Publish(*c, "garm.v1.ledger.acme.svc", payload);
  auto ledger = jetstream::GetStreamState(*c, "GARM_LEDGER");
  ASSERT_TRUE(ledger.ok());
  EXPECT_EQ(ledger->last_sequence, 40u) << "every ledger publish was accepted";
  EXPECT_GT(ledger->first_sequence, 1u) << "the oldest ledger records were dropped";
}

TEST(DeadLetters, TheSubjectsSeparateTheTwoOriginsAndTheMsgIdNamesTheRecord) {
  EXPECT_EQ(jetstream::DeadSubjectFor("ledger"), "garm.v1.sink.dead.ledger");
  EXPECT_EQ(jetstream::DeadSubjectFor("audit"), "garm.v1.sink.dead.audit");
  EXPECT_EQ(jetstream::DeadSubjectFor(""), "garm.v1.sink.dead.unknown");
  EXPECT_EQ(jetstream::DeadLetterMsgId("GARM_LEDGER", 42, -1), "GARM_LEDGER-42--1");
  EXPECT_EQ(jetstream::DeadLetterMsgId("GARM_LEDGER", 42, 3), "GARM_LEDGER-42-3");
}

// The same record published three times is stored once (Nats-Msg-Id within the 2-minute window).
TEST(DeadLetters, ARecordPublishedThreeTimesIsStoredOnce) {
  testing::NatsServer server;
  ASSERT_TRUE(server.ok()) << server.error();
  auto c = testing::Connect(server);
  testing::ProvisionAll(*c);
  jetstream::DeadLetterPublisher publisher(*c, "ledger");
  ASSERT_TRUE(publisher.CheckReachable().ok());
  contract::Reject reject = contract::MakeReject(contract::RejectReason::kMissingTime,
                                                 "time is unset\nsecond line", 4, "bytes");
  for (int i = 0; i < 3; ++i) {
    auto stored = publisher.Publish({&reject, "GARM_LEDGER", "garm.v1.ledger.a.b", 9});
    ASSERT_TRUE(stored.ok()) << stored.status().ToString();
    EXPECT_EQ(*stored, i == 0) << "only the first publish stores it; the others are duplicates";
  }
  auto dead = testing::ReadStream(*c, "GARM_SINK_DEAD");
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].headers["Garm-Dead-Reason"], "missing_time");
  EXPECT_EQ(dead[0].headers["Garm-Dead-Error"], "time is unset second line")
      << "a header value cannot carry a line break";
  EXPECT_EQ(dead[0].headers["Garm-Dead-Event-Index"], "4");
  EXPECT_EQ(dead[0].headers["Garm-Dead-Sequence"], "9");
  EXPECT_EQ(dead[0].data, "bytes");
}

}  // namespace
}  // namespace sinkd
