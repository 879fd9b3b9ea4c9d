// EventSource draws good events: a pool of interleaved runs, each a short chain of calls by one
// principal of one tenant, app and feature, on a clock that walks across the options' span.
// Internal to src/traffic and its tests.
// Ownership: owns the vocabulary and run state that a drawn EventDraft's views point into; a
// draft stays valid until the next Draw call. Threads: one thread at a time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "traffic/event_draft.h"
#include "traffic/random.h"
#include "traffic/traffic_generator.h"
#include "traffic/vocabulary.h"

namespace sinkd::traffic {

class EventSource {
 public:
  // REQUIRES: options.Validate().ok().
  EventSource(const TrafficOptions& options, Rng rng);

  // Replaces `draft` with the next ledger event: one model call.
  void DrawLedger(EventDraft& draft);
  // Replaces `draft` with the next audit event: a tool step's intent or result, or a denial.
  void DrawAudit(EventDraft& draft);

 private:
  struct Run {
    int remaining = 0;
    std::string run_id, correlation_id, principal_subject, last_event_id;
    std::string_view tenant, app, feature, budget, principal_kind, principal_actor;
    std::string_view clearance, policy_mode, execution_subject;
    size_t feature_index = 0;
    size_t clearance_level = 0;  // index into kClearances
    int32_t chain_depth = 0;
    std::array<std::pair<std::string_view, std::string_view>, 8> tags;
    int tag_count = 0;
    std::array<std::string_view, 3> compartments;
    int compartment_count = 0;
    std::string_view pending_tool;  // a tool whose "intent" was written and whose result was not
  };

  Run& NextRun(bool audit);
  void StartRun(Run& run);
  void StartPrincipal(Run& run);
  void StartEvent(Run& run, EventDraft& draft);
  // Alias, model, usage, cost, latency and provider request id of a model call; returns the model.
  const ModelEntry& DrawModel(EventDraft& draft);
  void DrawUsage(EventDraft& draft, const ModelEntry& model);
  void DrawPolicy(const Run& run, EventDraft& draft);
  void DrawErrorDetail(const Run& run, EventDraft& draft, const ModelEntry& model);
  void DrawProviderRequestId(std::string_view provider, std::string& out);
  // The next event time in nanoseconds since the epoch.
  int64_t NextTimeNanos();
  // The clock's current position, without jitter, in nanoseconds since the epoch.
  int64_t BaseTimeNanos(int64_t index) const;

  TrafficOptions options_;
  Rng rng_;
  Vocabulary vocab_;
  WeightedChoice tenant_choice_, app_choice_, feature_choice_, alias_choice_;
  WeightedChoice tool_choice_, user_choice_, kind_choice_, clearance_choice_, policy_choice_;
  WeightedChoice outcome_choice_, error_choice_, denied_choice_, interrupted_choice_;
  WeightedChoice run_length_choice_, tag_count_choice_, compartment_count_choice_;
  std::vector<Run> runs_;
  std::string last_correlation_id_;
  int64_t events_ = 0;  // drawn so far; drives the clock
};

}  // namespace sinkd::traffic
