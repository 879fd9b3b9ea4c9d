// tail against a real nats-server: one JSON line per event under the lake's column names, the start
// positions, filters, and that it never consumes anything.
#include <cstdio>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "jetstream/jetstream_test_support.h"
#include "contract/wire_decoder.h"
#include "jetstream/ephemeral_reader.h"
#include "jetstream/pull_consumer.h"
#include "row/ledger_columns.h"
#include "tail/tail.h"

namespace sinkd {
namespace {

using namespace std::chrono_literals;
using testing::MakeEvent;

struct Output {
  std::string out;
  std::string err;
  Status status;
};

// Runs a tail to completion (or until `stop` after `follow_for`) and captures both streams.
Output RunTail(jetstream::Connection& c, tail::TailOptions options,
               std::chrono::milliseconds follow_for = 0ms) {
  Output o;
  char* out_buf = nullptr;
  char* err_buf = nullptr;
  size_t out_len = 0, err_len = 0;
  std::FILE* out = open_memstream(&out_buf, &out_len);
  std::FILE* err = open_memstream(&err_buf, &err_len);
  std::atomic<bool> stop{false};
  std::thread stopper;
  if (follow_for > 0ms) {
    stopper = std::thread([&] {
      std::this_thread::sleep_for(follow_for);
      stop = true;
    });
  }
  o.status = tail::RunTail(c, options, out, err, stop);
  if (stopper.joinable()) stopper.join();
  std::fclose(out);
  std::fclose(err);
  o.out.assign(out_buf, out_len);
  o.err.assign(err_buf, err_len);
  free(out_buf);
  free(err_buf);
  return o;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    lines.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return lines;
}

class Tail : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server.ok()) << server.error();
    c = testing::Connect(server);
    ASSERT_TRUE(c);
    testing::ProvisionAll(*c);
  }
  testing::NatsServer server;
  std::unique_ptr<jetstream::Connection> c;
};

// Keys named and ordered exactly as the lake's columns, one object per event, time in RFC 3339 UTC.
TEST_F(Tail, OneJSONLinePerEventUnderTheLakeColumnNames) {
  testing::PublishLedger(*c, {MakeEvent("e1"), MakeEvent("e2")});
  testing::PublishLedger(*c, {MakeEvent("e3"), MakeEvent("e4")});
  Output o = RunTail(*c, {});
  ASSERT_TRUE(o.status.ok()) << o.status.ToString();
  auto lines = Lines(o.out);
  ASSERT_EQ(lines.size(), 4u) << o.out << o.err;
  auto doc = nlohmann::ordered_json::parse(lines[0]);
  std::vector<std::string> keys;
  for (auto it = doc.begin(); it != doc.end(); ++it) keys.push_back(it.key());
  ASSERT_EQ(keys.size(), row::kLedgerColumns.columns.size()) << "40 keys, no date";
  for (size_t i = 0; i < keys.size(); ++i) {
    EXPECT_EQ(keys[i], row::kLedgerColumns.columns[i].name) << "key " << i << " out of order";
  }
  EXPECT_EQ(doc["time"], "2026-09-29T12:00:00Z");
  EXPECT_EQ(doc["event_id"], "e1");
  EXPECT_EQ(doc["tags_json"], "{}") << "JSON-text columns print as strings holding JSON";
}

TEST_F(Tail, TheAuditStreamIsOneEventPerMessage) {
  testing::PublishAudit(*c, MakeEvent("a1"));
  testing::PublishAudit(*c, MakeEvent("a2"));
  tail::TailOptions o;
  o.stream = jetstream::kAuditStream;
  o.subject_filter = jetstream::kAuditFilter;
  o.envelope = contract::Envelope::kEvent;
  Output out = RunTail(*c, o);
  EXPECT_EQ(Lines(out.out).size(), 2u) << out.out;
}

// The drain's durable, half-acked, must be exactly as it was after a tail: ack floor, delivered,
// ack-pending, pending and redelivered counts; and the tail's consumer is gone afterwards.
TEST_F(Tail, ATailLeavesTheDrainsDurableConsumerUntouched) {
  for (int i = 0; i < 6; ++i) testing::PublishLedger(*c, {MakeEvent("d" + std::to_string(i))});
  jetstream::ConsumerConfig cc{"GARM_LEDGER", "sink-ledger", "garm.v1.ledger.>"};
  auto consumer = jetstream::PullConsumer::Bind(*c, cc);
  ASSERT_TRUE(consumer.ok()) << consumer.status().ToString();
  std::vector<jetstream::Message> got;
  ASSERT_TRUE((*consumer)->Fetch(4, 2000ms, got).ok());
  ASSERT_EQ(got.size(), 4u);
  ASSERT_TRUE(got[0].Ack().ok());
  ASSERT_TRUE(got[1].Ack().ok());
  ASSERT_TRUE(c->FlushPending(2s).ok());
  ASSERT_TRUE(testing::WaitUntil(
      [&] { return testing::ConsumerStateOf(*c, "GARM_LEDGER", "sink-ledger").ack_floor_stream == 2; },
      5s));
  const auto before = testing::ConsumerStateOf(*c, "GARM_LEDGER", "sink-ledger");
  ASSERT_EQ(before.ack_pending, 2) << "premise: a half-acked durable";
  ASSERT_EQ(before.pending, 2u);

  tail::TailOptions o;
  o.from_start = true;
  Output out = RunTail(*c, o);
  ASSERT_TRUE(out.status.ok()) << out.status.ToString();
  EXPECT_EQ(Lines(out.out).size(), 6u);
  EXPECT_NE(out.err.find("durable=false"), std::string::npos) << out.err;
  EXPECT_NE(out.err.find("ack=none"), std::string::npos) << out.err;

  const auto after = testing::ConsumerStateOf(*c, "GARM_LEDGER", "sink-ledger");
  EXPECT_EQ(after.ack_floor_stream, before.ack_floor_stream);
  EXPECT_EQ(after.delivered_stream, before.delivered_stream);
  EXPECT_EQ(after.ack_pending, before.ack_pending);
  EXPECT_EQ(after.pending, before.pending);
  EXPECT_EQ(after.redelivered, before.redelivered);
  auto stream = jetstream::GetStreamState(*c, "GARM_LEDGER");
  jsStreamInfo* si = nullptr;
  ASSERT_EQ(js_GetStreamInfo(&si, c->js(), "GARM_LEDGER", nullptr, nullptr), NATS_OK);
  EXPECT_EQ(si->State.Consumers, 1) << "only sink-ledger remains: the tail deleted its consumer";
  jsStreamInfo_Destroy(si);
}

// --since N counts messages back from the end: on the ledger a message is a Batch of events.
TEST_F(Tail, SinceCountsMessagesBackFromTheEnd) {
  for (int m = 0; m < 4; ++m) {
    testing::PublishLedger(*c, {MakeEvent("m" + std::to_string(m) + "a"),
                                MakeEvent("m" + std::to_string(m) + "b")});
  }
  tail::TailOptions o;
  o.since.count = 2;
  Output out = RunTail(*c, o);
  auto lines = Lines(out.out);
  ASSERT_EQ(lines.size(), 4u) << "the 4 events of the last 2 messages";
  EXPECT_NE(lines[0].find("\"m2a\""), std::string::npos);
  o.since.count = 1000;
  EXPECT_EQ(Lines(RunTail(*c, o).out).size(), 8u) << "more than the stream means from the start";
}

// --since DURATION resolves a start sequence from message timestamps; the messages published
// before the window are not printed and every one inside it is (cnats' OptStartTime would skip
// some whose time fraction starts with a zero).
TEST_F(Tail, SinceADurationStartsAtTheFirstMessageThatRecent) {
  for (int i = 0; i < 5; ++i) testing::PublishLedger(*c, {MakeEvent("old" + std::to_string(i))});
  std::this_thread::sleep_for(1500ms);
  for (int i = 0; i < 7; ++i) testing::PublishLedger(*c, {MakeEvent("new" + std::to_string(i))});
  tail::TailOptions o;
  o.since.is_count = false;
  o.since.duration = 1s;
  Output out = RunTail(*c, o);
  auto lines = Lines(out.out);
  ASSERT_EQ(lines.size(), 7u) << out.out;
  EXPECT_NE(lines[0].find("\"new0\""), std::string::npos);
  auto seq = jetstream::SequenceAtTime(*c, "GARM_LEDGER", 0, 1, 12);
  ASSERT_TRUE(seq.ok());
  EXPECT_EQ(*seq, 1u);
  seq = jetstream::SequenceAtTime(*c, "GARM_LEDGER", INT64_MAX, 1, 12);
  EXPECT_EQ(*seq, 13u) << "every message older: one past the end";
}

TEST_F(Tail, AnEmptyStreamPrintsNothingAndReturns) {
  Output out = RunTail(*c, {});
  EXPECT_TRUE(out.status.ok());
  EXPECT_TRUE(out.out.empty());
  EXPECT_NE(out.err.find("pending=0"), std::string::npos) << out.err;
}

TEST_F(Tail, FollowKeepsReadingUntilStopped) {
  testing::PublishLedger(*c, {MakeEvent("f0")});
  std::thread later([&] {
    std::this_thread::sleep_for(700ms);
    auto c2 = testing::Connect(server);
    testing::PublishLedger(*c2, {MakeEvent("f1")});
  });
  tail::TailOptions o;
  o.follow = true;
  Output out = RunTail(*c, o, 2500ms);
  later.join();
  EXPECT_TRUE(out.status.ok()) << out.status.ToString();
  EXPECT_EQ(Lines(out.out).size(), 2u) << "the event published after the start is printed too";
}

TEST_F(Tail, FilterIsAppliedToDecodedRowsAndEveryFilterMustMatch) {
  auto a = MakeEvent("x1", "svc-a");
  a.set_outcome("denied");
  auto b = MakeEvent("x2", "svc-b");
  b.set_outcome("denied");
  auto d = MakeEvent("x3", "svc-a");
  testing::PublishLedger(*c, {a, b, d});
  tail::TailOptions o;
  o.filters.push_back(*tail::ParseFilter("outcome=denied"));
  o.filters.push_back(*tail::ParseFilter("app=svc-a"));
  auto lines = Lines(RunTail(*c, o).out);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("\"x1\""), std::string::npos);
}

TEST_F(Tail, AnUnreadableMessageIsReportedAndTheRestStillPrints) {
  testing::PublishLedger(*c, {MakeEvent("u1")});
  testing::Publish(*c, "garm.v1.ledger.acme.svc", std::string("\x0f\xff", 2));
  testing::PublishLedger(*c, {MakeEvent("u3")});
  Output out = RunTail(*c, {});
  EXPECT_EQ(Lines(out.out).size(), 2u);
  EXPECT_NE(out.err.find("seq 2: unreadable"), std::string::npos) << out.err;
}

TEST(TailFlags, SinceTakesAPositiveCountOrAPositiveDuration) {
  EXPECT_TRUE(tail::ParseSince("").ok());
  EXPECT_EQ(tail::ParseSince("20")->count, 20);
  EXPECT_FALSE(tail::ParseSince("10m")->is_count);
  EXPECT_EQ(tail::ParseSince("1h")->duration, 1h);
  EXPECT_EQ(tail::ParseSince("0").status().message(), "--since 0: a message count must be positive");
  EXPECT_EQ(tail::ParseSince("-5").status().message(), "--since -5: a message count must be positive");
  EXPECT_EQ(tail::ParseSince("-1m").status().message(), "--since -1m0s: a duration must be positive");
  EXPECT_EQ(tail::ParseSince("twenty").status().message(),
            "--since \"twenty\": neither a message count nor a duration");
  EXPECT_FALSE(tail::ParseSince("5x").ok());
}

TEST(TailFlags, AnUnknownFilterColumnIsRefusedWithTheColumnList) {
  auto f = tail::ParseFilter("nope=1");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().message().rfind("--filter \"nope=1\": no column \"nope\"; columns are "
                                       "event_id, time, tenant, app, ", 0), 0u)
      << f.status().message();
  EXPECT_NE(f.status().message().find("error_detail, execution_subject"), std::string::npos);
  EXPECT_EQ(tail::ParseFilter("tool").status().message(), "--filter \"tool\": want key=value");
  EXPECT_EQ(tail::ParseFilter("=x").status().message(), "--filter \"=x\": want key=value");
  EXPECT_EQ(tail::ParseFilter("tool=a=b")->value, "a=b") << "split at the first =";
}

TEST(TailJson, NoDetailDropsErrorDetailAndNothingElse) {
  row::RowBuffer rows(row::kLedgerColumns);
  contract::WireDecoder decoder;
  std::vector<contract::Reject> rejects;
  auto e = MakeEvent("n1");
  e.set_error_detail("secret");
  decoder.Decode(contract::Envelope::kEvent, e.SerializeAsString(), rows, rejects);
  ASSERT_EQ(rows.rows(), 1u);
  std::string out;
  tail::AppendRowJson(out, rows, 0, {false, true});
  auto doc = nlohmann::ordered_json::parse(out);
  EXPECT_FALSE(doc.contains("error_detail"));
  EXPECT_EQ(doc.size(), 39u);
  out.clear();
  tail::AppendRowJson(out, rows, 0, {true, false});
  EXPECT_EQ(out.rfind("{\n  \"event_id\": \"n1\",\n  \"time\": ", 0), 0u) << out;
  EXPECT_EQ(out.substr(out.size() - 4), "\"\n}\n") << "ends with the last key's value, then }";
}

TEST(TailJson, ValuesPrintAsGoPrintsThem) {
  EXPECT_EQ(tail::GoFloat(1.5), "1.5");
  EXPECT_EQ(tail::GoFloat(0), "0");
  EXPECT_EQ(tail::GoFloat(1e-7), "1e-7");
  EXPECT_EQ(tail::GoFloat(1e21), "1e+21");
  EXPECT_EQ(tail::GoFloat(123456789.0), "123456789");
  EXPECT_EQ(tail::Rfc3339Micros(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(tail::Rfc3339Micros(1'500'000), "1970-01-01T00:00:01.5Z");
  EXPECT_EQ(tail::Rfc3339Micros(-1), "1969-12-31T23:59:59.999999Z");
}

}  // namespace
}  // namespace sinkd
