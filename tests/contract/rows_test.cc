// How events become rows: every column filled from its field, JSON columns in Go's exact text,
// a Batch as one row per event. Every case runs through both decoders (DecodeBoth).
#include <gtest/gtest.h>

#include <cmath>

#include "contract/wire_decoder.h"
#include "decode_support.h"

namespace sinkd::contract::testing {
namespace {

// A column silently left at its zero value would look like data in the lake.
TEST(Rows, AnEventBecomesEveryColumnItCarries) {
  const std::string bytes = FullEvent("evt-1").SerializeAsString();
  Decoded d = DecodeBoth(Envelope::kEvent, bytes);
  ASSERT_EQ(d.rows.rows(), 1u) << "a full event must be a row";
  ASSERT_TRUE(d.rejects.empty()) << d.rejects[0].ToString();
  EXPECT_EQ(d.Str("event_id"), "evt-1");
  EXPECT_EQ(d.Int64("time"), 1790000000LL * 1000000 + 123456) << "nanoseconds truncate to micros";
  EXPECT_EQ(d.Str("tenant"), "acme");
  EXPECT_EQ(d.Str("app"), "agentd");
  EXPECT_EQ(d.Str("feature"), "summarise");
  EXPECT_EQ(d.Str("run_id"), "run-7");
  EXPECT_EQ(d.Str("correlation_id"), "corr-1");
  EXPECT_EQ(d.Str("causation_id"), "cause-1");
  EXPECT_EQ(d.Str("budget_id"), "budget-eu");
  EXPECT_EQ(d.Str("tags_json"), R"({"k":"v"})");
  EXPECT_EQ(d.Str("prompt_name"), "raw");
  EXPECT_EQ(d.Str("prompt_hash"), "sha256:abcdef");
  EXPECT_EQ(d.Str("alias"), "fast");
  EXPECT_EQ(d.Str("resolved_model"), "gpt-x-mini");
  EXPECT_TRUE(d.Bool("model_overridden"));
  EXPECT_EQ(d.Int64("input_tokens"), 1200);
  EXPECT_EQ(d.Int64("output_tokens"), 340);
  EXPECT_EQ(d.Int64("cached_tokens"), 100);
  EXPECT_EQ(d.Int64("reasoning_tokens"), 7);
  EXPECT_DOUBLE_EQ(d.Double("cost_usd"), 0.00421);
  EXPECT_EQ(d.Str("cost_source"), "computed");
  EXPECT_EQ(d.Int64("latency_ms"), 812);
  EXPECT_EQ(d.Str("provider_request_id"), "req_abc");
  EXPECT_TRUE(d.Bool("fallback_used"));
  EXPECT_EQ(d.Str("outcome"), "denied");
  EXPECT_EQ(d.Str("error_kind"), "policy");
  EXPECT_EQ(d.Str("policy_mode"), "enforce");
  EXPECT_EQ(d.Str("policy_violations"), R"(["dlp:ssn"])");
  EXPECT_EQ(d.Str("tool"), "search");
  EXPECT_EQ(d.Str("principal_subject"), "user:42");
  EXPECT_EQ(d.Str("principal_actor"), "agent:7");
  EXPECT_EQ(d.Str("principal_kind"), "PRINCIPAL_KIND_AGENT");
  EXPECT_EQ(d.Int32("chain_depth"), 2);
  EXPECT_EQ(d.Str("clearance_effective"), "CLEARANCE_INTERNAL");
  EXPECT_EQ(d.Str("compartments_effective"), R"(["financial","pii-contact"])");
  EXPECT_EQ(d.Str("redaction_plan"), "mask");
  EXPECT_EQ(d.Int32("redaction_count"), 3);
  EXPECT_EQ(d.Int32("disclosed_count"), 1);
  EXPECT_EQ(d.Str("error_detail"), "resolver failed");
  EXPECT_EQ(d.Str("execution_subject"), "runner:ci");
}

// principal_kind is a string on the wire, not an enum: its text must arrive unchanged.
TEST(Rows, PrincipalKindReachesTheRow) {
  Decoded d = DecodeBoth(Envelope::kEvent, MinimalEvent() + Len(63, "PRINCIPAL_KIND_SERVICE"));
  ASSERT_EQ(d.rows.rows(), 1u);
  EXPECT_EQ(d.Str("principal_kind"), "PRINCIPAL_KIND_SERVICE");
}

// A `null` in a JSON column breaks every json_extract a reader writes.
TEST(Rows, EmptyCollectionsAreEmptyJsonAndNeverNull) {
  Decoded d = DecodeBoth(Envelope::kEvent, MinimalEvent());
  ASSERT_EQ(d.rows.rows(), 1u);
  EXPECT_EQ(d.Str("tags_json"), "{}");
  EXPECT_EQ(d.Str("policy_violations"), "[]");
  EXPECT_EQ(d.Str("compartments_effective"), "[]");
}

// An absent usage must read as four zeros, not as a reject or garbage.
TEST(Rows, AMissingUsageIsFourZeros) {
  Decoded d = DecodeBoth(Envelope::kEvent, MinimalEvent());
  ASSERT_EQ(d.rows.rows(), 1u);
  for (const char* column :
       {"input_tokens", "output_tokens", "cached_tokens", "reasoning_tokens"}) {
    EXPECT_EQ(d.Int64(column), 0) << column;
  }
}

TEST(Rows, ABatchBecomesOneRowPerEvent) {
  garm::ledger::v1::Batch batch;
  for (const char* id : {"a", "b", "c"}) *batch.add_events() = FullEvent(id);
  Decoded d = DecodeBoth(Envelope::kBatch, batch.SerializeAsString());
  ASSERT_EQ(d.rows.rows(), 3u) << "each event of a Batch is one row";
  EXPECT_TRUE(d.rejects.empty());
  EXPECT_EQ(d.Str("event_id", 0), "a");
  EXPECT_EQ(d.Str("event_id", 1), "b");
  EXPECT_EQ(d.Str("event_id", 2), "c");
}

// Rows of one event must be byte-identical wherever they are written: Go's escaping, sorted keys.
TEST(Rows, TagsJsonSortsKeysByteWiseAndEscapesAsGoDoes) {
  const std::string bytes = MinimalEvent() + TagEntry("b", "<x>") + TagEntry("a", "1&2") +
                            TagEntry("B", "\xe2\x80\xa8") + TagEntry("\xc3\xa9", "\"q\"");
  Decoded d = DecodeBoth(Envelope::kEvent, bytes);
  ASSERT_EQ(d.rows.rows(), 1u);
  EXPECT_EQ(d.Str("tags_json"), R"({"B":"\u2028","a":"1\u00262","b":"\u003cx\u003e","é":"\"q\""})");
}

// The decoder reuses the previous row's JSON when the strings are the same; publishers shuffle map
// entries (Go randomises map order), so the reuse must hold across orders and must not outlive a
// change of any key or value, a repeated key, or a list that grows, shrinks or reorders.
TEST(Rows, RepeatedTagsAndListsAcrossEventsKeepTheirOwnText) {
  const std::vector<std::string> tags = {
      TagEntry("env", "prod") + TagEntry("team", "search"),
      TagEntry("team", "search") + TagEntry("env", "prod"),
      TagEntry("team", "search") + TagEntry("env", "dev"),
      TagEntry("team", "search") + TagEntry("env", "dev") + TagEntry("env", "prod"),
      "",
      TagEntry("", ""),
      TagEntry("", "") + TagEntry("", ""),
  };
  const std::vector<std::string> lists = {Len(51, "a") + Len(51, "b"),
                                          Len(51, "a") + Len(51, "b"),
                                          Len(51, "b") + Len(51, "a"),
                                          Len(51, "a"),
                                          "",
                                          Len(51, ""),
                                          Len(51, "") + Len(51, "")};
  std::string message;
  for (size_t i = 0; i < tags.size(); ++i) {
    const std::string id = std::to_string(i);
    message += Len(1, MinimalEvent(id) + tags[i] + lists[i]);
  }
  Decoded d = DecodeBoth(Envelope::kBatch, message);
  ASSERT_EQ(d.rows.rows(), tags.size());
  EXPECT_EQ(d.Str("tags_json", 1), R"({"env":"prod","team":"search"})");
  EXPECT_EQ(d.Str("tags_json", 2), R"({"env":"dev","team":"search"})");
  EXPECT_EQ(d.Str("tags_json", 3), R"({"env":"prod","team":"search"})");
  EXPECT_EQ(d.Str("tags_json", 4), "{}");
  EXPECT_EQ(d.Str("tags_json", 6), R"({"":""})");
  EXPECT_EQ(d.Str("policy_violations", 2), R"(["b","a"])");
  EXPECT_EQ(d.Str("policy_violations", 4), "[]");
  EXPECT_EQ(d.Str("policy_violations", 6), R"(["",""])");
}

// Long runs exercise the reuse's back-off (after a few misses it stops remembering every row):
// distinct tags, then a repeated set, then two sets alternating, then distinct again.
TEST(Rows, TagTextStaysRightThroughRunsOfDistinctAndRepeatedTags) {
  std::string message;
  for (int i = 0; i < 120; ++i) {
    const std::string n = std::to_string(i);
    std::string tags;
    if (i < 30 || i >= 90) {
      tags = TagEntry("run", n) + TagEntry("env", "prod");
    } else if (i < 60) {
      tags = TagEntry("env", "prod") + TagEntry("run", "same");
    } else {
      tags = TagEntry("run", i % 2 ? "odd" : "even");
    }
    const std::string list = i % 7 == 0 ? Len(66, n) : Len(66, "x");
    message += Len(1, MinimalEvent(n) + tags + list);
  }
  Decoded d = DecodeBoth(Envelope::kBatch, message);
  ASSERT_EQ(d.rows.rows(), 120u);
  EXPECT_EQ(d.Str("tags_json", 45), R"({"env":"prod","run":"same"})");
  EXPECT_EQ(d.Str("tags_json", 61), R"({"run":"odd"})");
  EXPECT_EQ(d.Str("tags_json", 100), R"({"env":"prod","run":"100"})");
  EXPECT_EQ(d.Str("compartments_effective", 98), R"(["98"])");
  EXPECT_EQ(d.Str("compartments_effective", 99), R"(["x"])");
}

// Lists keep wire order and duplicates: they are sequences, not sets.
TEST(Rows, ListsKeepWireOrderAndDuplicates) {
  const std::string bytes =
      MinimalEvent() + Len(51, "z") + Len(51, "a") + Len(51, "z") + Len(66, "tab\there");
  Decoded d = DecodeBoth(Envelope::kEvent, bytes);
  ASSERT_EQ(d.rows.rows(), 1u);
  EXPECT_EQ(d.Str("policy_violations"), R"(["z","a","z"])");
  EXPECT_EQ(d.Str("compartments_effective"), R"(["tab\there"])");
}

// Doubles travel bit for bit: a NaN or -0.0 cost must not be normalised.
TEST(Rows, DoublesKeepTheirExactBits) {
  const uint64_t negative_zero = 0x8000000000000000ULL;
  std::string fixed(8, '\0');
  for (int i = 0; i < 8; ++i) fixed[i] = static_cast<char>(negative_zero >> (8 * i));
  Decoded d = DecodeBoth(Envelope::kEvent, MinimalEvent() + Field(31, 1, fixed));
  ASSERT_EQ(d.rows.rows(), 1u);
  EXPECT_TRUE(std::signbit(d.Double("cost_usd"))) << "-0.0 lost its sign";
}

// One decoder drains a whole stream: nothing of one message may leak into the next row.
TEST(Rows, NothingOfOneMessageLeaksIntoTheNext) {
  WireDecoder decoder;
  row::RowBuffer rows(row::kLedgerColumns);
  std::vector<Reject> rejects;
  ASSERT_EQ(decoder.Decode(Envelope::kEvent, FullEvent("full").SerializeAsString(), rows, rejects),
            1u);
  ASSERT_EQ(decoder.Decode(Envelope::kEvent, MinimalEvent("bare"), rows, rejects), 1u);
  ASSERT_TRUE(rejects.empty());
  const auto column = [&](const char* name) {
    return rows.column(row::ColumnIndex(row::kLedgerColumns, name));
  };
  EXPECT_EQ(column("tenant").strings.at(1), "");
  EXPECT_EQ(column("tags_json").strings.at(1), "{}");
  EXPECT_EQ(column("compartments_effective").strings.at(1), "[]");
  EXPECT_EQ(column("input_tokens").int64s.at(1), 0);
  EXPECT_EQ(column("chain_depth").int32s.at(1), 0);
  EXPECT_EQ(column("model_overridden").bools.at(1), 0);
}

}  // namespace
}  // namespace sinkd::contract::testing
