// EventDraft is one generated garm.ledger.v1.Event before it is written, and EncodeEvent writes
// it in protobuf wire format by hand. Internal to src/traffic and its tests.
// Why not Event::SerializeToString: map entries come out in hash-table order (so `tags` would
// differ between protobuf versions and machines), libprotobuf refuses to write invalid UTF-8 (a
// bad-record kind we need), and building 40 fields of a message per event costs more than the
// rest of generation. EncodeEvent writes fields in field-number order with map entries sorted by
// key, which is what libprotobuf's deterministic serialisation produces; a test holds the two
// equal. Ownership: string_view members borrow from the generator (vocabulary and run state) and
// stay valid until its next call. Threads: one thread at a time.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace garm::ledger::v1 {
class Event;
}

namespace sinkd::traffic {

struct EventDraft {
  std::string event_id;  // empty: the field is not written (a missing_event_id record)
  bool has_time = true;  // false: no `time` field at all (a missing_time record)
  int64_t seconds = 0;
  int32_t nanos = 0;

  std::string_view tenant, app, feature;
  std::string_view run_id, correlation_id;
  std::string causation_id;
  std::string_view budget_id;
  std::array<std::pair<std::string_view, std::string_view>, 8> tags;  // sorted by key
  int tag_count = 0;

  std::string_view prompt_name, prompt_hash, alias, resolved_model;
  bool model_overridden = false;

  bool has_usage = true;  // false: no `usage` message at all (audit records of tool steps)
  int64_t input_tokens = 0, output_tokens = 0, cached_tokens = 0, reasoning_tokens = 0;
  double cost_usd = 0;
  std::string_view cost_source;
  int64_t latency_ms = 0;

  std::string provider_request_id;
  bool fallback_used = false;
  std::string_view outcome, error_kind, policy_mode;
  std::array<std::string_view, 2> violations;
  int violation_count = 0;

  std::string_view tool, principal_subject, principal_actor, principal_kind;
  int32_t chain_depth = 0;
  std::string_view clearance_effective;
  std::array<std::string_view, 3> compartments;
  int compartment_count = 0;
  std::string_view redaction_plan;
  int32_t redaction_count = 0, disclosed_count = 0;
  std::string error_detail;
  std::string_view execution_subject;

  // When non-zero, the string field with this number is written as `poison` instead of its value:
  // how an invalid_utf8 record is made, since the encoder itself never validates.
  int poisoned_field = 0;
  std::string poison;
};

// Resets every field to its default, keeping the capacity of the owned strings.
void ResetDraft(EventDraft& draft);

// Appends the wire form of `draft` to `out`.
void EncodeEvent(const EventDraft& draft, std::string& out);

// Replaces the contents of `event` with `draft`. REQUIRES: draft.poisoned_field == 0.
void FillEvent(const EventDraft& draft, garm::ledger::v1::Event& event);

// Appends a protobuf varint and a length-delimited field: the pieces a Batch is made of.
void AppendVarint(std::string& out, uint64_t value);
void AppendLengthDelimited(std::string& out, int field, std::string_view payload);

}  // namespace sinkd::traffic
