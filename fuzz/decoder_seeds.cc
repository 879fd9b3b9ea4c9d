// Writes the seed corpus of fuzz_decoder into the directory given as its only argument:
//   build/fuzz/fuzz/decoder_seeds fuzz/corpus/decoder
// Realistic events and batches (built with libprotobuf, so they are what a publisher sends) plus
// hand-made bytes for the corners the rules name: invalid UTF-8 in each kind of string, unknown
// fields of every wire type, merged messages, Timestamps at and past their range, JSON payloads.
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#include "garm/ledger/v1/event.pb.h"

namespace {

using garm::ledger::v1::Batch;
using garm::ledger::v1::Event;

Event FullEvent(int n) {
  Event e;
  e.set_event_id("evt-01J9Z3" + std::to_string(n));
  e.mutable_time()->set_seconds(1790000000 + n);
  e.mutable_time()->set_nanos(123456789);
  e.set_tenant("acme");
  e.set_app("agentd");
  e.set_feature("summarise");
  e.set_run_id("run-7");
  e.set_correlation_id("corr-1");
  e.set_causation_id("cause-1");
  e.set_budget_id("budget-eu");
  (*e.mutable_tags())["team"] = "search";
  (*e.mutable_tags())["env"] = "prod <&>";
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
  e.set_fallback_used(false);
  e.set_outcome("ok");
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
  e.set_error_detail("line1\nline2 \xe2\x80\xa8 \xf0\x9f\x98\x80");
  e.set_execution_subject("runner:ci");
  return e;
}

// Map entries in key order, so the committed corpus is what the generator writes, byte for byte.
std::string Deterministic(const google::protobuf::Message& message) {
  std::string out;
  {
    google::protobuf::io::StringOutputStream stream(&out);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    message.SerializeToCodedStream(&coded);
  }
  return out;
}

std::string Field(int number, int wire_type, const std::string& body) {
  std::string out;
  unsigned tag = static_cast<unsigned>(number) << 3 | static_cast<unsigned>(wire_type);
  while (tag >= 0x80) {
    out.push_back(static_cast<char>(tag | 0x80));
    tag >>= 7;
  }
  out.push_back(static_cast<char>(tag));
  if (wire_type == 2) {
    unsigned n = static_cast<unsigned>(body.size());
    while (n >= 0x80) {
      out.push_back(static_cast<char>(n | 0x80));
      n >>= 7;
    }
    out.push_back(static_cast<char>(n));
  }
  return out + body;
}

std::string Varint(uint64_t value) {
  std::string out;
  while (value >= 0x80) {
    out.push_back(static_cast<char>(value | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
  return out;
}

std::string Time(int64_t seconds, int32_t nanos) {
  return Field(2, 2,
               Field(1, 0, Varint(static_cast<uint64_t>(seconds))) +
                   Field(2, 0, Varint(static_cast<uint64_t>(static_cast<int64_t>(nanos)))));
}

std::string InBatch(const std::string& event) { return Field(1, 2, event); }

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: decoder_seeds <dir>\n");
    return 2;
  }
  const std::string dir = argv[1];
  auto write = [&](const std::string& name, const std::string& bytes) {
    std::ofstream(dir + "/" + name, std::ios::binary) << bytes;
  };
  const std::string full = Deterministic(FullEvent(1));
  const std::string minimal = Field(1, 2, "evt-min") + Field(2, 2, Field(1, 0, "\x01"));
  write("event_full", full);
  write("event_minimal", minimal);
  Batch batch;
  for (int i = 0; i < 3; ++i) *batch.add_events() = FullEvent(i);
  batch.mutable_events(1)->clear_event_id();
  write("batch_three_one_missing_id", Deterministic(batch));
  write("batch_empty_event", InBatch(""));
  write("batch_bad_utf8_tag_value",
        InBatch(full) +
            InBatch(Field(1, 2, "x") + Field(17, 2, Field(1, 2, "k") + Field(2, 2, "\xff"))));
  write("event_bad_utf8_list", minimal + Field(66, 2, "\xed\xa0\x80"));
  write("event_bad_utf8_key", minimal + Field(17, 2, Field(1, 2, "\xc0\x80")));
  write("event_unknown_every_wire_type",
        minimal + Field(90, 0, "\x96\x01") + std::string("\xd1\x05", 2) + "12345678" +
            Field(92, 2, "skip") + std::string("\xe3\x05", 2) + Field(1, 0, "\x01") +
            std::string("\xe4\x05", 2) + std::string("\xed\x05", 2) + "1234");
  write("event_merge", Field(1, 2, "a") + Field(2, 2, Field(1, 0, "\x05")) +
                           Field(2, 2, Field(2, 0, "\x07")) + Field(30, 2, Field(1, 0, "\x01")) +
                           Field(30, 2, Field(2, 0, "\x02")) +
                           Field(17, 2, Field(1, 2, "k") + Field(2, 2, "1")) +
                           Field(17, 2, Field(1, 2, "k") + Field(2, 2, "2")) + Field(1, 2, "b"));
  write("event_wrong_wire_types", minimal + Field(10, 0, "\x05") + Field(24, 2, "x") +
                                      Field(31, 0, "\x01") + Field(51, 0, "\x01"));
  write("event_time_max", Field(1, 2, "t") + Time(253402300799, 999999999));
  write("event_time_min_negative", Field(1, 2, "t") + Time(-62135596800, 0));
  write("event_time_past_max", Field(1, 2, "t") + Time(253402300800, 0));
  write("event_time_negative_nanos", Field(1, 2, "t") + Time(5, -1));
  write("event_time_zero_present", Field(1, 2, "t") + Field(2, 2, ""));
  write("event_json", "{\"event_id\":\"evt-1\",\"time\":\"2026-09-29T00:00:00Z\"}");
  write("batch_json", "[{\"event_id\":\"evt-1\"}]");
  write("batch_truncated", InBatch(full).substr(0, 40));
  return 0;
}
