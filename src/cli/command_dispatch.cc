// `sinkd dispatch --config sinkd.toml`: the outbox's `sinks` worker. Builds every configured
// sink, refuses before reading anything if the configuration or the database is wrong, then
// runs one loop per sink until SIGINT/SIGTERM (a second signal exits at once), with the figures
// on --metrics-listen.
#include <unistd.h>

#include <cstdio>
#include <mutex>
#include <random>
#include <tuple>

#include <fmt/format.h>

#include "base/build_info.h"
#include "base/duration.h"
#include "base/log.h"
#include "base/shutdown_signals.h"
#include "cli/command.h"
#include "cli/config_flags.h"
#include "cli/destination_flags.h"
#include "cli/lake_flags.h"
#include "config/config.h"
#include "http/listener.h"
#include "table/key.h"
#include "outbox/dispatcher.h"
#include "outbox/schema.h"
#include "outbox/status.h"
#include "sinks/registry.h"

namespace sinkd::cli {

namespace {

struct DispatchFlags {
  std::string config;
  std::string metrics_listen;
  LogFlags log;  // [log] of the file where a flag is not given
};

std::string HolderName(const std::string& instance) {
  std::random_device rd;
  return fmt::format("{}-{:08x}", instance, rd());
}

outbox::DispatcherOptions OptionsFrom(const config::Config& c, const std::string& holder,
                                      const outbox::Clock& clock, Logger& log) {
  outbox::DispatcherOptions o;
  o.conninfo = c.postgres_url;
  o.holder = holder;
  o.batch_size = c.dispatch.batch_size;
  o.poll_interval = std::chrono::duration_cast<outbox::Duration>(c.dispatch.poll_interval);
  o.audit_interval = std::chrono::duration_cast<outbox::Duration>(c.dispatch.audit_interval);
  o.audit_batch = c.dispatch.audit_batch;
  o.lease.ttl = std::chrono::duration_cast<outbox::Duration>(c.dispatch.lease_ttl);
  o.lease.renew_every = o.lease.ttl / 5;
  o.lease.acquire_every = std::min<outbox::Duration>(std::chrono::seconds(1), o.lease.ttl / 10);
  o.deliver_timeout = std::chrono::duration_cast<outbox::Duration>(c.dispatch.deliver_timeout);
  o.clock = &clock;
  o.logger = &log;
  return o;
}

// What the file gives every sink besides its own entry (no destination factory: RunDispatch adds
// it).
sinks::SinkEnvironment SinkEnvironmentOf(const config::Config& c) {
  sinks::SinkEnvironment env;
  env.default_batch_size = c.dispatch.batch_size;
  env.catalog = sinks::FileCatalog(c);
  env.outbox_conninfo = c.postgres_url;
  return env;
}

// What dispatch refuses in the file before building a sink (which may connect).
Status CheckDispatchFile(const config::Config& c) {
  if (c.postgres_url.empty()) {
    return Status::Refuse("INVALID_CONFIG: " + c.origin +
                          ": no [postgres] table with the database url; dispatch needs it");
  }
  if (c.event_sinks.empty() && c.audit_sinks.empty()) {
    return Status::Refuse("INVALID_CONFIG: no [[sinks.events]] or [[sinks.audit]] entry: nothing "
                          "to dispatch to");
  }
  // Each lake sink's table catalog, as the registry resolves it (its entry, then [iceberg]).
  for (const auto* list : {&c.event_sinks, &c.audit_sinks}) {
    for (const config::SinkConfig& entry : *list) {
      if (entry.type != "lake") continue;
      config::OptionReader options(entry);
      SINKD_RETURN_IF_ERROR(sinks::LakeSinkCatalog(entry, options, SinkEnvironmentOf(c)).status());
    }
  }
  return Status::OK();
}

// `sinkd validate`: the database answers, and the tables dispatch needs are there and shaped so.
std::vector<Status> ReachDispatchDatabase(const config::Config& c) {
  auto conn = outbox::PgConn::Connect(c.postgres_url, "sinkd-validate");
  if (!conn.ok()) return {conn.status().WithContext("[postgres] url")};
  auto schema = outbox::InspectSchema(*conn);
  if (!schema.ok()) return {schema.status()};
  std::vector<Status> failures;
  std::vector<std::string> needed = {outbox::kLeaseTable};
  if (!c.event_sinks.empty()) needed.push_back(outbox::kOutboxTable);
  if (!c.audit_sinks.empty()) needed.push_back(outbox::kAuditTable);
  for (const std::string& table : needed) {
    if (!schema->Find(table)->present) {
      failures.push_back(Status::Refuse("table " + table +
                                        " is missing: `sinkd outbox migrate` creates it"));
    }
  }
  for (const std::string& difference : schema->Differences()) {
    failures.push_back(Status::Refuse(difference + " (dispatch refuses to start on it)"));
  }
  // A lake sink's sql catalog in another database: reached as its first commit would
  // (connecting only; its tables are created by that commit, and validate changes nothing).
  for (const auto* list : {&c.event_sinks, &c.audit_sinks}) {
    for (const config::SinkConfig& entry : *list) {
      if (entry.type != "lake") continue;
      config::OptionReader options(entry);
      auto format = options.String("table_format", "none");
      auto catalog = sinks::LakeSinkCatalog(entry, options, SinkEnvironmentOf(c));
      if (!format.ok() || *format != "iceberg" || !catalog.ok() || catalog->kind != "sql" ||
          catalog->url == c.postgres_url) {
        continue;
      }
      auto reached = outbox::PgConn::Connect(catalog->url, "sinkd-validate");
      if (!reached.ok()) {
        failures.push_back(reached.status().WithContext(entry.Where() +
                                                        ": the sql catalog's "
                                                        "database (iceberg_catalog_url)"));
      }
    }
  }
  return failures;
}

Status RunDispatch(const DispatchFlags& flags) {
  SINKD_ASSIGN_OR_RETURN(config::Config c, config::LoadConfig(flags.config));
  if (c.postgres_url.empty()) SINKD_RETURN_IF_ERROR(CheckDispatchFile(c));
  SINKD_RETURN_IF_ERROR(flags.log.Apply(&c));
  Logger log(stderr);
  const std::string instance =
      c.dispatch.instance.empty() ? table::DefaultInstanceId() : c.dispatch.instance;
  sinks::SinkEnvironment env = SinkEnvironmentOf(c);
  env.instance = instance;
  env.created_by = CreatedBy();
  env.make_destination = [&log](config::OptionReader& o) { return DestinationFromSinkOptions(o, &log); };
  const sinks::SinkRegistry registry = sinks::SinkRegistry::Builtin();
  std::vector<outbox::EventSinkEntry> event_sinks;
  std::vector<std::unique_ptr<sinks::AuditSink>> audit_sinks;
  std::vector<std::string> event_ids, audit_ids;
  for (const config::SinkConfig& entry : c.event_sinks) {
    SINKD_ASSIGN_OR_RETURN(sinks::BuiltEventSink built, registry.MakeEventSink(entry, env));
    event_sinks.push_back({std::move(built.sink), built.batch_size});
    event_ids.push_back(entry.id);
  }
  for (const config::SinkConfig& entry : c.audit_sinks) {
    SINKD_ASSIGN_OR_RETURN(auto sink, registry.MakeAuditSink(entry, env));
    audit_sinks.push_back(std::move(sink));
    audit_ids.push_back(entry.id);
  }
  SINKD_RETURN_IF_ERROR(CheckDispatchFile(c));
  // Installed before the first database call, so a SIGTERM during start-up is a clean stop too.
  ShutdownSignals::Install();
  outbox::SteadyClock clock;
  const std::string holder = HolderName(instance);
  log.AddContext("holder", holder);
  SINKD_ASSIGN_OR_RETURN(auto dispatcher,
                         outbox::Dispatcher::Make(OptionsFrom(c, holder, clock, log),
                                                  std::move(event_sinks), std::move(audit_sinks)));
  // The endpoint reads the database at scrape time on a connection of its own.
  std::mutex status_mu;
  std::optional<outbox::PgConn> status_conn;
  const auto status_connection = [&]() -> outbox::PgConn* {
    if (!status_conn || !status_conn->healthy()) {
      status_conn.reset();
      auto conn = outbox::PgConn::Connect(c.postgres_url, "sinkd-dispatch-status");
      if (conn.ok()) status_conn.emplace(std::move(conn).value());
    }
    return status_conn ? &*status_conn : nullptr;
  };
  http::Listener endpoint(
      [&]() -> std::string {
        std::lock_guard<std::mutex> lock(status_mu);
        outbox::PgConn* conn = status_connection();
        std::vector<outbox::SinkStatus> status;
        if (conn) {
          auto read = outbox::ReadStatus(*conn, event_ids, audit_ids);
          if (read.ok()) status = std::move(read).value();
        }
        return outbox::RenderPrometheus(status, dispatcher->Figures()) +
               fmt::format("# HELP sinkd_outbox_database_up whether the last scrape reached the "
                           "database\n# TYPE sinkd_outbox_database_up gauge\n"
                           "sinkd_outbox_database_up {}\n", status.empty() && conn == nullptr ? 0 : 1);
      },
      [&](std::string* why) {
        std::lock_guard<std::mutex> lock(status_mu);
        outbox::PgConn* conn = status_connection();
        if (conn == nullptr || !conn->Exec("SELECT 1").ok()) {
          *why = "database unreachable";
          return false;
        }
        *why = "database reachable";
        return true;
      });
  std::string listen = flags.metrics_listen;
  if (listen.empty()) listen = c.dispatch.metrics_listen;
  if (listen.empty() && c.settings.count("metrics.listen")) listen = c.settings.at("metrics.listen").text;
  if (!listen.empty()) SINKD_RETURN_IF_ERROR(endpoint.Start(listen));
  log.Info("sinkd dispatch started",
           {{"version", std::string_view(kVersion)},
            {"settings", flags.config},
            {"event_sinks", static_cast<int64_t>(event_ids.size())},
            {"audit_sinks", static_cast<int64_t>(audit_ids.size())},
            {"batch_size", c.dispatch.batch_size},
            {"lease_ttl", FormatDuration(c.dispatch.lease_ttl)},
            {"deliver_timeout", FormatDuration(c.dispatch.deliver_timeout)},
            {"metrics_listen", listen},
            {"metrics_port", endpoint.port()}});
  Status status = dispatcher->Run(ShutdownSignals::stop());
  endpoint.Stop();
  return status;
}

}  // namespace

void AddDispatchCommand(CLI::App& root, Invocation& invocation) {
  auto flags = std::make_shared<DispatchFlags>();
  CLI::App* cmd = root.add_subcommand(
      "dispatch",
      "deliver every committed outbox event and audit_events row to the configured sinks");
  cmd->add_option("--config", flags->config, "the TOML configuration ([postgres], [[sinks.*]])")
      ->required();
  cmd->add_option("--metrics-listen", flags->metrics_listen,
                  "serve /metrics, /healthz and /readyz on host:port (overrides "
                  "dispatch.metrics_listen)");
  flags->log.Add(*cmd);
  cmd->callback([flags, &invocation] {
    invocation.run = [flags] { return RunDispatch(*flags); };
  });
  // A file with a [postgres], [dispatch] or sinks table is meant for dispatch.
  invocation.file_checks.push_back(
      {"dispatch",
       [](const config::Config& c) {
         if (!c.postgres_url.empty() || !c.event_sinks.empty() || !c.audit_sinks.empty()) {
           return true;
         }
         for (const auto& [key, setting] : c.settings) {
           if (key.rfind("dispatch.", 0) == 0 || key.rfind("postgres.", 0) == 0) return true;
         }
         return false;
       },
       CheckDispatchFile, ReachDispatchDatabase});
}

}  // namespace sinkd::cli
