#include "traffic/vocabulary.h"

#include <string>

#include "traffic/ids.h"
#include "traffic/traffic_generator.h"

namespace sinkd::traffic {
namespace {

// 20 stems x 10 suffixes = the 200 default tenants; beyond that a number is appended.
constexpr std::array<std::string_view, 20> kTenantStems = {
    "acme",     "globex",    "initech", "umbrella", "hooli",     "stark",     "wayne",
    "wonka",    "tyrell",    "soylent", "vandelay", "oscorp",    "gringotts", "monarch",
    "aperture", "cyberdyne", "dunder",  "massive",  "piedpiper", "blackmesa"};
constexpr std::array<std::string_view, 10> kTenantSuffixes = {
    "-labs",  "-corp",   "-health",    "-bank", "-retail",
    "-media", "-energy", "-logistics", "-edu",  "-gov"};

// 10 verbs x 6 objects = the 60 default features.
constexpr std::array<std::string_view, 10> kFeatureVerbs = {
    "summarize", "classify", "draft",  "extract", "translate",
    "answer",    "triage",   "review", "search",  "plan"};
constexpr std::array<std::string_view, 6> kFeatureObjects = {"ticket",  "email",        "contract",
                                                             "invoice", "pull-request", "meeting"};

constexpr std::array<std::string_view, 4> kBudgetPeriods = {"monthly", "research", "prod",
                                                            "sandbox"};

// Runner pools, as agentd and the agent-hosting apps deploy them: 24 execution subjects.
struct RunnerPool {
  std::string_view app;
  int size;
};
constexpr std::array<RunnerPool, 4> kRunnerPools = {
    {{"agentd", 12}, {"support-bot", 4}, {"copilot-web", 4}, {"code-review", 4}}};

std::string Numbered(std::string_view base, size_t round) {
  std::string name(base);
  if (round > 0) name.append("-").append(std::to_string(round + 1));
  return name;
}

uint64_t Fnv1a(std::string_view text) {
  uint64_t h = 0xCBF29CE484222325ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 0x100000001B3ULL;
  }
  return h;
}

std::string HexHash(std::string_view name) {
  uint64_t state = Fnv1a(name);
  std::string hex;
  for (int word = 0; word < 4; ++word) AppendHex(hex, SplitMix64(state), 16);
  return hex;
}

}  // namespace

Vocabulary Vocabulary::Build(const TrafficOptions& options) {
  Vocabulary v;
  const size_t stems = kTenantStems.size(), suffixes = kTenantSuffixes.size();
  for (size_t i = 0; i < static_cast<size_t>(options.tenants); ++i) {
    // Walk stems fastest, so that the busiest tenants do not all share one suffix.
    const size_t combo = i % (stems * suffixes);
    std::string base = std::string(kTenantStems[combo % stems]) +
                       std::string(kTenantSuffixes[(combo / stems + combo % stems) % suffixes]);
    v.tenants.push_back(Numbered(base, i / (stems * suffixes)));
  }
  const size_t verbs = kFeatureVerbs.size(), objects = kFeatureObjects.size();
  for (size_t i = 0; i < static_cast<size_t>(options.features); ++i) {
    std::string base = std::string(kFeatureVerbs[i % verbs]) + "-" +
                       std::string(kFeatureObjects[(i / verbs) % objects]);
    v.features.push_back(Numbered(base, i / (verbs * objects)));
  }
  v.prompt_names.push_back("raw");
  v.prompt_hashes.push_back("");
  for (size_t n = 1; n < static_cast<size_t>(options.prompts); ++n) {
    const size_t feature = (n - 1) % v.features.size();
    const size_t version = (n - 1) / v.features.size() + 1;
    v.prompt_names.push_back(v.features[feature] + "/v" + std::to_string(version));
    v.prompt_hashes.push_back(HexHash(v.prompt_names.back()));
  }
  for (size_t b = 0; b < static_cast<size_t>(options.budgets); ++b) {
    const size_t tenant = b % v.tenants.size(), round = b / v.tenants.size();
    const std::string period = round < kBudgetPeriods.size()
                                   ? std::string(kBudgetPeriods[round])
                                   : std::string("pool-").append(std::to_string(round));
    v.budgets.push_back(v.tenants[tenant] + ":" + period);
  }
  for (const RunnerPool& pool : kRunnerPools) {
    for (int k = 0; k < pool.size; ++k) {
      v.runners.push_back("runner:" + std::string(pool.app) + (k < 10 ? "-0" : "-") +
                          std::to_string(k));
    }
  }
  return v;
}

}  // namespace sinkd::traffic
