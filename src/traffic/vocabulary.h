// The fixed vocabulary of generated traffic: apps, models and their prices, aliases, tools, error
// kinds, tags, clearances. Internal to src/traffic and its tests. Immutable, share freely.
// The numbers are not measurements of a real plane; they are chosen so that the lake looks like
// one: a handful of apps and tenants carry most rows (so partitions are unequal in size, as they
// are in production), most strings repeat (so dictionary encoding matters), and every column has
// both common and rare values.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "traffic/random.h"

namespace sinkd::traffic {

struct TrafficOptions;

// An app and its share of calls. agentd dominates, as the runner of every agent; the first five
// carry ~70% of calls, the last ten ~6% together.
struct AppEntry {
  std::string_view name;
  double weight;
};
inline constexpr std::array<AppEntry, 25> kApps = {{
    {"agentd", 30},         {"support-bot", 14},    {"search-api", 10},    {"billing-svc", 8},
    {"copilot-web", 7},     {"docs-assistant", 5},  {"checkout", 4},       {"crm-sync", 3},
    {"ingest-worker", 3},   {"analytics-svc", 2.5}, {"email-triage", 2},   {"code-review", 2},
    {"fraud-scan", 1.5},    {"onboarding", 1.2},    {"hr-portal", 1},      {"legal-review", 1},
    {"translate-svc", 0.9}, {"voice-gateway", 0.8}, {"sales-assist", 0.7}, {"data-catalog", 0.6},
    {"qa-bench", 0.5},      {"notebook", 0.4},      {"slack-bridge", 0.4}, {"ops-runbook", 0.3},
    {"eval-harness", 0.2},
}};

// A resolved model with list prices in USD per million tokens (public list prices of 2025, rounded;
// what matters is the spread of two orders of magnitude). A price of 0 means "not priced": the
// event gets cost 0 and an empty cost_source, as garmd does for a self-hosted model.
struct ModelEntry {
  std::string_view name;
  std::string_view provider;
  double input_per_mtok;
  double cached_per_mtok;
  double output_per_mtok;
  bool reasoning;              // may report reasoning tokens
  bool embedding;              // produces no output tokens
  double ms_per_output_token;  // decode speed, for latency
};
inline constexpr std::array<ModelEntry, 15> kModels = {{
    {"gpt-4o-2024-08-06", "openai", 2.50, 1.25, 10.00, false, false, 12},
    {"gpt-4o-mini-2024-07-18", "openai", 0.15, 0.075, 0.60, false, false, 7},
    {"o3-mini-2025-01-31", "openai", 1.10, 0.55, 4.40, true, false, 9},
    {"gpt-4.1-2025-04-14", "openai", 2.00, 0.50, 8.00, false, false, 11},
    {"gpt-4.1-mini-2025-04-14", "openai", 0.40, 0.10, 1.60, false, false, 7},
    {"claude-sonnet-4-20250514", "anthropic", 3.00, 0.30, 15.00, true, false, 14},
    {"claude-3-5-haiku-20241022", "anthropic", 0.80, 0.08, 4.00, false, false, 8},
    {"claude-opus-4-20250514", "anthropic", 15.00, 1.50, 75.00, true, false, 25},
    {"gemini-2.0-flash-001", "google", 0.10, 0.025, 0.40, false, false, 5},
    {"gemini-2.5-pro", "google", 1.25, 0.31, 10.00, true, false, 13},
    {"mistral-large-2411", "mistral", 2.00, 2.00, 6.00, false, false, 12},
    {"llama-3.1-70b-instruct", "together", 0.88, 0.88, 0.88, false, false, 10},
    {"llama-3.1-8b-instruct", "self-hosted", 0, 0, 0, false, false, 4},
    {"text-embedding-3-small", "openai", 0.02, 0, 0, false, true, 0},
    {"deepseek-r1", "deepseek", 0.55, 0.14, 2.19, true, false, 20},
}};

// An alias resolves to `primary` (index into kModels), or to `fallback` when the primary fails
// over. "cheap" is the self-hosted model, so ~4% of calls carry no computed cost.
struct AliasEntry {
  std::string_view name;
  double weight;
  int primary;
  int fallback;
};
inline constexpr std::array<AliasEntry, 8> kAliases = {{
    {"default", 30, 1, 6},
    {"fast", 20, 8, 1},
    {"smart", 20, 5, 3},
    {"reasoning", 8, 2, 14},
    {"embed", 8, 13, 13},
    {"cheap", 4, 12, 1},
    {"long-context", 5, 9, 3},
    {"premium", 5, 7, 0},
}};

// Tools an agent may call; drawn Zipf-skewed, so search and SQL dominate.
inline constexpr std::array<std::string_view, 40> kTools = {
    "web.search",        "sql.query",
    "kb.retrieve",       "docs.search",
    "http.request",      "fs.read",
    "vector.search",     "jira.search",
    "email.read",        "crm.lookup_contact",
    "slack.post",        "github.read_file",
    "python.run",        "web.fetch",
    "calendar.list",     "jira.create_issue",
    "docs.read",         "email.send",
    "shell.exec",        "fs.list",
    "github.comment",    "billing.invoice_lookup",
    "translate.text",    "slack.read",
    "jira.update_issue", "calendar.create_event",
    "crm.update_deal",   "ocr.extract",
    "github.create_pr",  "sql.execute",
    "fs.write",          "browser.navigate",
    "browser.click",     "git.commit",
    "ticket.close",      "image.generate",
    "billing.refund",    "payments.charge",
    "pager.trigger",     "secrets.read",
};

// Agents, for principal_actor on delegated calls and principal_subject of agent principals.
inline constexpr std::array<std::string_view, 16> kAgents = {
    "agent:triage-bot", "agent:code-reviewer",    "agent:research-assistant",
    "agent:sales-sdr",  "agent:invoice-matcher",  "agent:oncall-helper",
    "agent:doc-writer", "agent:qa-tester",        "agent:data-analyst",
    "agent:translator", "agent:scheduler",        "agent:refund-agent",
    "agent:kb-curator", "agent:security-scanner", "agent:planner",
    "agent:summarizer",
};

inline constexpr std::array<std::string_view, 3> kPrincipalKinds = {
    "PRINCIPAL_KIND_USER", "PRINCIPAL_KIND_AGENT", "PRINCIPAL_KIND_SERVICE"};
inline constexpr std::array<double, 3> kPrincipalKindWeights = {55, 30, 15};

inline constexpr std::array<std::string_view, 4> kClearances = {
    "CLEARANCE_PUBLIC", "CLEARANCE_INTERNAL", "CLEARANCE_CONFIDENTIAL", "CLEARANCE_RESTRICTED"};
inline constexpr std::array<double, 4> kClearanceWeights = {15, 55, 22, 8};

inline constexpr std::array<std::string_view, 8> kCompartments = {
    "finance", "hr", "legal", "eng", "sales", "health", "eu-data", "customer-pii"};

inline constexpr std::array<std::string_view, 4> kPolicyModes = {"enforce", "fail_closed",
                                                                 "monitor", "off"};
inline constexpr std::array<double, 4> kPolicyModeWeights = {60, 15, 15, 10};

inline constexpr std::array<std::string_view, 8> kViolations = {
    "dlp:ssn",   "dlp:credit_card",  "dlp:email",          "dlp:api_key",
    "pii:phone", "prompt_injection", "clearance:exceeded", "egress:domain"};

inline constexpr std::array<std::string_view, 5> kRedactionPlans = {
    "mask:pii", "mask:pii,secrets", "drop:attachments", "hash:emails", "tokenize:pan"};

// Tags: keys in sorted order (the wire order of a deterministically serialised map), each with
// a few values; some values carry '<', '&' and non-ASCII, which tags_json must escape.
struct TagKey {
  std::string_view key;
  std::array<std::string_view, 6> values;
  int value_count;
};
inline constexpr std::array<TagKey, 8> kTagKeys = {{
    {"cost_center", {"cc-1001", "cc-1002", "cc-2040", "cc-3300", "cc-7781"}, 5},
    {"customer", {"acme", "globex", "initech", "R&D <lab>", "Müller & Söhne"}, 5},
    {"env", {"prod", "staging", "dev"}, 3},
    {"experiment", {"exp-41-control", "exp-41-treatment", "exp-57-b"}, 3},
    {"region", {"us-east-1", "eu-west-1", "eu-central-1", "ap-southeast-2", "us-west-2"}, 5},
    {"release", {"2026.09.1", "2026.09.2", "2026.10.0-rc1"}, 3},
    {"team", {"platform", "growth", "support", "finance-eng", "équipe-données", "ml-infra"}, 6},
    {"tier", {"enterprise", "pro", "free"}, 3},
}};

// Error kinds per non-ok outcome, with weights. The details are written by WriteErrorDetail.
struct ErrorKindEntry {
  std::string_view kind;
  double weight;
};
inline constexpr std::array<ErrorKindEntry, 8> kErrorKinds = {{
    {"provider_timeout", 20},
    {"provider_unavailable", 18},
    {"rate_limited", 22},
    {"context_length_exceeded", 8},
    {"invalid_request", 10},
    {"content_filtered", 5},
    {"tool_failed", 12},
    {"stream_aborted", 5},
}};
inline constexpr std::array<ErrorKindEntry, 4> kDeniedKinds = {{
    {"policy_denied", 50},
    {"budget_exhausted", 25},
    {"clearance_insufficient", 15},
    {"compartment_mismatch", 10},
}};
inline constexpr std::array<ErrorKindEntry, 2> kInterruptedKinds = {{
    {"client_cancelled", 70},
    {"deadline_exceeded", 30},
}};

// The names that depend on the options' cardinalities, built once per generator. A prompt's
// hash is a function of its name alone, so it is stable across seeds, as a real template's is.
struct Vocabulary {
  std::vector<std::string> tenants;  // Zipf-ranked: tenants[0] is the busiest
  std::vector<std::string> features;
  std::vector<std::string> prompt_names;   // [0] is "raw"; [1..] are named templates
  std::vector<std::string> prompt_hashes;  // 64 hex digits; "" for "raw"
  std::vector<std::string> budgets;        // budgets[b] belongs to tenants[b % tenants.size()]
  std::vector<std::string> runners;        // execution subjects of agent runners

  static Vocabulary Build(const TrafficOptions& options);
};

}  // namespace sinkd::traffic
