// The Prometheus side of deploy/: the alert rules (`promtool check rules`, and their unit tests
// under `promtool test rules`), the Grafana dashboard's queries (parsed by promtool as PromQL),
// every metric name either uses is one a running sinkd serves, and the pages a running drain and
// dispatcher serve pass `promtool check metrics`.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "deploy/deploy_support.h"
#include "deploy/live_metrics.h"

namespace sinkd::testing {
namespace {

namespace fs = std::filesystem;

fs::path Rules() { return DeployDir() / "prometheus/sinkd-alerts.yml"; }
fs::path RuleTests() { return DeployDir() / "prometheus/sinkd-alerts.test.yml"; }
fs::path Dashboard() { return DeployDir() / "grafana/sinkd-dashboard.json"; }

std::vector<std::string> AlertNames() {
  std::vector<std::string> names;
  for (const std::string& line : Lines(ReadFile(Rules()))) {
    const size_t at = line.find("- alert: ");
    if (at != std::string::npos && line.find_first_not_of(' ') == at) {
      names.push_back(WordAt(line, at + 9));
    }
  }
  return names;
}

// Whether some `alertname: <alert>` case of the rule tests expects `expected` (what follows
// `exp_alerts:`, leading spaces ignored).
bool HasCase(const std::string& tests, const std::string& alert, const std::string& expected) {
  const std::string key = "alertname: " + alert + "\n";
  for (size_t at = tests.find(key); at != std::string::npos; at = tests.find(key, at + 1)) {
    size_t next = tests.find_first_not_of(' ', at + key.size());
    if (tests.compare(next, 11, "exp_alerts:") != 0) continue;
    next += 11;
    if (expected == "[]") {
      if (tests.compare(next, 3, " []") == 0) return true;
    } else if (tests[next] == '\n') {
      next = tests.find_first_not_of(' ', next + 1);
      if (tests.compare(next, expected.size(), expected) == 0) return true;
    }
  }
  return false;
}

TEST(Alerts, PromtoolAcceptsTheRules) {
  SINKD_REQUIRE_TOOL("promtool", "prometheus");
  const CommandResult r = RunCommand({"promtool", "check", "rules", Rules().string()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("SUCCESS: " + std::to_string(AlertNames().size()) + " rules found"),
            std::string::npos)
      << r.out;
  // What the issue asks to be alerted on, by name.
  const std::vector<std::string> alerts = AlertNames();
  for (const char* name :
       {"SinkdDrainDown", "SinkdDrainAbsent", "SinkdDispatchDown", "SinkdDispatchAbsent",
        "SinkdCompactDown", "SinkdCompactAbsent", "SinkdConsumerLagHigh",
        "SinkdOldestBufferedRowOld", "SinkdFlushFailures",
        "SinkdDeadLetterRate", "SinkdDeadLetterStreamFilling", "SinkdOutboxLag",
        "SinkdOutboxFailuresInARow",
        "SinkdCompactionBacklog", "SinkdCompactionPassFailures",
        "SinkdCompactionNoSuccessfulPass"}) {
    EXPECT_NE(std::find(alerts.begin(), alerts.end(), name), alerts.end()) << name;
  }
}

// Each alert has a case where it fires (labels and annotations as an operator sees them) and
// the healthy cases where it must not.
TEST(Alerts, EveryAlertFiresOnItsTroubleAndStaysQuietOtherwise) {
  SINKD_REQUIRE_TOOL("promtool", "prometheus");
  const CommandResult r = RunCommand({"promtool", "test", "rules", RuleTests().string()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("SUCCESS"), std::string::npos) << r.out << r.err;
  const std::string tests = ReadFile(RuleTests());
  const std::vector<std::string> alerts = AlertNames();
  ASSERT_GE(alerts.size(), 10u);
  for (const std::string& alert : alerts) {
    EXPECT_TRUE(HasCase(tests, alert, "- exp_labels:")) << alert << " has no case where it fires";
    EXPECT_TRUE(HasCase(tests, alert, "[]")) << alert << " has no case where it stays quiet";
  }
}

// sinkd_up and every other sinkd_* series vanish with the process, so only Prometheus's own `up`
// can page for a drain that died or crash-loops, and only absent() for a target that left the
// scrape configuration: each job the README's scrape_configs names has both rules.
TEST(Alerts, EveryJobHasARuleForADeadProcessAndOneForAVanishedTarget) {
  const std::string rules = ReadFile(Rules());
  const std::string readme = ReadFile(SourceDir() / "README.md");
  for (const std::string job : {"sinkd", "sinkd-dispatch", "sinkd-compact"}) {
    EXPECT_NE(readme.find("job_name: " + job + "\n"), std::string::npos)
        << "the README's scrape_configs do not name job " << job;
    EXPECT_NE(rules.find("expr: avg_over_time(up{job=\"" + job + "\"}[10m]) < 0.9\n"),
              std::string::npos)
        << "no rule fires when a target of job " << job << " stops answering";
    EXPECT_NE(rules.find("expr: absent(up{job=\"" + job + "\"})\n"), std::string::npos)
        << "no rule fires when job " << job << " has no target left";
  }
}

// An alert that pages at night says where to read what to do: every rule has a runbook_url, on
// the installed README unless Prometheus names another base, whose anchor is a README heading.
TEST(Alerts, EveryAlertLinksARunbookThatIsAReadmeHeading) {
  std::set<std::string> anchors;
  for (const std::string& line : Lines(ReadFile(SourceDir() / "README.md"))) {
    const size_t text = line.find_first_not_of('#');
    if (text != std::string::npos && text > 0 && line[text] == ' ') {
      anchors.insert(HeadingAnchor(line.substr(text + 1)));
    }
  }
  ASSERT_TRUE(anchors.count("running-under-systemd")) << "the premise: headings are read";
  const std::string prefix =
      "runbook_url: '{{ or $externalLabels.runbook_base_url "
      "\"file:///usr/share/doc/sinkd/README.md\" }}#";
  const std::vector<std::string> lines = Lines(ReadFile(Rules()));
  size_t alerts = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].find("- alert: ") == std::string::npos) continue;
    ++alerts;
    const std::string alert = WordAt(lines[i], lines[i].find(": ") + 2);
    std::string anchor;
    for (size_t j = i + 1; j < lines.size() && lines[j].find("- alert: ") == std::string::npos;
         ++j) {
      const size_t at = lines[j].find(prefix);
      if (at != std::string::npos) anchor = WordAt(lines[j], at + prefix.size(), "-");
    }
    EXPECT_FALSE(anchor.empty()) << alert << " has no runbook_url";
    EXPECT_TRUE(anchor.empty() || anchors.count(anchor))
        << alert << "'s runbook #" << anchor << " is no README heading";
  }
  EXPECT_EQ(alerts, AlertNames().size());
}

// Grafana's variables replaced by values, every panel and variable query goes through promtool
// as a recording rule: a query Prometheus would refuse fails here.
TEST(Dashboard, EveryPanelQueryIsPromQlThatPromtoolParses) {
  SINKD_REQUIRE_TOOL("promtool", "prometheus");
  const nlohmann::json dash = nlohmann::json::parse(ReadFile(Dashboard()));
  EXPECT_EQ(dash.at("uid"), "sinkd-overview");
  std::vector<std::string> exprs;
  std::set<int> ids;
  for (const nlohmann::json& panel : dash.at("panels")) {
    EXPECT_TRUE(ids.insert(panel.at("id").get<int>()).second)
        << "duplicate panel id " << panel["id"];
    EXPECT_TRUE(panel.contains("gridPos")) << panel["title"];
    if (panel.at("type") == "row") continue;
    EXPECT_EQ(panel.at("datasource").at("uid"), "${datasource}") << panel["title"];
    ASSERT_FALSE(panel.at("targets").empty()) << panel["title"];
    for (const nlohmann::json& target : panel.at("targets")) exprs.push_back(target.at("expr"));
  }
  ASSERT_GE(exprs.size(), 25u);
  std::string rules = "groups:\n  - name: dashboard\n    rules:\n";
  for (size_t i = 0; i < exprs.size(); ++i) {
    std::string e = ReplaceAll(exprs[i], "$__rate_interval", "5m");
    for (const char* variable :
         {"$compact_job", "$dispatch_job", "$job", "$instance", "$origin", "$sink"}) {
      e = ReplaceAll(e, variable, ".*");
    }
    ASSERT_EQ(e.find('$'), std::string::npos) << "an unknown variable in " << exprs[i];
    rules += "      - record: dashboard:query_" + std::to_string(i) +
             "\n        expr: " + nlohmann::json(e).dump() + "\n";
  }
  TempDir tmp;
  WriteFile(tmp / "dashboard-rules.yml", rules);
  const CommandResult r =
      RunCommand({"promtool", "check", "rules", (tmp / "dashboard-rules.yml").string()});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err << rules;
}

// A misspelt or renamed metric in an alert is an alert that never fires: every sinkd_ name the
// rules, their tests and the dashboard mention is on the page of a running drain, dispatcher or
// compactor.
TEST(MetricNames, EveryNameTheAlertsAndTheDashboardUseIsOneSinkdServes) {
  const std::string drain = ScrapeLiveDrain();
  ASSERT_FALSE(drain.empty());
  const std::string dispatch = ScrapeLiveDispatch();
  ASSERT_FALSE(dispatch.empty());
  const std::string compact = ScrapeLiveCompact();
  ASSERT_FALSE(compact.empty());
  std::set<std::string> served = ExposedNames(drain);
  served.merge(ExposedNames(dispatch));
  served.merge(ExposedNames(compact));
  ASSERT_GE(served.size(), 30u);
  for (const fs::path& file : {Rules(), RuleTests(), Dashboard()}) {
    const std::set<std::string> used = MentionedNames(ReadFile(file));
    EXPECT_GE(used.size(), 10u) << file;
    for (const std::string& name : used) {
      EXPECT_TRUE(served.count(name)) << file.filename() << " uses " << name
                                      << ", which no drain, dispatcher or compactor serves";
    }
  }
}

// The metrics renamed to one convention (timestamps end in _timestamp_seconds, a histogram of rows
// is sinkd_flush_rows, a counter says what it counts): a dashboard or rule still on an old name
// shows nothing, so no page serves an old name any more, and the upgrade notes of the README and
// the CHANGELOG list every rename, old → new.
TEST(MetricNames, EveryRenameIsServedUnderItsNewNameOnlyAndListedForTheUpgrade) {
  const std::vector<std::pair<std::string, std::string>> renames = {
      {"sinkd_compact_last_pass_success_unix_seconds",
       "sinkd_compact_last_pass_success_timestamp_seconds"},
      {"sinkd_rows_per_flush", "sinkd_flush_rows"},
      {"sinkd_retries_total", "sinkd_redeliveries_total"}};
  std::set<std::string> served = ExposedNames(ScrapeLiveDrain());
  served.merge(ExposedNames(ScrapeLiveCompact()));
  ASSERT_GE(served.size(), 30u);
  // A note wrapped at the column limit reads as one line.
  const auto joined = [](const std::string& text) {
    std::string out;
    for (const std::string& line : Lines(text)) {
      const size_t start = line.find_first_not_of(' ');
      out += (start == std::string::npos ? "" : line.substr(start)) + " ";
    }
    return out;
  };
  const std::string readme = joined(ReadFile(SourceDir() / "README.md"));
  const std::string changelog = joined(ReadFile(SourceDir() / "CHANGELOG.md"));
  for (const auto& [old_name, new_name] : renames) {
    EXPECT_TRUE(served.count(new_name)) << new_name;
    EXPECT_FALSE(served.count(old_name)) << old_name;
    const std::string note = "`" + old_name + "` → `" + new_name + "`";
    EXPECT_NE(readme.find(note), std::string::npos) << "the README does not list " << note;
    EXPECT_NE(changelog.find(note), std::string::npos) << "the CHANGELOG does not list " << note;
  }
  for (const std::string& name : served) {
    EXPECT_TRUE(name.find("_unix_") == std::string::npos && name.find("_per_") == std::string::npos)
        << name << " breaks the naming convention";
  }
}

// What every page carries whichever command serves it (metrics/process_metrics.h): the build and
// the standard process_* figures, unlabelled, each once.
void ExpectBuildAndProcessMetrics(const std::string& page) {
  const std::set<std::string> names = ExposedNames(page);
  for (const char* name :
       {"sinkd_build_info", "process_cpu_seconds_total", "process_resident_memory_bytes",
        "process_virtual_memory_bytes", "process_open_fds", "process_max_fds",
        "process_start_time_seconds"}) {
    EXPECT_TRUE(names.count(name)) << name << "\n" << page;
  }
  EXPECT_NE(page.find("\nsinkd_build_info{version=\""), std::string::npos) << page;
  EXPECT_NE(page.find("\nprocess_open_fds "), std::string::npos) << page;
}

TEST(LiveMetrics, ADrainsMetricsPagePassesPromtoolCheckMetrics) {
  SINKD_REQUIRE_TOOL("promtool", "prometheus");
  const std::string page = ScrapeLiveDrain();
  ASSERT_FALSE(page.empty());
  const CommandResult r = RunCommand({"promtool", "check", "metrics"}, page);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err << page;
  EXPECT_EQ(r.out + r.err, "") << "promtool's lint findings:\n" << r.out << r.err;
  EXPECT_NE(page.find("sinkd_flush_duration_seconds_bucket{origin=\"ledger\",le=\"+Inf\"} "),
            std::string::npos)
      << page;
  ExpectBuildAndProcessMetrics(page);
}

TEST(LiveMetrics, ADispatchersMetricsPagePassesPromtoolCheckMetrics) {
  SINKD_REQUIRE_TOOL("promtool", "prometheus");
  const std::string page = ScrapeLiveDispatch();
  ASSERT_FALSE(page.empty());
  const CommandResult r = RunCommand({"promtool", "check", "metrics"}, page);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err << page;
  EXPECT_EQ(r.out + r.err, "") << "promtool's lint findings:\n" << r.out << r.err;
  ExpectBuildAndProcessMetrics(page);
}

// The names of design §5 (and the failed partitions), each labelled with its table, on the page promtool lints clean.
TEST(LiveMetrics, ACompactorsMetricsPagePassesPromtoolCheckMetrics) {
  SINKD_REQUIRE_TOOL("promtool", "prometheus");
  const std::string page = ScrapeLiveCompact();
  ASSERT_FALSE(page.empty());
  const CommandResult r = RunCommand({"promtool", "check", "metrics"}, page);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err << page;
  EXPECT_EQ(r.out + r.err, "") << "promtool's lint findings:\n" << r.out << r.err;
  const std::set<std::string> names = ExposedNames(page);
  for (const char* name :
       {"sinkd_compact_passes_total", "sinkd_compact_pass_failures_total",
        "sinkd_compact_partitions_failed_total", "sinkd_compact_outputs_total", "sinkd_compact_inputs_deleted_total",
        "sinkd_compact_rows_in_total", "sinkd_compact_rows_out_total",
        "sinkd_compact_duplicates_dropped_total", "sinkd_compact_bytes_written_total",
        "sinkd_compact_partitions_pending", "sinkd_compact_last_pass_success_timestamp_seconds"}) {
    EXPECT_TRUE(names.count(name)) << name << "\n" << page;
    EXPECT_NE(page.find(std::string("\n") + name + "{table=\"ledger\"} "), std::string::npos)
        << name << " without its table label\n" << page;
  }
  ExpectBuildAndProcessMetrics(page);
}

}  // namespace
}  // namespace sinkd::testing
