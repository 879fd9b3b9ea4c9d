// proto3 semantics the hand-written decoder must share with libprotobuf 3.21: unknown fields,
// wire-type mismatches, merging, last-wins, varint widths, nesting limits, Timestamp rules.
// Every case runs through both decoders (DecodeBoth), so each expectation is also libprotobuf's.
#include <gtest/gtest.h>

#include "decode_support.h"

namespace sinkd::contract::testing {
namespace {

Decoded Event(const std::string& bytes) { return DecodeBoth(Envelope::kEvent, bytes); }

bool IsRow(const std::string& bytes) {
  Decoded d = Event(bytes);
  return d.rows.rows() == 1 && d.rejects.empty();
}

std::string Groups(uint32_t field, int depth) {
  std::string open = Varint(field << 3 | 3), close = Varint(field << 3 | 4), out;
  for (int i = 0; i < depth; ++i) out = open + out + close;
  return out;
}

// Forward compatibility: a publisher a version ahead adds fields; the drain must not choke.
TEST(WireRules, UnknownFieldsOfEveryWireTypeAreSkipped) {
  const std::string unknown = VarintField(90, 150) + Field(91, 1, "12345678") + Len(92, "skip") +
                              Groups(93, 3) + Field(94, 5, "1234");
  Decoded d = Event(MinimalEvent("u") + unknown + Len(2, unknown) + Len(30, unknown) +
                    Len(17, unknown + Len(1, "k")) + Len(10, "tenant"));
  ASSERT_EQ(d.rows.rows(), 1u) << "unknown fields, even inside time, usage and a tag entry";
  EXPECT_EQ(d.Str("tenant"), "tenant");
  EXPECT_EQ(d.Str("tags_json"), R"({"k":""})") << "a tag entry without a value has value \"\"";
}

// libprotobuf files a known number with another wire type under unknown fields; so must we.
TEST(WireRules, AKnownFieldWithTheWrongWireTypeIsSkippedAsUnknown) {
  Decoded d = Event(MinimalEvent() + VarintField(10, 5) + Len(24, "x") + VarintField(31, 1) +
                    Field(33, 5, "abcd") + VarintField(51, 1) + VarintField(2, 9));
  ASSERT_EQ(d.rows.rows(), 1u);
  EXPECT_EQ(d.Str("tenant"), "");
  EXPECT_FALSE(d.Bool("model_overridden"));
  EXPECT_EQ(d.Double("cost_usd"), 0.0);
  EXPECT_EQ(d.Int64("latency_ms"), 0);
  EXPECT_EQ(d.Str("policy_violations"), "[]");
  EXPECT_EQ(d.Int64("time"), 1000000) << "a varint on field 2 is not a Timestamp";
}

// Presence, not value, decides missing_time: an explicit zero Timestamp is the epoch.
TEST(WireRules, AnExplicitZeroTimestampIsTheEpochAndARow) {
  Decoded d = Event(Len(1, "z") + Len(2, ""));
  ASSERT_EQ(d.rows.rows(), 1u);
  EXPECT_EQ(d.Int64("time"), 0);
}

TEST(WireRules, TimeIsMicrosecondsFlooredTowardsThePast) {
  Decoded d = Event(Len(1, "t") + TimeField(-1, 999999));
  ASSERT_EQ(d.rows.rows(), 1u);
  EXPECT_EQ(d.Int64("time"), -1000000 + 999) << "-0.999001 s is -999001 us, truncating 999 ns";
}

// Years past 9999 have no RFC 3339 text and seconds*1e6 overflows well before INT64 runs out of
// seconds; such a Timestamp is corruption, refused rather than clamped or wrapped.
TEST(WireRules, TimestampsOutsideYears1To9999AreUnmarshalRejects) {
  EXPECT_TRUE(IsRow(Len(1, "t") + TimeField(253402300799, 999999999)))
      << "9999-12-31T23:59:59.999999999Z";
  EXPECT_TRUE(IsRow(Len(1, "t") + TimeField(-62135596800, 0))) << "0001-01-01T00:00:00Z";
  for (auto [seconds, nanos] : std::vector<std::pair<int64_t, int32_t>>{{253402300800, 0},
                                                                        {-62135596801, 999999999},
                                                                        {0, -1},
                                                                        {0, 1000000000},
                                                                        {INT64_MAX, 0},
                                                                        {INT64_MIN, 0}}) {
    Decoded d = Event(Len(1, "t") + TimeField(seconds, nanos));
    ASSERT_EQ(d.rejects.size(), 1u) << seconds << "s " << nanos << "ns";
    EXPECT_EQ(d.rejects[0].reason, RejectReason::kUnmarshal);
    EXPECT_NE(d.rejects[0].error.find("out of range"), std::string::npos) << d.rejects[0].error;
  }
  Decoded d = Event(Len(1, "") + TimeField(0, -1));
  ASSERT_EQ(d.rejects.size(), 1u);
  EXPECT_EQ(d.rejects[0].reason, RejectReason::kUnmarshal)
      << "a corrupt time outranks a missing id";
}

// A message field seen twice merges field by field (protobuf's MergeFrom), it is not replaced.
TEST(WireRules, MessageFieldsSeenTwiceMerge) {
  Decoded d = Event(Len(1, "m") + Len(2, VarintField(1, 7)) + Len(2, VarintField(2, 5000)) +
                    Len(30, VarintField(1, 10) + VarintField(2, 20)) +
                    Len(30, VarintField(2, 21) + VarintField(4, 40)));
  ASSERT_EQ(d.rows.rows(), 1u);
  EXPECT_EQ(d.Int64("time"), 7000005);
  EXPECT_EQ(d.Int64("input_tokens"), 10);
  EXPECT_EQ(d.Int64("output_tokens"), 21);
  EXPECT_EQ(d.Int64("cached_tokens"), 0);
  EXPECT_EQ(d.Int64("reasoning_tokens"), 40);
}

TEST(WireRules, ScalarsAndTagKeysSeenTwiceKeepTheLastValue) {
  Decoded d = Event(MinimalEvent("first") + Len(1, "second") + VarintField(33, 1) +
                    VarintField(33, 2) + TagEntry("k", "1") + TagEntry("j", "x") +
                    TagEntry("k", "2") + Len(17, Len(1, "k") + Len(2, "3") + Len(2, "4")));
  ASSERT_EQ(d.rows.rows(), 1u);
  EXPECT_EQ(d.Str("event_id"), "second");
  EXPECT_EQ(d.Int64("latency_ms"), 2);
  EXPECT_EQ(d.Str("tags_json"), R"({"j":"x","k":"4"})");
}

TEST(WireRules, BoolIsAnyNonzeroVarintAndInt32KeepsTheLow32Bits) {
  Decoded d = Event(MinimalEvent() + VarintField(24, 256) + VarintField(41, 0) +
                    VarintField(64, (uint64_t{1} << 32) + 5) + VarintField(68, UINT64_MAX) +
                    VarintField(69, 0x80000000));
  ASSERT_EQ(d.rows.rows(), 1u);
  EXPECT_TRUE(d.Bool("model_overridden"));
  EXPECT_FALSE(d.Bool("fallback_used"));
  EXPECT_EQ(d.Int32("chain_depth"), 5);
  EXPECT_EQ(d.Int32("redaction_count"), -1);
  EXPECT_EQ(d.Int32("disclosed_count"), INT32_MIN);
  // Only bits past 64 set: the varint is 0, so the bool is false.
  Decoded high = Event(MinimalEvent() + Field(24, 0, std::string(9, '\x80') + "\x02"));
  ASSERT_EQ(high.rows.rows(), 1u);
  EXPECT_FALSE(high.Bool("model_overridden"));
}

TEST(WireRules, VarintTagAndLengthWidthsAreLibprotobufs) {
  EXPECT_TRUE(IsRow(MinimalEvent() + Field(33, 0, std::string(9, '\xff') + "\x7f"))) << "10 bytes";
  EXPECT_FALSE(IsRow(MinimalEvent() + Field(33, 0, std::string(10, '\xff') + "\x01"))) << "11";
  // A 5-byte tag drops bits past 32: this is field 10 (tenant), wire type 2.
  Decoded wide = Event(MinimalEvent() + std::string("\xd2\x80\x80\x80\x10\x01x", 7));
  ASSERT_EQ(wide.rows.rows(), 1u);
  EXPECT_EQ(wide.Str("tenant"), "x");
  EXPECT_FALSE(IsRow(MinimalEvent() + std::string("\xd2\x80\x80\x80\x80\x00\x01x", 8)))
      << "6-byte tag";
  EXPECT_TRUE(IsRow(MinimalEvent() + std::string("\x52\x81\x80\x80\x80\x00x", 7)))
      << "5-byte length";
  EXPECT_FALSE(IsRow(MinimalEvent() + std::string("\x52\x81\x80\x80\x80\x80\x00x", 8)))
      << "a 6-byte length is refused by the generated parser (CodedInputStream would take it)";
}

TEST(WireRules, MalformedFramingIsRefused) {
  for (const std::string& tail :
       {std::string("\x00", 1), std::string("\x0c"), std::string("\x00\x01", 2),
        std::string("\x0e"), std::string("\x0f"), Groups(5, 1).substr(0, 1),
        Varint(5 << 3 | 3) + Varint(6 << 3 | 4), std::string("\x09\x01\x02"),
        std::string("\x0d\x01"), Len(2, std::string("\x00", 1))}) {
    EXPECT_FALSE(IsRow(MinimalEvent() + tail)) << "tail of " << tail.size() << " bytes";
  }
}

// libprotobuf's recursion budget is 100 levels (groups and messages alike); matching it exactly
// keeps the two decoders' verdicts equal on hostile nesting.
TEST(WireRules, NestingDeeperThan100LevelsIsRefused) {
  EXPECT_TRUE(IsRow(MinimalEvent() + Groups(90, 100)));
  EXPECT_FALSE(IsRow(MinimalEvent() + Groups(90, 101)));
  EXPECT_TRUE(IsRow(MinimalEvent() + Len(2, Groups(9, 99))));
  EXPECT_FALSE(IsRow(MinimalEvent() + Len(2, Groups(9, 100))));
  Decoded batch = DecodeBoth(Envelope::kBatch, Groups(7, 101));
  ASSERT_EQ(batch.rejects.size(), 1u) << "the Batch's own unknown groups have the same budget";
  EXPECT_EQ(batch.rejects[0].index, -1);
}

}  // namespace
}  // namespace sinkd::contract::testing
