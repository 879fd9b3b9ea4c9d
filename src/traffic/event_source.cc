#include "traffic/event_source.h"

#include <algorithm>
#include <cassert>

#include "traffic/error_detail.h"
#include "traffic/ids.h"

namespace sinkd::traffic {
namespace {

constexpr int64_t kNanosPerSecond = 1'000'000'000;
// Producers' clocks and garmd's batching reorder events by up to a few seconds.
constexpr int64_t kJitterNanos = 1'500'000'000;

constexpr std::array<std::string_view, 4> kLedgerOutcomes = {"ok", "error", "denied",
                                                             "interrupted"};
constexpr std::array<double, 4> kLedgerOutcomeWeights = {90, 6, 2, 2};
// Run lengths 1..12: most runs are one or two calls, agent loops run longer (mean ~3.7).
constexpr std::array<double, 12> kRunLengthWeights = {22, 20, 16, 12, 9, 7, 5, 3, 2, 1.5, 1.2, 1.3};
constexpr std::array<double, 5> kTagCountWeights = {15, 25, 30, 20, 10};
constexpr std::array<double, 4> kCompartmentCountWeights = {50, 30, 15, 5};
// chain_depth by principal kind: agents are usually delegated to, services rarely.
constexpr std::array<std::array<double, 4>, 3> kChainDepthWeights = {
    {{70, 22, 6, 2}, {30, 40, 20, 10}, {80, 15, 5, 0}}};
// Share of runs executed by an agent runner, by principal kind: ~30% overall.
constexpr std::array<double, 3> kRunnerShare = {0.12, 0.8, 0.1};

// Skewed towards the first of n: the smaller of two uniform draws.
size_t Skewed(Rng& rng, size_t n) {
  // Two statements: the order of two draws inside one expression is up to the compiler.
  const size_t first = rng.Below(n);
  return std::min(first, static_cast<size_t>(rng.Below(n)));
}

// Clamped before the cast: a double beyond int64's range cast to int64 is undefined.
int64_t RoundClamp(double value, int64_t lo, int64_t hi) {
  return static_cast<int64_t>(
      std::clamp(value + 0.5, static_cast<double>(lo), static_cast<double>(hi)));
}

// Calls `take(i)` for k distinct indices of [0, n), in increasing order (Knuth's algorithm S).
template <typename Take>
void SelectSorted(Rng& rng, size_t n, size_t k, Take take) {
  for (size_t i = 0; i < n && k > 0; ++i) {
    if (rng.Below(n - i) < k) {
      take(i);
      --k;
    }
  }
}

template <size_t N>
WeightedChoice Choice(const std::array<double, N>& weights, size_t n = N) {
  return WeightedChoice(std::span<const double>(weights.data(), std::min(n, N)));
}

}  // namespace

EventSource::EventSource(const TrafficOptions& options, Rng rng)
    : options_(options), rng_(rng), vocab_(Vocabulary::Build(options)) {
  assert(options.Validate().ok());
  tenant_choice_ = ZipfChoice(vocab_.tenants.size(), 1.0);
  std::array<double, kApps.size()> app_weights;
  for (size_t i = 0; i < kApps.size(); ++i) app_weights[i] = kApps[i].weight;
  app_choice_ = Choice(app_weights, options.apps);
  feature_choice_ = ZipfChoice(8, 0.5);
  std::array<double, kAliases.size()> alias_weights;
  for (size_t i = 0; i < kAliases.size(); ++i) alias_weights[i] = kAliases[i].weight;
  alias_choice_ = Choice(alias_weights);
  tool_choice_ = ZipfChoice(options.tools, 2.0);
  user_choice_ = ZipfChoice(options.users_per_tenant, 1.0);
  kind_choice_ = Choice(kPrincipalKindWeights);
  clearance_choice_ = Choice(kClearanceWeights);
  policy_choice_ = Choice(kPolicyModeWeights);
  outcome_choice_ = Choice(kLedgerOutcomeWeights);
  std::array<double, kErrorKinds.size()> error_weights;
  for (size_t i = 0; i < kErrorKinds.size(); ++i) error_weights[i] = kErrorKinds[i].weight;
  error_choice_ = Choice(error_weights);
  std::array<double, kDeniedKinds.size()> denied_weights;
  for (size_t i = 0; i < kDeniedKinds.size(); ++i) denied_weights[i] = kDeniedKinds[i].weight;
  denied_choice_ = Choice(denied_weights);
  std::array<double, kInterruptedKinds.size()> interrupted_weights;
  for (size_t i = 0; i < kInterruptedKinds.size(); ++i) {
    interrupted_weights[i] = kInterruptedKinds[i].weight;
  }
  interrupted_choice_ = Choice(interrupted_weights);
  run_length_choice_ = Choice(kRunLengthWeights);
  tag_count_choice_ = Choice(kTagCountWeights);
  compartment_count_choice_ = Choice(kCompartmentCountWeights);
  runs_.resize(options.active_runs);
}

int64_t EventSource::BaseTimeNanos(int64_t index) const {
  const int64_t start = options_.start_unix_micros * 1000, span = options_.span_micros * 1000;
  const __int128 offset =
      static_cast<__int128>(index % options_.expected_events) * span / options_.expected_events;
  return start + static_cast<int64_t>(offset);
}

int64_t EventSource::NextTimeNanos() {
  const int64_t start = options_.start_unix_micros * 1000;
  const int64_t end = start + options_.span_micros * 1000 - 1;
  int64_t t = BaseTimeNanos(events_++) + rng_.Between(-kJitterNanos, kJitterNanos);
  // Jitter past either end is reflected back inside: clamping would pile events onto the exact
  // start instant, with zero nanoseconds.
  if (t < start) t = start + (start - t);
  if (t > end) t = end - (t - end);
  return std::clamp(t, start, end);
}

EventSource::Run& EventSource::NextRun(bool audit) {
  Run& run = runs_[rng_.Below(runs_.size())];
  // An audit step written ahead is resolved even past the run's planned length; a ledger call
  // landing on a finished run starts a new one, leaving any intent unresolved, as a crash would.
  if (run.remaining == 0 && !(audit && !run.pending_tool.empty())) StartRun(run);
  if (run.remaining > 0) --run.remaining;
  return run;
}

void EventSource::StartRun(Run& run) {
  const size_t tenant = tenant_choice_.Draw(rng_);
  const size_t app = app_choice_.Draw(rng_);
  run.tenant = vocab_.tenants[tenant];
  run.app = kApps[app].name;
  // Each app draws from its own window of ~8 features, overlapping its neighbours'.
  run.feature_index = (app * 7 + feature_choice_.Draw(rng_)) % vocab_.features.size();
  run.feature = vocab_.features[run.feature_index];
  const size_t tenants = vocab_.tenants.size(), budgets = vocab_.budgets.size();
  const size_t owned = tenant < budgets ? (budgets - tenant + tenants - 1) / tenants : 0;
  run.budget = (owned == 0 || rng_.Chance(0.05))
                   ? std::string_view()
                   : std::string_view(vocab_.budgets[tenant + tenants * rng_.Below(owned)]);
  StartPrincipal(run);
  run.clearance_level = clearance_choice_.Draw(rng_);
  run.clearance = kClearances[run.clearance_level];
  run.policy_mode = kPolicyModes[policy_choice_.Draw(rng_)];
  run.compartment_count = 0;
  SelectSorted(rng_, kCompartments.size(), compartment_count_choice_.Draw(rng_),
               [&](size_t i) { run.compartments[run.compartment_count++] = kCompartments[i]; });
  run.tag_count = 0;
  SelectSorted(rng_, kTagKeys.size(), tag_count_choice_.Draw(rng_), [&](size_t i) {
    const TagKey& key = kTagKeys[i];
    run.tags[run.tag_count++] = {key.key, key.values[Skewed(rng_, key.value_count)]};
  });
  run.run_id.clear();
  AppendUuidV7(run.run_id, BaseTimeNanos(events_) / 1'000'000, rng_);
  // A request often fans out into several runs: ~15% share the previous run's correlation id.
  if (last_correlation_id_.empty() || !rng_.Chance(0.15)) {
    last_correlation_id_.clear();
    AppendHex(last_correlation_id_, rng_.Next(), 16);
    AppendHex(last_correlation_id_, rng_.Next(), 16);
  }
  run.correlation_id = last_correlation_id_;
  run.remaining = 1 + static_cast<int>(run_length_choice_.Draw(rng_));
  run.last_event_id.clear();
  run.pending_tool = {};
}

void EventSource::StartPrincipal(Run& run) {
  const size_t kind = kind_choice_.Draw(rng_);
  run.principal_kind = kPrincipalKinds[kind];
  run.principal_subject.clear();
  if (kind == 0) {
    run.principal_subject.append("user:").append(run.tenant).append("/u");
    run.principal_subject.append(std::to_string(1000 + user_choice_.Draw(rng_)));
  } else if (kind == 1) {
    run.principal_subject.append(kAgents[rng_.Below(kAgents.size())]);
  } else {
    run.principal_subject.append("svc:").append(run.app);
  }
  const auto& depth_weights = kChainDepthWeights[kind];
  double total = 0;
  for (double w : depth_weights) total += w;
  double target = rng_.Uniform() * total;
  run.chain_depth = 0;
  while (run.chain_depth < 3 && target >= depth_weights[run.chain_depth]) {
    target -= depth_weights[run.chain_depth++];
  }
  // A delegated call is made by an agent acting for the subject.
  run.principal_actor = run.chain_depth == 0 ? std::string_view(run.principal_subject)
                                             : kAgents[rng_.Below(kAgents.size())];
  run.execution_subject = rng_.Chance(kRunnerShare[kind])
                              ? std::string_view(vocab_.runners[rng_.Below(vocab_.runners.size())])
                              : std::string_view();
}

void EventSource::StartEvent(Run& run, EventDraft& d) {
  ResetDraft(d);
  const int64_t t = NextTimeNanos();
  d.seconds = t / kNanosPerSecond;
  d.nanos = static_cast<int32_t>(t % kNanosPerSecond);
  AppendUuidV7(d.event_id, t / 1'000'000, rng_);
  d.tenant = run.tenant;
  d.app = run.app;
  d.feature = run.feature;
  d.run_id = run.run_id;
  d.correlation_id = run.correlation_id;
  d.causation_id = run.last_event_id;
  run.last_event_id = d.event_id;
  d.budget_id = run.budget;
  d.tags = run.tags;
  d.tag_count = run.tag_count;
  d.principal_subject = run.principal_subject;
  d.principal_actor = run.principal_actor;
  d.principal_kind = run.principal_kind;
  d.chain_depth = run.chain_depth;
  d.clearance_effective = run.clearance;
  d.compartments = run.compartments;
  d.compartment_count = run.compartment_count;
  d.execution_subject = run.execution_subject;
  d.policy_mode = run.policy_mode;
}

void EventSource::DrawLedger(EventDraft& d) {
  Run& run = NextRun(/*audit=*/false);
  StartEvent(run, d);
  d.outcome = kLedgerOutcomes[outcome_choice_.Draw(rng_)];
  if (d.outcome == "error") d.error_kind = kErrorKinds[error_choice_.Draw(rng_)].kind;
  if (d.outcome == "denied") d.error_kind = kDeniedKinds[denied_choice_.Draw(rng_)].kind;
  if (d.outcome == "interrupted") {
    d.error_kind = kInterruptedKinds[interrupted_choice_.Draw(rng_)].kind;
  }
  // ~20% of calls are message-path calls with no template; the rest use one of their feature's
  // template versions.
  const size_t features = vocab_.features.size(), named = vocab_.prompt_names.size() - 1;
  const size_t versions =
      run.feature_index < named ? (named - run.feature_index + features - 1) / features : 0;
  const size_t prompt = (versions == 0 || rng_.Chance(0.2))
                            ? 0
                            : 1 + run.feature_index + features * rng_.Below(versions);
  d.prompt_name = vocab_.prompt_names[prompt];
  d.prompt_hash = vocab_.prompt_hashes[prompt];
  if (rng_.Chance(0.25)) d.tool = kTools[tool_choice_.Draw(rng_)];
  const ModelEntry& model = DrawModel(d);
  DrawPolicy(run, d);
  DrawErrorDetail(run, d, model);
}

void EventSource::DrawAudit(EventDraft& d) {
  Run& run = NextRun(/*audit=*/true);
  StartEvent(run, d);
  d.has_usage = false;
  if (!run.pending_tool.empty()) {
    // The result of the step whose intent was written ahead.
    d.tool = run.pending_tool;
    run.pending_tool = {};
    const double roll = rng_.Uniform();
    d.outcome = roll < 0.90 ? "ok" : roll < 0.97 ? "error" : "interrupted";
    if (d.outcome == "error") d.error_kind = rng_.Chance(0.75) ? "tool_failed" : "invalid_request";
    if (d.outcome == "interrupted") {
      d.error_kind = kInterruptedKinds[interrupted_choice_.Draw(rng_)].kind;
    }
    d.latency_ms = RoundClamp(rng_.LogNormal(180, 1.1), 1, 900'000);
  } else if (rng_.Chance(0.06)) {
    // Denied before anything ran: no intent is written.
    d.tool = kTools[tool_choice_.Draw(rng_)];
    d.outcome = "denied";
    d.error_kind = kDeniedKinds[denied_choice_.Draw(rng_)].kind;
    d.latency_ms = rng_.Between(1, 25);
  } else {
    d.tool = kTools[tool_choice_.Draw(rng_)];
    d.outcome = "intent";
    run.pending_tool = d.tool;
  }
  DrawPolicy(run, d);
  DrawErrorDetail(run, d, kModels[0]);
}

const ModelEntry& EventSource::DrawModel(EventDraft& d) {
  const AliasEntry& alias = kAliases[alias_choice_.Draw(rng_)];
  d.alias = alias.name;
  size_t model = alias.primary;
  if (rng_.Chance(0.04)) {
    // The caller pinned a model of its own; it is never the alias's own choice.
    model = (alias.primary + 1 + rng_.Below(kModels.size() - 1)) % kModels.size();
    d.model_overridden = true;
  } else if (alias.fallback != alias.primary && d.outcome != "denied" && rng_.Chance(0.025)) {
    model = alias.fallback;
    d.fallback_used = true;
  }
  const ModelEntry& m = kModels[model];
  d.resolved_model = m.name;
  DrawUsage(d, m);
  if (d.outcome == "denied") {
    d.latency_ms = rng_.Between(1, 40);  // refused before any provider call
  } else if (d.error_kind == "provider_timeout") {
    d.latency_ms = rng_.Between(30'000, 120'000);
  } else if (m.embedding) {
    d.latency_ms = RoundClamp(rng_.LogNormal(60, 0.5), 1, 900'000);
  } else {
    const double decode =
        static_cast<double>(d.output_tokens + d.reasoning_tokens) * m.ms_per_output_token;
    d.latency_ms = RoundClamp(rng_.LogNormal(450, 0.6) + decode, 1, 900'000);
  }
  // A provider request id exists once the provider answered, even with an error.
  const bool answered = d.outcome != "denied" && (d.input_tokens > 0 || rng_.Chance(0.5));
  if (answered) DrawProviderRequestId(m.provider, d.provider_request_id);
  return m;
}

void EventSource::DrawUsage(EventDraft& d, const ModelEntry& m) {
  if (d.outcome == "denied") return;  // usage present, all zero, no cost: nothing was sent
  // A failed call is billed only when the provider got as far as reading the prompt.
  const bool billed = d.outcome != "error" || d.error_kind == "stream_aborted" ||
                      d.error_kind == "content_filtered" || d.error_kind == "tool_failed";
  if (!billed) {
    if (m.input_per_mtok > 0) d.cost_source = "computed";
    return;
  }
  // Prompts: median 1,800 tokens, 90% between ~450 and ~7,500, tails into the 100k range.
  d.input_tokens = RoundClamp(rng_.LogNormal(m.embedding ? 350 : 1800, 1.1), 8, 400'000);
  if (!m.embedding) {
    // Answers are shorter: median 220 tokens; interrupted or failed streams deliver a part.
    d.output_tokens = RoundClamp(rng_.LogNormal(220, 0.9), 1, 16'384);
    if (d.outcome != "ok")
      d.output_tokens =
          RoundClamp(static_cast<double>(d.output_tokens) * rng_.Uniform(), 0, 16'384);
    // Prompt caching hits on ~45% of calls, covering 30-95% of the prompt.
    if (rng_.Chance(0.45)) {
      d.cached_tokens = RoundClamp(
          static_cast<double>(d.input_tokens) * (0.3 + 0.65 * rng_.Uniform()), 0, d.input_tokens);
    }
    if (m.reasoning && rng_.Chance(0.35))
      d.reasoning_tokens = RoundClamp(rng_.LogNormal(600, 1.0), 1, 32'000);
  }
  if (m.input_per_mtok > 0) {
    // garmd prices every call that reached a priced model, at zero when nothing was billed.
    d.cost_source = "computed";
    const double uncached = static_cast<double>(d.input_tokens - d.cached_tokens);
    const double cached = static_cast<double>(d.cached_tokens);
    const double produced = static_cast<double>(d.output_tokens + d.reasoning_tokens);
    d.cost_usd =
        (uncached * m.input_per_mtok + cached * m.cached_per_mtok + produced * m.output_per_mtok) /
        1e6;
  }
}

void EventSource::DrawPolicy(const Run& run, EventDraft& d) {
  if (d.error_kind == "policy_denied") {
    const size_t first = rng_.Below(kViolations.size());
    d.violations[d.violation_count++] = kViolations[first];
    if (rng_.Chance(0.25)) {
      d.violations[d.violation_count++] =
          kViolations[(first + 1 + rng_.Below(kViolations.size() - 1)) % kViolations.size()];
    }
  } else if (rng_.Chance(0.012)) {
    // Recorded but allowed: monitor mode, or a violation the plan redacted away.
    d.violations[d.violation_count++] = kViolations[Skewed(rng_, kViolations.size())];
  }
  const bool sensitive = run.clearance_level >= 2;
  if (rng_.Chance(sensitive ? 0.6 : 0.15)) {
    d.redaction_plan = kRedactionPlans[Skewed(rng_, kRedactionPlans.size())];
    d.redaction_count = static_cast<int32_t>(1 + Skewed(rng_, 12));
  }
  if (run.compartment_count > 0) d.disclosed_count = static_cast<int32_t>(rng_.Below(4));
}

void EventSource::DrawErrorDetail(const Run& run, EventDraft& d, const ModelEntry& m) {
  if (d.outcome == "ok" || d.outcome == "intent") return;
  DetailContext context;
  context.model = m.name;
  context.provider = m.provider;
  context.tool = d.tool;
  context.tenant = run.tenant;
  context.budget = run.budget;
  context.clearance = run.clearance;
  context.compartment = run.compartment_count > 0 ? run.compartments[0] : std::string_view();
  context.policy = run.policy_mode;
  context.violation = d.violation_count > 0 ? d.violations[0] : std::string_view("dlp:ssn");
  context.ms = d.latency_ms;
  context.tokens = d.input_tokens;
  WriteErrorDetail(d.error_kind, context, rng_, d.error_detail);
}

void EventSource::DrawProviderRequestId(std::string_view provider, std::string& out) {
  // Shaped like each provider's own ids; 128+ random bits, so unique in practice.
  if (provider == "openai") {
    out.append("chatcmpl-");
    AppendBase62(out, 29, rng_);
  } else if (provider == "anthropic") {
    out.append("msg_01");
    AppendBase62(out, 22, rng_);
  } else if (provider == "self-hosted") {
    out.append("cmpl-");
    AppendHex(out, rng_.Next(), 16);
    AppendHex(out, rng_.Next(), 16);
  } else {
    out.append(provider).append("-");
    AppendBase62(out, 24, rng_);
  }
}

}  // namespace sinkd::traffic
