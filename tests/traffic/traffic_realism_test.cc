// The generated traffic must look like a plane's: documented cardinalities, skew, shares and
// shapes. Each test names what a lake, a benchmark or a demo would get wrong without it.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

#include "census.h"
#include "traffic/traffic_generator.h"

namespace sinkd::traffic {
namespace {

using garm::ledger::v1::Event;

constexpr int kEvents = 200'000;

TrafficOptions SampleOptions() {
  TrafficOptions options;
  options.seed = 3;
  options.expected_events = kEvents;
  return options;
}

// One sample of good ledger events shared by the suite: drawing and parsing it is the slow part.
class TrafficRealism : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    TrafficGenerator generator(SampleOptions());
    testing::Census census;
    census.keep_events = true;
    census.events.reserve(kEvents + 1'000);
    while (census.good < kEvents) {
      testing::CensusOfLedgerMessage(generator.NextLedgerMessage(), census);
    }
    census.events.resize(kEvents);
    sample_ = new std::vector<Event>(std::move(census.events));
  }
  static void TearDownTestSuite() {
    delete sample_;
    sample_ = nullptr;
  }
  static const std::vector<Event>& LedgerSample() { return *sample_; }

 private:
  static inline std::vector<Event>* sample_ = nullptr;
};

template <typename Key>
double Share(const std::map<Key, int64_t>& counts, const Key& key) {
  int64_t total = 0;
  for (const auto& [k, n] : counts) total += n;
  const auto it = counts.find(key);
  return it == counts.end() ? 0.0 : static_cast<double>(it->second) / static_cast<double>(total);
}

// Prevents a lake with too few or too many distinct values: partition counts, dictionary sizes
// and GROUP BY results in the demo and benchmarks depend on these ranges.
TEST_F(TrafficRealism, CardinalitiesStayWithinTheDocumentedRanges) {
  const auto& events = LedgerSample();
  ASSERT_EQ(events.size(), static_cast<size_t>(kEvents));
  std::set<std::string> tenants, apps, features, aliases, models, budgets, tools, runs, subjects;
  std::map<std::string, std::string> hash_of_prompt;
  for (const Event& e : events) {
    tenants.insert(e.tenant());
    apps.insert(e.app());
    features.insert(e.feature());
    aliases.insert(e.alias());
    models.insert(e.resolved_model());
    if (!e.budget_id().empty()) budgets.insert(e.budget_id());
    if (!e.tool().empty()) tools.insert(e.tool());
    runs.insert(e.run_id());
    subjects.insert(e.principal_subject());
    const auto [it, fresh] = hash_of_prompt.emplace(e.prompt_name(), e.prompt_hash());
    ASSERT_EQ(it->second, e.prompt_hash()) << "prompt " << e.prompt_name() << " has two hashes";
    ASSERT_TRUE(e.tags_size() <= 4) << "more than 4 tags";
    ASSERT_TRUE(e.compartments_effective_size() <= 3);
    ASSERT_TRUE(e.chain_depth() >= 0 && e.chain_depth() <= 3);
  }
  EXPECT_GE(tenants.size(), 190u) << "tenants: ~200 expected";
  EXPECT_LE(tenants.size(), 200u);
  EXPECT_EQ(apps.size(), 25u) << "apps: all 25 should appear in 200k events";
  EXPECT_GE(features.size(), 50u);
  EXPECT_LE(features.size(), 60u);
  EXPECT_GE(hash_of_prompt.size(), 90u) << "prompts: ~100 expected";
  EXPECT_LE(hash_of_prompt.size(), 100u);
  EXPECT_EQ(hash_of_prompt.at("raw"), "") << "a message-path call has no template hash";
  for (const auto& [name, hash] : hash_of_prompt) {
    if (name != "raw") {
      EXPECT_EQ(hash.size(), 64u) << name;
    }
  }
  EXPECT_EQ(aliases.size(), 8u);
  EXPECT_EQ(models.size(), 15u) << "every model must be reachable (some only by override)";
  EXPECT_GE(budgets.size(), 250u);
  EXPECT_LE(budgets.size(), 300u);
  EXPECT_GE(tools.size(), 38u);
  EXPECT_LE(tools.size(), 40u);
  EXPECT_LT(runs.size(), events.size() / 2) << "runs must group several events";
  EXPECT_GT(runs.size(), events.size() / 6);
  EXPECT_GT(subjects.size(), 1000u) << "principals: users per tenant plus agents and services";
}

// Prevents uniform traffic, which would make every partition the same size and hide the skew
// that real compaction, dictionary and partition-size decisions must handle.
TEST_F(TrafficRealism, TenantsAndAppsAreSkewedAsDocumented) {
  const auto& events = LedgerSample();
  std::map<std::string, int64_t> tenant_count, app_count;
  for (const Event& e : events) {
    ++tenant_count[e.tenant()];
    ++app_count[e.app()];
  }
  std::vector<int64_t> sorted;
  for (const auto& [tenant, n] : tenant_count) sorted.push_back(n);
  std::sort(sorted.rbegin(), sorted.rend());
  int64_t top10 = 0;
  for (int i = 0; i < 10; ++i) top10 += sorted[i];
  EXPECT_NEAR(static_cast<double>(top10) / kEvents, 0.41, 0.05) << "top 10 of 200 tenants";
  EXPECT_NEAR(Share(app_count, std::string("agentd")), 0.30, 0.03);
  EXPECT_LT(Share(app_count, std::string("eval-harness")), 0.005);
}

// Prevents outcome, token and cost columns that no realistic query would recognise: shares of
// outcomes, the lognormal token shapes, prices that follow tokens, and errors with details.
TEST_F(TrafficRealism, OutcomesTokensAndCostsHaveRealisticShapes) {
  const auto& events = LedgerSample();
  std::map<std::string, int64_t> outcomes;
  std::vector<int64_t> input, output;
  int64_t reasoning_zero = 0, computed = 0, overridden = 0, fallback = 0, runner = 0,
          violations = 0;
  for (const Event& e : events) {
    ++outcomes[e.outcome()];
    const auto& u = e.usage();
    ASSERT_TRUE(e.has_usage()) << "ledger events always carry usage";
    ASSERT_LE(u.cached_tokens(), u.input_tokens()) << "more cached than input tokens";
    ASSERT_GE(e.cost_usd(), 0.0);
    ASSERT_GT(e.latency_ms(), 0);
    if (e.outcome() == "ok") {
      input.push_back(u.input_tokens());
      output.push_back(u.output_tokens());
      ASSERT_TRUE(e.error_kind().empty() && e.error_detail().empty()) << "an ok call with an error";
    } else {
      ASSERT_FALSE(e.error_kind().empty()) << "a failed call without error_kind";
      ASSERT_FALSE(e.error_detail().empty()) << "a failed call without error_detail";
    }
    ASSERT_NE(e.outcome(), "intent") << "intent belongs to the audit stream only";
    reasoning_zero += u.reasoning_tokens() == 0;
    computed += e.cost_source() == "computed";
    if (e.cost_source() == "computed" && u.input_tokens() > 0) {
      ASSERT_GT(e.cost_usd(), 0.0);
    }
    if (e.cost_source().empty()) {
      ASSERT_EQ(e.cost_usd(), 0.0) << "a cost nobody computed";
    }
    overridden += e.model_overridden();
    fallback += e.fallback_used();
    runner += !e.execution_subject().empty();
    violations += e.policy_violations_size() > 0;
  }
  const double n = static_cast<double>(events.size());
  EXPECT_NEAR(Share(outcomes, std::string("ok")), 0.90, 0.01);
  EXPECT_NEAR(Share(outcomes, std::string("error")), 0.06, 0.005);
  EXPECT_NEAR(Share(outcomes, std::string("denied")), 0.02, 0.003);
  EXPECT_NEAR(Share(outcomes, std::string("interrupted")), 0.02, 0.003);
  std::sort(input.begin(), input.end());
  std::sort(output.begin(), output.end());
  const int64_t input_median = input[input.size() / 2], output_median = output[output.size() / 2];
  EXPECT_GT(input_median, 800) << "prompts are hundreds to thousands of tokens";
  EXPECT_LT(input_median, 3'000);
  EXPECT_GT(input[input.size() * 99 / 100], 10'000) << "the tail reaches tens of thousands";
  EXPECT_LT(output_median, input_median / 3) << "answers are shorter than prompts";
  EXPECT_GT(reasoning_zero / n, 0.8) << "reasoning tokens are mostly zero";
  EXPECT_GT(computed / n, 0.9) << "cost_source is mostly computed";
  EXPECT_LT(computed / n, 0.99) << "but not always: unpriced models exist";
  EXPECT_NEAR(overridden / n, 0.04, 0.005);
  EXPECT_NEAR(fallback / n, 0.024, 0.005);
  EXPECT_NEAR(runner / n, 0.30, 0.05) << "execution_subject: ~30% of calls come from a runner";
  EXPECT_GT(violations / n, 0.005);
  EXPECT_LT(violations / n, 0.05) << "policy violations are rare";
}

// Prevents a stream whose times all sit in one partition, lack sub-microsecond digits, or
// wander: times must fill the span, cross midnight, carry nanoseconds and be roughly ordered.
TEST_F(TrafficRealism, TimesFillTheSpanCrossMidnightAndCarryNanoseconds) {
  const TrafficOptions options = SampleOptions();
  const auto& events = LedgerSample();
  const int64_t start = options.start_unix_micros / 1'000'000;
  const int64_t end = start + options.span_micros / 1'000'000;
  std::set<int64_t> days;
  int64_t sub_micro = 0, previous_nanos = 0;
  for (const Event& e : events) {
    const int64_t seconds = e.time().seconds();
    ASSERT_GE(seconds, start);
    ASSERT_LT(seconds, end);
    days.insert(seconds / 86400);
    sub_micro += e.time().nanos() % 1000 != 0;
    const int64_t nanos = seconds * 1'000'000'000 + e.time().nanos();
    if (previous_nanos != 0) {
      ASSERT_GT(nanos - previous_nanos, -3'100'000'000) << "an event more than 3 s out of order";
    }
    previous_nanos = nanos;
  }
  EXPECT_EQ(days.size(), 2u) << "two days of span must give two date= partitions";
  EXPECT_GT(sub_micro, static_cast<int64_t>(events.size() * 99 / 100))
      << "nanosecond fractions are needed to exercise truncation to micros";
}

// Prevents runs that are not chains: events of a run share run_id and correlation_id, and each
// names the previous event of its run as its cause.
TEST_F(TrafficRealism, RunsAreCausalChainsOfSeveralEvents) {
  const auto& events = LedgerSample();
  std::unordered_map<std::string, const Event*> last_of_run;
  int64_t chained = 0;
  for (const Event& e : events) {
    const auto it = last_of_run.find(e.run_id());
    if (it == last_of_run.end()) {
      EXPECT_TRUE(e.causation_id().empty()) << "the first event of a run has no cause";
    } else {
      ASSERT_EQ(e.causation_id(), it->second->event_id()) << "causation is not the previous event";
      ASSERT_EQ(e.correlation_id(), it->second->correlation_id());
      ASSERT_EQ(e.tenant(), it->second->tenant()) << "a run changed tenant";
      ++chained;
    }
    last_of_run[e.run_id()] = &e;
  }
  EXPECT_GT(chained, kEvents / 2) << "most events should continue a run";
}

// Prevents an audit stream that looks like the ledger: audit records are tool steps written
// ahead as "intent" and then resolved, with no usage.
TEST_F(TrafficRealism, AuditRecordsAreToolStepsWithIntents) {
  TrafficGenerator generator(SampleOptions());
  std::map<std::string, int64_t> outcomes;
  for (int i = 0; i < 50'000; ++i) {
    Event e;
    ASSERT_TRUE(e.ParseFromString(generator.NextAuditMessage()));
    ++outcomes[e.outcome()];
    ASSERT_FALSE(e.tool().empty()) << "an audit record without a tool";
    ASSERT_FALSE(e.has_usage()) << "tool steps have no model usage";
  }
  EXPECT_NEAR(Share(outcomes, std::string("intent")), 0.485, 0.02);
  EXPECT_NEAR(Share(outcomes, std::string("ok")), 0.436, 0.02);
  EXPECT_GT(Share(outcomes, std::string("denied")), 0.02);
  EXPECT_GT(Share(outcomes, std::string("error")), 0.02);
  EXPECT_GT(Share(outcomes, std::string("interrupted")), 0.005);
}

}  // namespace
}  // namespace sinkd::traffic
