// Wire layout written here (proto3, garm/ledger/v1/event.proto): each present field is
//   tag = (field_number << 3) | wire_type  as a varint, then
//   wire type 0 (int32/int64/bool): the value as a varint;
//   wire type 1 (double):           8 bytes little-endian;
//   wire type 2 (string, message):  varint length, then the bytes.
// Fields are written in field-number order and proto3 defaults (0, false, "") are omitted, as
// libprotobuf does. `time` and `usage` are messages, present or absent as a whole; each tags entry
// is a nested message {1: key, 2: value}, entries sorted by key.
#include "traffic/event_draft.h"

#include <cassert>
#include <cstring>

#include "garm/ledger/v1/event.pb.h"

namespace sinkd::traffic {
namespace {

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2 };

// Worst-case bytes of everything but string contents: ~60 fields at a 2-byte tag and a 10-byte
// varint each, plus the nested headers of time, usage and 8 tags; 2048 leaves room to spare.
constexpr size_t kFramingBound = 2048;

size_t VarintSize(uint64_t value) {
  size_t n = 1;
  while (value >= 0x80) {
    value >>= 7;
    ++n;
  }
  return n;
}

// Writes into space reserved in advance, bumping a pointer: appending to a std::string a byte at
// a time was a third of all generation time.
class Writer {
 public:
  Writer(char* p, const EventDraft& d) : p_(p), d_(d) {}
  char* end() const { return p_; }

  void Varint(uint64_t value) {
    while (value >= 0x80) {
      *p_++ = static_cast<char>((value & 0x7F) | 0x80);
      value >>= 7;
    }
    *p_++ = static_cast<char>(value);
  }
  void Tag(int field, WireType type) { Varint((static_cast<uint64_t>(field) << 3) | type); }
  void Bytes(int field, std::string_view value) {
    Tag(field, kLengthDelimited);
    Varint(value.size());
    if (!value.empty()) std::memcpy(p_, value.data(), value.size());
    p_ += value.size();
  }
  void String(int field, std::string_view value) {
    if (field == d_.poisoned_field) value = d_.poison;
    if (!value.empty()) Bytes(field, value);
  }
  void Int(int field, int64_t value) {
    if (value == 0) return;
    Tag(field, kVarint);
    Varint(static_cast<uint64_t>(value));  // a negative int32/int64 takes 10 bytes, as in protobuf
  }
  void Bool(int field, bool value) {
    if (!value) return;
    Tag(field, kVarint);
    *p_++ = 1;
  }
  void Double(int field, double value) {
    uint64_t bits;
    std::memcpy(&bits, &value, sizeof(bits));
    if (bits == 0) return;  // proto3 omits +0.0 only; -0.0 has a bit set and is written
    Tag(field, kFixed64);
    for (int i = 0; i < 8; ++i) *p_++ = static_cast<char>(bits >> (8 * i));
  }

  void Time() {
    if (!d_.has_time) return;
    const uint64_t seconds = static_cast<uint64_t>(d_.seconds);
    const uint64_t nanos = static_cast<uint64_t>(d_.nanos);
    Tag(2, kLengthDelimited);
    Varint((seconds ? 1 + VarintSize(seconds) : 0) + (nanos ? 1 + VarintSize(nanos) : 0));
    Int(1, d_.seconds);
    Int(2, d_.nanos);
  }
  void Tags() {
    for (int i = 0; i < d_.tag_count; ++i) {
      const auto& [key, value] = d_.tags[i];
      // Map entries always carry both key and value, even empty ones, as libprotobuf writes them.
      Tag(17, kLengthDelimited);
      Varint(2 + VarintSize(key.size()) + key.size() + VarintSize(value.size()) + value.size());
      Bytes(1, key);
      Bytes(2, value);
    }
  }
  void Usage() {
    if (!d_.has_usage) return;
    const int64_t values[4] = {d_.input_tokens, d_.output_tokens, d_.cached_tokens,
                               d_.reasoning_tokens};
    size_t size = 0;
    for (int64_t v : values) size += v ? 1 + VarintSize(static_cast<uint64_t>(v)) : 0;
    Tag(30, kLengthDelimited);
    Varint(size);
    for (int i = 0; i < 4; ++i) Int(i + 1, values[i]);
  }

 private:
  char* p_;
  const EventDraft& d_;
};

size_t StringBytes(const EventDraft& d) {
  size_t n = d.event_id.size() + d.tenant.size() + d.app.size() + d.feature.size() +
             d.run_id.size() + d.correlation_id.size() + d.causation_id.size() +
             d.budget_id.size() + d.prompt_name.size() + d.prompt_hash.size() + d.alias.size() +
             d.resolved_model.size() + d.cost_source.size() + d.provider_request_id.size() +
             d.outcome.size() + d.error_kind.size() + d.policy_mode.size() + d.tool.size() +
             d.principal_subject.size() + d.principal_actor.size() + d.principal_kind.size() +
             d.clearance_effective.size() + d.redaction_plan.size() + d.error_detail.size() +
             d.execution_subject.size() + d.poison.size();
  for (int i = 0; i < d.tag_count; ++i) n += d.tags[i].first.size() + d.tags[i].second.size();
  for (int i = 0; i < d.violation_count; ++i) n += d.violations[i].size();
  for (int i = 0; i < d.compartment_count; ++i) n += d.compartments[i].size();
  return n;
}

}  // namespace

void AppendVarint(std::string& out, uint64_t value) {
  char buf[10];
  size_t n = 0;
  while (value >= 0x80) {
    buf[n++] = static_cast<char>((value & 0x7F) | 0x80);
    value >>= 7;
  }
  buf[n++] = static_cast<char>(value);
  out.append(buf, n);
}

void AppendLengthDelimited(std::string& out, int field, std::string_view payload) {
  AppendVarint(out, (static_cast<uint64_t>(field) << 3) | kLengthDelimited);
  AppendVarint(out, payload.size());
  out.append(payload);
}

void ResetDraft(EventDraft& d) {
  // Moving the owned strings out and back keeps their buffers: drafting allocates nothing.
  std::string id = std::move(d.event_id), cause = std::move(d.causation_id);
  std::string request = std::move(d.provider_request_id), detail = std::move(d.error_detail);
  std::string poison = std::move(d.poison);
  d = EventDraft{};
  for (std::string* s : {&id, &cause, &request, &detail, &poison}) s->clear();
  d.event_id = std::move(id);
  d.causation_id = std::move(cause);
  d.provider_request_id = std::move(request);
  d.error_detail = std::move(detail);
  d.poison = std::move(poison);
}

void EncodeEvent(const EventDraft& d, std::string& out) {
  const size_t start = out.size(), bound = StringBytes(d) + kFramingBound;
  out.resize(start + bound);
  Writer w(out.data() + start, d);
  w.String(1, d.event_id);
  w.Time();
  w.String(10, d.tenant);
  w.String(11, d.app);
  w.String(12, d.feature);
  w.String(13, d.run_id);
  w.String(14, d.correlation_id);
  w.String(15, d.causation_id);
  w.String(16, d.budget_id);
  w.Tags();
  w.String(20, d.prompt_name);
  w.String(21, d.prompt_hash);
  w.String(22, d.alias);
  w.String(23, d.resolved_model);
  w.Bool(24, d.model_overridden);
  w.Usage();
  w.Double(31, d.cost_usd);
  w.String(32, d.cost_source);
  w.Int(33, d.latency_ms);
  w.String(40, d.provider_request_id);
  w.Bool(41, d.fallback_used);
  w.String(42, d.outcome);
  w.String(43, d.error_kind);
  w.String(50, d.policy_mode);
  // Repeated strings are written even when empty; ours never are.
  for (int i = 0; i < d.violation_count; ++i) w.Bytes(51, d.violations[i]);
  w.String(60, d.tool);
  w.String(61, d.principal_subject);
  w.String(62, d.principal_actor);
  w.String(63, d.principal_kind);
  w.Int(64, d.chain_depth);
  w.String(65, d.clearance_effective);
  for (int i = 0; i < d.compartment_count; ++i) w.Bytes(66, d.compartments[i]);
  w.String(67, d.redaction_plan);
  w.Int(68, d.redaction_count);
  w.Int(69, d.disclosed_count);
  w.String(70, d.error_detail);
  w.String(71, d.execution_subject);
  const size_t written = static_cast<size_t>(w.end() - (out.data() + start));
  assert(written <= bound);
  out.resize(start + written);
}

void FillEvent(const EventDraft& d, garm::ledger::v1::Event& e) {
  assert(d.poisoned_field == 0 && "libprotobuf cannot hold invalid UTF-8");
  e.Clear();
  e.set_event_id(d.event_id);
  if (d.has_time) {
    e.mutable_time()->set_seconds(d.seconds);
    e.mutable_time()->set_nanos(d.nanos);
  }
  e.set_tenant(std::string(d.tenant));
  e.set_app(std::string(d.app));
  e.set_feature(std::string(d.feature));
  e.set_run_id(std::string(d.run_id));
  e.set_correlation_id(std::string(d.correlation_id));
  e.set_causation_id(d.causation_id);
  e.set_budget_id(std::string(d.budget_id));
  for (int i = 0; i < d.tag_count; ++i) {
    (*e.mutable_tags())[std::string(d.tags[i].first)] = std::string(d.tags[i].second);
  }
  e.set_prompt_name(std::string(d.prompt_name));
  e.set_prompt_hash(std::string(d.prompt_hash));
  e.set_alias(std::string(d.alias));
  e.set_resolved_model(std::string(d.resolved_model));
  e.set_model_overridden(d.model_overridden);
  if (d.has_usage) {
    auto* usage = e.mutable_usage();
    usage->set_input_tokens(d.input_tokens);
    usage->set_output_tokens(d.output_tokens);
    usage->set_cached_tokens(d.cached_tokens);
    usage->set_reasoning_tokens(d.reasoning_tokens);
  }
  e.set_cost_usd(d.cost_usd);
  e.set_cost_source(std::string(d.cost_source));
  e.set_latency_ms(d.latency_ms);
  e.set_provider_request_id(d.provider_request_id);
  e.set_fallback_used(d.fallback_used);
  e.set_outcome(std::string(d.outcome));
  e.set_error_kind(std::string(d.error_kind));
  e.set_policy_mode(std::string(d.policy_mode));
  for (int i = 0; i < d.violation_count; ++i) e.add_policy_violations(std::string(d.violations[i]));
  e.set_tool(std::string(d.tool));
  e.set_principal_subject(std::string(d.principal_subject));
  e.set_principal_actor(std::string(d.principal_actor));
  e.set_principal_kind(std::string(d.principal_kind));
  e.set_chain_depth(d.chain_depth);
  e.set_clearance_effective(std::string(d.clearance_effective));
  for (int i = 0; i < d.compartment_count; ++i) {
    e.add_compartments_effective(std::string(d.compartments[i]));
  }
  e.set_redaction_plan(std::string(d.redaction_plan));
  e.set_redaction_count(d.redaction_count);
  e.set_disclosed_count(d.disclosed_count);
  e.set_error_detail(d.error_detail);
  e.set_execution_subject(std::string(d.execution_subject));
}

}  // namespace sinkd::traffic
