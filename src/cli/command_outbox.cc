// `sinkd outbox migrate | status | retain | dead list | dead replay`: the outbox's tables, its
// sinks' state, pruning behind the lowest cursor, and the event sinks' dead letters re-inserted
// (outbox/dead_letters.h; a dry run unless --yes, as `sinkd dead replay`). Each reads the same
// TOML file as `sinkd dispatch` (for the database URL and the configured sinks).
#include <algorithm>
#include <chrono>
#include <cstdio>

#include <nlohmann/json.hpp>

#include "base/duration.h"
#include "base/log.h"
#include "cli/command.h"
#include "cli/config_flags.h"
#include "config/config.h"
#include "dead/selection.h"
#include "outbox/dead_letters.h"
#include "outbox/pg.h"
#include "outbox/retention.h"
#include "outbox/schema.h"
#include "outbox/status.h"
#include "tail/row_json.h"

namespace sinkd::cli {

namespace {

struct OutboxFlags {
  std::string config;
  LogFlags log;  // [log] of the file where a flag is not given
  bool json = false;
  std::string min_age;
  int batch = 5000;
  // outbox dead list | replay
  std::vector<std::string> positions;
  std::string sink;
  std::string since;
  std::string until;
  bool unreplayed = false;
  bool all = false;
  bool yes = false;
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
  SINKD_RETURN_IF_ERROR(flags.log.Apply(&c));
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
  SINKD_RETURN_IF_ERROR(flags.log.Apply(&c));
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
  SINKD_RETURN_IF_ERROR(flags.log.Apply(&c));
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

// A time bound as PostgreSQL reads it: RFC 3339 UTC to the microsecond.
Result<std::string> TimestampBound(const std::string& text, const char* flag) {
  if (text.empty()) return std::string();
  const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  auto ns = dead::ParseTimeBound(text, now);
  if (!ns.ok()) return ns.status().WithContext(flag);
  return tail::Rfc3339Micros(*ns / 1000);
}

Result<outbox::OutboxDeadSelection> DeadSelectionFrom(const OutboxFlags& flags) {
  outbox::OutboxDeadSelection selection;
  for (const std::string& p : flags.positions) {
    SINKD_ASSIGN_OR_RETURN(outbox::Cursor c, outbox::ParseCursor(p));
    selection.positions.push_back(c);
  }
  selection.sink = flags.sink;
  SINKD_ASSIGN_OR_RETURN(selection.since, TimestampBound(flags.since, "--since"));
  SINKD_ASSIGN_OR_RETURN(selection.until, TimestampBound(flags.until, "--until"));
  selection.unreplayed = flags.unreplayed;
  return selection;
}

Status RunDeadList(const OutboxFlags& flags, Invocation& invocation) {
  SINKD_ASSIGN_OR_RETURN(outbox::OutboxDeadSelection selection,
                         invocation.Usage(DeadSelectionFrom(flags)));
  SINKD_ASSIGN_OR_RETURN(config::Config c, config::LoadConfig(flags.config));
  SINKD_RETURN_IF_ERROR(flags.log.Apply(&c));
  SINKD_ASSIGN_OR_RETURN(outbox::PgConn conn, ConnectFor(c, "dead-list"));
  SINKD_ASSIGN_OR_RETURN(auto letters, outbox::ListOutboxDeadLetters(conn, selection));
  for (const outbox::OutboxDeadLetter& d : letters) {
    const std::string position = outbox::FormatCursor(d.position);
    if (flags.json) {
      nlohmann::ordered_json line = {
          {"sink", d.sink},
          {"position", position},
          {"dead_at", d.dead_at},
          {"attempts", d.attempts},
          {"error", d.error},
          {"replayed_as", d.replayed_as ? nlohmann::ordered_json(*d.replayed_as) : nullptr},
          {"event", nlohmann::ordered_json::parse(d.event_json, nullptr, false)}};
      std::printf("%s\n", line.dump().c_str());
    } else {
      const std::string replayed =
          d.replayed_as ? "replayed as " + std::to_string(*d.replayed_as) : "not replayed";
      std::printf("%s  %s  %s  %s  %s  attempts %d  %s  %s\n", d.sink.c_str(), position.c_str(),
                  d.dead_at.c_str(), d.event_id.c_str(), d.type.c_str(), d.attempts,
                  replayed.c_str(), d.error.c_str());
    }
  }
  std::fflush(stdout);
  std::fprintf(stderr, "sinkd outbox dead list: %zu dead letter(s)\n", letters.size());
  return Status::OK();
}

Status RunDeadReplay(const OutboxFlags& flags, Invocation& invocation) {
  SINKD_ASSIGN_OR_RETURN(outbox::OutboxDeadSelection selection,
                         invocation.Usage(DeadSelectionFrom(flags)));
  if (selection.everything() && !flags.all) {
    return invocation.Usage(Status::Refuse(
        "name the dead letters to replay: their positions (txid:seq), a filter (--sink, --since, "
        "--until, --unreplayed) or --all"));
  }
  SINKD_ASSIGN_OR_RETURN(config::Config c, config::LoadConfig(flags.config));
  SINKD_RETURN_IF_ERROR(flags.log.Apply(&c));
  SINKD_ASSIGN_OR_RETURN(outbox::PgConn conn, ConnectFor(c, "dead-replay"));
  SINKD_ASSIGN_OR_RETURN(auto letters, outbox::ListOutboxDeadLetters(conn, selection));
  // One replay per position, however many sinks dead-lettered it (outbox/dead_letters.h).
  std::vector<const outbox::OutboxDeadLetter*> positions;
  for (const outbox::OutboxDeadLetter& d : letters) {
    bool seen = false;
    for (const auto* p : positions) seen |= p->position == d.position;
    if (!seen) positions.push_back(&d);
  }
  std::sort(positions.begin(), positions.end(),
            [](const auto* a, const auto* b) { return a->position < b->position; });
  size_t replayed = 0, before = 0;
  for (const outbox::OutboxDeadLetter* d : positions) {
    const std::string position = outbox::FormatCursor(d->position);
    if (!flags.yes) {
      std::printf("%s  %s  %s\n", position.c_str(), d->event_id.c_str(),
                  d->replayed_as ? ("already replayed as " + std::to_string(*d->replayed_as)).c_str()
                                 : "would be re-inserted into the outbox");
      continue;
    }
    SINKD_ASSIGN_OR_RETURN(outbox::ReplayOutcome outcome,
                           outbox::ReplayOutboxDeadLetter(conn, d->position));
    (outcome.replayed ? replayed : before) += 1;
    std::printf("%s  %s  %s %lld\n", position.c_str(), d->event_id.c_str(),
                outcome.replayed ? "replayed as outbox seq" : "already replayed as",
                static_cast<long long>(outcome.outbox_seq));
  }
  std::fflush(stdout);
  if (!flags.yes) {
    std::fprintf(stderr,
                 "sinkd outbox dead replay: dry run: %zu position(s) selected; nothing was "
                 "inserted (--yes inserts)\n",
                 positions.size());
  } else {
    std::fprintf(stderr, "sinkd outbox dead replay: %zu replayed, %zu already replayed\n",
                 replayed, before);
  }
  return Status::OK();
}

}  // namespace

void AddOutboxCommand(CLI::App& root, Invocation& invocation) {
  CLI::App* outbox = AddParent(root, "outbox", "the PostgreSQL outbox: tables, sink status, retention");
  auto flags = std::make_shared<OutboxFlags>();
  const auto config_option = [&](CLI::App* cmd) {
    cmd->add_option("--config", flags->config, "the dispatcher's TOML configuration")->required();
    flags->log.Add(*cmd);
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

  CLI::App* dead = AddParent(*outbox, "dead", "the event sinks' dead letters: list, replay");
  const auto selection_options = [&](CLI::App* cmd) {
    cmd->add_option("--sink", flags->sink, "only this event sink's dead letters");
    cmd->add_option("--since", flags->since,
                    "dead at or after: RFC 3339 (2026-12-03T10:00:00Z) or a duration ago (2h)");
    cmd->add_option("--until", flags->until, "dead before: as --since");
    cmd->add_flag("--unreplayed", flags->unreplayed, "only those never replayed");
  };
  CLI::App* dead_list = dead->add_subcommand(
      "list", "one line per dead letter: sink, position, time, event id, type, replay, error");
  config_option(dead_list);
  selection_options(dead_list);
  dead_list->add_flag("--json", flags->json, "one JSON object per line, the event included");
  dead_list->callback([flags, &invocation] {
    invocation.run = [flags, &invocation] { return RunDeadList(*flags, invocation); };
  });
  CLI::App* dead_replay = dead->add_subcommand(
      "replay", "re-insert dead letters' events into the outbox, once each (a dry run unless "
                "--yes)");
  config_option(dead_replay);
  dead_replay->add_option("positions", flags->positions, "positions txid:seq");
  selection_options(dead_replay);
  dead_replay->add_flag("--all", flags->all, "every dead letter (when no position or filter)");
  dead_replay->add_flag("--yes", flags->yes, "insert; without it nothing is inserted");
  dead_replay->callback([flags, &invocation] {
    invocation.run = [flags, &invocation] { return RunDeadReplay(*flags, invocation); };
  });
}

}  // namespace sinkd::cli
