// What never becomes a row, and what a reject carries: the reason vocabulary of dead letters, the
// event's index, its exact original bytes, and the display forms. Both decoders (DecodeBoth).
#include <gtest/gtest.h>

#include "decode_support.h"

namespace sinkd::contract::testing {
namespace {

// The blast radius is one event: a Batch of 500 with one bad event is 499 rows and one reject.
TEST(Rejects, OneBadEventInABatchLosesOnlyThatEvent) {
  garm::ledger::v1::Batch batch;
  *batch.add_events() = FullEvent("a");
  batch.add_events()->mutable_time()->set_seconds(5);  // no event_id
  *batch.add_events() = FullEvent("c");
  Decoded d = DecodeBoth(Envelope::kBatch, batch.SerializeAsString());
  ASSERT_EQ(d.rows.rows(), 2u) << "the good events beside a bad one must still be rows";
  ASSERT_EQ(d.rejects.size(), 1u);
  EXPECT_EQ(d.rejects[0].reason, RejectReason::kMissingEventId);
  EXPECT_EQ(d.rejects[0].index, 1);
  EXPECT_EQ(d.rejects[0].error, "event_id is empty");
  EXPECT_EQ(d.rejects[0].payload, batch.events(1).SerializeAsString());
  EXPECT_EQ(d.Str("event_id", 0), "a");
  EXPECT_EQ(d.Str("event_id", 1), "c");
}

// A dead letter must hold what travelled, not a re-encoding: here the event is in a form
// libprotobuf would never write (fields out of order, repeated, unknown), so a re-marshal differs.
TEST(Rejects, ARejectedEventCarriesItsExactOriginalBytes) {
  const std::string odd = VarintField(99, 7) + Len(10, "t1") + Len(10, "t2") + TimeField(1, 0);
  const std::string message = Len(1, MinimalEvent("ok")) + Len(1, odd) + VarintField(5, 1);
  Decoded d = DecodeBoth(Envelope::kBatch, message);
  ASSERT_EQ(d.rejects.size(), 1u);
  EXPECT_EQ(d.rejects[0].index, 1);
  EXPECT_EQ(d.rejects[0].payload, odd) << "the payload must be the event's own sub-slice";
  garm::ledger::v1::Event reparsed;
  ASSERT_TRUE(reparsed.ParseFromString(odd));
  ASSERT_NE(reparsed.SerializeAsString(), odd) << "premise: a re-marshal would differ";
}

// A row dated to the epoch or to ingest time would be a lie in the lake.
TEST(Rejects, AnEventWithNoTimestampIsRejectedRatherThanBackdated) {
  const std::string bytes = Len(1, "evt-1");
  Decoded d = DecodeBoth(Envelope::kEvent, bytes);
  EXPECT_EQ(d.rows.rows(), 0u);
  ASSERT_EQ(d.rejects.size(), 1u);
  EXPECT_EQ(d.rejects[0].reason, RejectReason::kMissingTime);
  EXPECT_EQ(d.rejects[0].error, "time is unset");
  EXPECT_EQ(d.rejects[0].index, -1);
  EXPECT_EQ(d.rejects[0].payload, bytes);
}

TEST(Rejects, AnUnparseableMessageIsOneRejectCarryingTheOriginalBytes) {
  const std::string garbage("\x0a\x05\x01\x02", 4);  // a length running past the end
  for (Envelope envelope : {Envelope::kEvent, Envelope::kBatch}) {
    Decoded d = DecodeBoth(envelope, garbage);
    EXPECT_EQ(d.rows.rows(), 0u);
    ASSERT_EQ(d.rejects.size(), 1u) << EnvelopeName(envelope);
    EXPECT_EQ(d.rejects[0].reason, RejectReason::kUnmarshal);
    EXPECT_EQ(d.rejects[0].index, -1);
    EXPECT_EQ(d.rejects[0].payload, garbage);
  }
}

// A Batch broken after good events must not half-land: its events' rows would be acked as the
// message is dead-lettered whole, and the redelivered copy would duplicate them.
TEST(Rejects, ABatchWithBrokenFramingIsOneWholeRejectAndNoRows) {
  const std::string message = Len(1, MinimalEvent("a")) + Len(1, MinimalEvent("b")) + "\x0a\x7f";
  Decoded d = DecodeBoth(Envelope::kBatch, message);
  EXPECT_EQ(d.rows.rows(), 0u) << "no row may come from a Batch whose framing is broken";
  ASSERT_EQ(d.rejects.size(), 1u);
  EXPECT_EQ(d.rejects[0].index, -1);
  EXPECT_EQ(d.rejects[0].payload, message);
}

// The rows and rejects a broken Batch takes back are its own: what the batch held before it stays,
// and an event reject read before the break is not kept beside the whole-message one.
TEST(Rejects, ABrokenBatchTakesBackOnlyWhatItsOwnEventsAdded) {
  const std::string good = Len(1, MinimalEvent("a")) + Len(1, MinimalEvent("b"));
  const std::string broken = Len(1, MinimalEvent("c")) + Len(1, MinimalEvent("")) +
                             Len(1, MinimalEvent("d")) + "\x0a\x7f";
  WireDecoder decoder;
  row::RowBuffer rows(row::kLedgerColumns);
  std::vector<Reject> rejects;
  EXPECT_EQ(decoder.Decode(Envelope::kBatch, good, rows, rejects), 2u);
  EXPECT_EQ(decoder.Decode(Envelope::kBatch, broken, rows, rejects), 0u);
  ASSERT_EQ(rows.rows(), 2u);
  EXPECT_EQ(rows.Id(0), "a");
  EXPECT_EQ(rows.Id(1), "b");
  ASSERT_EQ(rejects.size(), 1u) << "the empty event_id's reject belongs to a message refused whole";
  EXPECT_EQ(rejects[0].index, -1);
  EXPECT_EQ(rejects[0].payload, broken);
  EXPECT_NE(rejects[0].error.find("garm.ledger.v1.Batch"), std::string::npos) << rejects[0].error;
  EXPECT_EQ(decoder.Decode(Envelope::kBatch, good, rows, rejects), 2u);
  EXPECT_EQ(rows.Id(2), "a") << "the next message's rows follow the kept ones";
}

// Someone will publish protojson by mistake; the dead letter must say so, not "corrupt".
TEST(Rejects, AJsonPayloadSaysSoRatherThanReadingAsCorruption) {
  const std::string hint =
      " (the payload looks like JSON; this stream carries binary garm.ledger.v1 protobuf)";
  for (const std::string json : {R"({"event_id":"evt-1"})", R"([{"event_id":"evt-1"}])"}) {
    for (Envelope envelope : {Envelope::kEvent, Envelope::kBatch}) {
      Decoded d = DecodeBoth(envelope, json);
      ASSERT_EQ(d.rejects.size(), 1u) << json;
      EXPECT_EQ(d.rejects[0].reason, RejectReason::kUnmarshal);
      const std::string& error = d.rejects[0].error;
      ASSERT_GE(error.size(), hint.size());
      EXPECT_EQ(error.substr(error.size() - hint.size()), hint) << error;
    }
  }
  Decoded binary = DecodeBoth(Envelope::kEvent, "\x0a\x05");
  ASSERT_EQ(binary.rejects.size(), 1u);
  EXPECT_EQ(binary.rejects[0].error.find("JSON"), std::string::npos)
      << "binary garbage must not be called JSON";
}

TEST(Rejects, AnEmptyBatchIsNeitherRowsNorRejects) {
  Decoded d = DecodeBoth(Envelope::kBatch, "");
  EXPECT_EQ(d.rows.rows(), 0u);
  EXPECT_TRUE(d.rejects.empty()) << "an empty Batch is acked, not dead-lettered";
}

// Pointing the ledger drain at the audit stream must fail loudly, not invent rows.
TEST(Rejects, TheWrongEnvelopeFailsRatherThanInventingARow) {
  const std::string event = FullEvent("evt-0001").SerializeAsString();
  Decoded d = DecodeBoth(Envelope::kBatch, event);
  EXPECT_EQ(d.rows.rows(), 0u) << "an Event read as a Batch must not produce rows";
  EXPECT_GE(d.rejects.size(), 1u) << "an Event read as a Batch must produce a reject";
}

// Invalid UTF-8 can never be a row (Parquet STRING columns are UTF-8), wherever the string sits.
TEST(Rejects, InvalidUtf8IsAnUnmarshalRejectInEveryKindOfStringPosition) {
  const std::string bad = "\xff";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"event_id", Len(1, bad) + TimeField(1, 0)},
      {"a scalar string", MinimalEvent() + Len(70, "ok" + bad)},
      {"a map key", MinimalEvent() + TagEntry(bad, "v")},
      {"a map value", MinimalEvent() + TagEntry("k", bad)},
      {"a map key overwritten in its entry", MinimalEvent() + Len(17, Len(1, bad) + Len(1, "k"))},
      {"a scalar overwritten later", MinimalEvent() + Len(10, bad) + Len(10, "fine")},
      {"a list item", MinimalEvent() + Len(51, "a") + Len(51, bad)},
      {"a surrogate", MinimalEvent() + Len(66, "\xed\xa0\x80")},
      {"an overlong NUL", MinimalEvent() + Len(12, "\xc0\x80")},
      {"a code point past U+10FFFF", MinimalEvent() + Len(13, "\xf4\x90\x80\x80")},
      {"a truncated sequence", MinimalEvent() + Len(14, "\xe2\x82")},
  };
  for (const auto& [where, event] : cases) {
    Decoded d = DecodeBoth(Envelope::kEvent, event);
    EXPECT_EQ(d.rows.rows(), 0u) << where;
    ASSERT_EQ(d.rejects.size(), 1u) << where;
    EXPECT_EQ(d.rejects[0].reason, RejectReason::kUnmarshal) << where;
    Decoded in_batch = DecodeBoth(Envelope::kBatch, Len(1, MinimalEvent()) + Len(1, event));
    EXPECT_EQ(in_batch.rows.rows(), 1u) << where << ": the good event beside it is lost";
    ASSERT_EQ(in_batch.rejects.size(), 1u) << where;
    EXPECT_EQ(in_batch.rejects[0].index, 1) << where;
  }
  // Valid oddities stay rows: NUL and a noncharacter are well-formed UTF-8.
  Decoded d =
      DecodeBoth(Envelope::kEvent, MinimalEvent() + Len(10, std::string("a\0b\xef\xbf\xbe", 6)));
  EXPECT_EQ(d.rows.rows(), 1u);
}

TEST(Rejects, DisplayAsReasonAndErrorWithTheEventIndexInABatch) {
  EXPECT_EQ((Reject{RejectReason::kMissingTime, "time is unset", -1, ""}).ToString(),
            "missing_time: time is unset");
  EXPECT_EQ((Reject{RejectReason::kMissingEventId, "event_id is empty", 3, ""}).ToString(),
            "event 3: missing_event_id: event_id is empty");
  EXPECT_EQ((Reject{RejectReason::kUnmarshal, "x", 0, ""}).ToString(), "event 0: unmarshal: x");
}

// The names reach the Garm-Dead-Reason header; dashboards match on them.
TEST(Rejects, ReasonNamesAreTheDeadLetterVocabulary) {
  EXPECT_EQ(ReasonName(RejectReason::kUnmarshal), "unmarshal");
  EXPECT_EQ(ReasonName(RejectReason::kMissingEventId), "missing_event_id");
  EXPECT_EQ(ReasonName(RejectReason::kMissingTime), "missing_time");
  EXPECT_EQ(ReasonName(RejectReason::kTooManyPartitions), "too_many_partitions");
}

// With both problems, the id is reported: it is checked first, as in the Go sink.
TEST(Rejects, AMissingIdIsReportedBeforeAMissingTime) {
  Decoded d = DecodeBoth(Envelope::kEvent, Len(10, "tenant-only"));
  ASSERT_EQ(d.rejects.size(), 1u);
  EXPECT_EQ(d.rejects[0].reason, RejectReason::kMissingEventId);
}

}  // namespace
}  // namespace sinkd::contract::testing
