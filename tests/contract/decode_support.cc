#include "decode_support.h"

#include <gtest/gtest.h>

#include <bit>

#include "contract/reference_decoder.h"
#include "contract/wire_decoder.h"

namespace sinkd::contract::testing {
namespace {

int Column(std::string_view name) {
  const int index = row::ColumnIndex(row::kLedgerColumns, name);
  EXPECT_GE(index, 0) << "no column named " << name;
  return index;
}

std::string DescribeDifference(const Decoded& hand, const Decoded& ref) {
  if (hand.returned != ref.returned || hand.rows.rows() != ref.rows.rows()) {
    return "rows " + std::to_string(hand.rows.rows()) + " vs " + std::to_string(ref.rows.rows());
  }
  for (size_t c = 0; c < row::kLedgerColumns.columns.size(); ++c) {
    const row::ColumnBuffer& a = hand.rows.column(static_cast<int>(c));
    const row::ColumnBuffer& b = ref.rows.column(static_cast<int>(c));
    std::vector<uint64_t> da, db;
    for (double d : a.doubles) da.push_back(std::bit_cast<uint64_t>(d));
    for (double d : b.doubles) db.push_back(std::bit_cast<uint64_t>(d));
    if (a.strings.bytes != b.strings.bytes || a.strings.offsets != b.strings.offsets ||
        a.int64s != b.int64s || a.int32s != b.int32s || da != db || a.bools != b.bools) {
      return "column " + std::string(row::kLedgerColumns.columns[c].name);
    }
  }
  if (hand.rejects.size() != ref.rejects.size()) {
    return "rejects " + std::to_string(hand.rejects.size()) + " vs " +
           std::to_string(ref.rejects.size());
  }
  for (size_t i = 0; i < hand.rejects.size(); ++i) {
    const Reject& a = hand.rejects[i];
    const Reject& b = ref.rejects[i];
    if (a.reason != b.reason || a.index != b.index || a.payload != b.payload) {
      return "reject " + std::to_string(i) + ": " + a.ToString() + " vs " + b.ToString();
    }
  }
  return "";
}

}  // namespace

std::string Varint(uint64_t value) {
  std::string out;
  while (value >= 0x80) {
    out.push_back(static_cast<char>(value | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
  return out;
}

std::string Field(uint32_t number, uint32_t wire_type, std::string_view body) {
  std::string out = Varint(uint64_t{number} << 3 | wire_type);
  if (wire_type == 2) out += Varint(body.size());
  out += body;
  return out;
}

std::string TimeField(int64_t seconds, int32_t nanos) {
  return Len(2, VarintField(1, static_cast<uint64_t>(seconds)) +
                    VarintField(2, static_cast<uint64_t>(static_cast<int64_t>(nanos))));
}

std::string TagEntry(std::string_view key, std::string_view value) {
  return Len(17, Len(1, key) + Len(2, value));
}

garm::ledger::v1::Event FullEvent(const std::string& id) {
  garm::ledger::v1::Event e;
  e.set_event_id(id);
  e.mutable_time()->set_seconds(1790000000);
  e.mutable_time()->set_nanos(123456789);
  e.set_tenant("acme");
  e.set_app("agentd");
  e.set_feature("summarise");
  e.set_run_id("run-7");
  e.set_correlation_id("corr-1");
  e.set_causation_id("cause-1");
  e.set_budget_id("budget-eu");
  e.mutable_tags()->insert({"k", "v"});
  e.set_prompt_name("raw");
  e.set_prompt_hash("sha256:abcdef");
  e.set_alias("fast");
  e.set_resolved_model("gpt-x-mini");
  e.set_model_overridden(true);
  e.mutable_usage()->set_input_tokens(1200);
  e.mutable_usage()->set_output_tokens(340);
  e.mutable_usage()->set_cached_tokens(100);
  e.mutable_usage()->set_reasoning_tokens(7);
  e.set_cost_usd(0.00421);
  e.set_cost_source("computed");
  e.set_latency_ms(812);
  e.set_provider_request_id("req_abc");
  e.set_fallback_used(true);
  e.set_outcome("denied");
  e.set_error_kind("policy");
  e.set_policy_mode("enforce");
  e.add_policy_violations("dlp:ssn");
  e.set_tool("search");
  e.set_principal_subject("user:42");
  e.set_principal_actor("agent:7");
  e.set_principal_kind("PRINCIPAL_KIND_AGENT");
  e.set_chain_depth(2);
  e.set_clearance_effective("CLEARANCE_INTERNAL");
  e.add_compartments_effective("financial");
  e.add_compartments_effective("pii-contact");
  e.set_redaction_plan("mask");
  e.set_redaction_count(3);
  e.set_disclosed_count(1);
  e.set_error_detail("resolver failed");
  e.set_execution_subject("runner:ci");
  return e;
}

std::string MinimalEvent(std::string_view id) { return Len(1, id) + TimeField(1, 0); }

std::string_view Decoded::Str(std::string_view column, size_t row) const {
  return rows.column(Column(column)).strings.at(row);
}
int64_t Decoded::Int64(std::string_view column, size_t row) const {
  return rows.column(Column(column)).int64s.at(row);
}
int32_t Decoded::Int32(std::string_view column, size_t row) const {
  return rows.column(Column(column)).int32s.at(row);
}
double Decoded::Double(std::string_view column, size_t row) const {
  return rows.column(Column(column)).doubles.at(row);
}
bool Decoded::Bool(std::string_view column, size_t row) const {
  return rows.column(Column(column)).bools.at(row) != 0;
}

Decoded DecodeBoth(Envelope envelope, std::string_view message) {
  WireDecoder decoder;
  Decoded hand;
  hand.returned = decoder.Decode(envelope, message, hand.rows, hand.rejects);
  Decoded ref;
  ref.returned = DecodeWithLibprotobuf(envelope, message, ref.rows, ref.rejects);
  const std::string difference = DescribeDifference(hand, ref);
  EXPECT_EQ(difference, "") << "the hand-written decoder and the libprotobuf reference disagree, "
                               "so one of them breaks the wire contract";
  EXPECT_EQ(hand.returned, hand.rows.rows()) << "Decode must return the rows it appended";
  return hand;
}

}  // namespace sinkd::contract::testing
