// `sinkd outbox migrate | status | retain`: the outbox's tables, its sinks' state, and pruning
// behind the lowest cursor. Each reads the same TOML file as `sinkd dispatch` (for the database
// URL and the configured sinks).
#include <algorithm>
#include <cstdio>

#include "base/duration.h"
#include "base/log.h"
#include "cli/command.h"
#include "config/config.h"
#include "outbox/pg.h"
#include "outbox/retention.h"
#include "outbox/schema.h"
#include "outbox/status.h"

namespace sinkd::cli {

namespace {

struct OutboxFlags {
  std::string config;
  bool json = false;
  std::string min_age;
  int batch = 5000;
};

Result<outbox::PgConn> ConnectFor(const config::Config& c, const char* what) {
  // A file may hold only the drains' sections; libpq would otherwise fall back to its defaults.
  if (c.postgres_url.empty()) {
    return Status::Refuse("INVALID_CONFIG: " + c.origin + ": no [postgres] table with the database url");
  }
  auto conn = outbox::PgConn::Connect(c.postgres_url, std::string("sinkd-outbox-") + what);
  if (!conn.ok()) return conn.status().WithContext(std::string("outbox ") + what);
  return conn;
}

Status RunMigrate(const OutboxFlags& flags) {
  SINKD_ASSIGN_OR_RETURN(config::Config c, config::LoadConfig(flags.config));
  SINKD_ASSIGN_OR_RETURN(outbox::PgConn conn, ConnectFor(c, "migrate"));
  SINKD_ASSIGN_OR_RETURN(outbox::SchemaReport report, outbox::MigrateSchema(conn));
  for (const outbox::TableCheck& t : report.tables) {
    const bool created =
        std::find(report.created.begin(), report.created.end(), t.table) != report.created.end();
    std::printf("%-22s %s\n", t.table.c_str(),
                created ? "created" : t.differences.empty() ? "ok" : "DIFFERS");
    for (const std::string& d : t.differences) std::printf("  differs: %s\n", d.c_str());
    for (const std::string& w : t.warnings) std::printf("  warning: %s\n", w.c_str());
  }
  const std::vector<std::string> diffs = report.Differences();
  if (!diffs.empty()) {
    std::string list;
    for (const std::string& d : diffs) list += "; " + d;
    return Status::Refuse("existing tables differ from the outbox schema" + list +
                          "; sinkd never alters them: fix them by hand, or point sinkd at a "
                          "schema of its own");
  }
  return Status::OK();
}

Status RunStatus(const OutboxFlags& flags) {
  SINKD_ASSIGN_OR_RETURN(config::Config c, config::LoadConfig(flags.config));
  SINKD_ASSIGN_OR_RETURN(outbox::PgConn conn, ConnectFor(c, "status"));
  std::vector<std::string> events, audit;
  for (const auto& s : c.event_sinks) events.push_back(s.id);
  for (const auto& s : c.audit_sinks) audit.push_back(s.id);
  SINKD_ASSIGN_OR_RETURN(auto status, outbox::ReadStatus(conn, events, audit));
  const std::string text = flags.json ? outbox::StatusJson(status) : outbox::FormatStatus(status);
  std::fputs(text.c_str(), stdout);
  return Status::OK();
}

Status RunRetain(const OutboxFlags& flags, Invocation& invocation) {
  auto min_age = ParseDuration(flags.min_age);
  if (!min_age.ok()) return invocation.Usage(min_age.status().WithContext("--min-age"));
  if (flags.batch < 1 || flags.batch > 1'000'000) {
    return invocation.Usage(Status::Refuse("--batch must be between 1 and 1000000"));
  }
  SINKD_ASSIGN_OR_RETURN(config::Config c, config::LoadConfig(flags.config));
  SINKD_ASSIGN_OR_RETURN(outbox::PgConn conn, ConnectFor(c, "retain"));
  outbox::RetentionOptions options;
  options.min_age = *min_age;
  options.batch = flags.batch;
  for (const auto& s : c.event_sinks) options.configured_sinks.push_back(s.id);
  Logger log(stderr);
  SINKD_ASSIGN_OR_RETURN(outbox::RetentionReport report, outbox::RetainOutbox(conn, options, log));
  if (!report.pruned) {
    std::printf("outbox retain: nothing deleted: %s\n", report.reason.c_str());
    return Status::OK();
  }
  std::printf("outbox retain: deleted %lld row(s) in %d batch(es) behind %s (%s); kept %lld "
              "younger than %s and %lld without a readable time\n",
              static_cast<long long>(report.deleted), report.batches,
              outbox::FormatCursor(report.floor).c_str(), report.floor_name.c_str(),
              static_cast<long long>(report.kept_young), FormatDuration(*min_age).c_str(),
              static_cast<long long>(report.kept_undated));
  return Status::OK();
}

}  // namespace

void AddOutboxCommand(CLI::App& root, Invocation& invocation) {
  CLI::App* outbox = AddParent(root, "outbox", "the PostgreSQL outbox: tables, sink status, retention");
  auto flags = std::make_shared<OutboxFlags>();
  const auto config_option = [&](CLI::App* cmd) {
    cmd->add_option("--config", flags->config, "the dispatcher's TOML configuration")->required();
  };
  CLI::App* migrate = outbox->add_subcommand(
      "migrate", "create the outbox tables that are missing; report, never alter, those that differ");
  config_option(migrate);
  migrate->callback([flags, &invocation] { invocation.run = [flags] { return RunMigrate(*flags); }; });

  CLI::App* status = outbox->add_subcommand(
      "status", "per sink: cursor, lag in events and age, lease holder, last error, dead letters");
  config_option(status);
  status->add_flag("--json", flags->json, "print a JSON array instead of text");
  status->callback([flags, &invocation] { invocation.run = [flags] { return RunStatus(*flags); }; });

  CLI::App* retain = outbox->add_subcommand(
      "retain", "delete outbox rows behind the lowest sink cursor and older than --min-age");
  config_option(retain);
  retain->add_option("--min-age", flags->min_age, "keep rows younger than this (e.g. 168h)")
      ->required();
  retain->add_option("--batch", flags->batch, "rows per DELETE")->capture_default_str();
  retain->callback([flags, &invocation] {
    invocation.run = [flags, &invocation] { return RunRetain(*flags, invocation); };
  });
}

}  // namespace sinkd::cli
