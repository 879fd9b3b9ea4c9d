// sinkd compact ledger|audit, sinkd compact --table outbox_events|outbox_audit: merges a table's
// small Parts on the same destination a drain writes (compact/compactor.h does the work; this file
// only turns flags, the environment and the [compaction] section into its options, and runs
// passes). One pass by default; --follow runs one every --every, with the drain's metrics
// listener. --metrics-textfile writes the figures after each pass for node_exporter's textfile
// collector, the one way the timer's one-shot passes reach Prometheus. --dry-run prints one pass's
// plan (deletions, merges: inputs -> outputs, bytes) and changes nothing. SIGTERM or SIGINT finishes the step in progress (the merge or the deletion under way;
// every step leaves the lake whole) and exits 0.
// Exit codes: 0 the passes ended well (or were stopped); 1 a pass failed or refused a Part, named
// on stderr, or the store lets a create replace an object (RequireExclusiveCreates; with --follow:
// only these start-up failures and a destination that cannot be reached; failed passes are
// counted and retried); 2 a flag or setting is wrong, or the lake keeps an Iceberg table and
// --table-format is not iceberg (RefuseCompactingAroundATable).
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "base/build_info.h"
#include "base/duration.h"
#include "base/log.h"
#include "base/progress.h"
#include "base/shutdown_signals.h"
#include "cli/command.h"
#include "cli/config_flags.h"
#include "cli/destination_flags.h"
#include "cli/lake_flags.h"
#include "cli/size_flags.h"
#include "compact/compactor.h"
#include "http/listener.h"
#include "iceberg/table_format.h"
#include "lake/destination.h"
#include "lake/lake_writer.h"
#include "metrics/compact_metrics.h"
#include "metrics/textfile.h"
#include "table/commit.h"
#include "table/rewrite.h"
#include "table/table.h"

namespace sinkd::cli {

namespace {

// A table to compact: the catalogue's (table/table.h) with the config section of the drain that
// writes it, whose key_prefix the file may already name ("" for an outbox table).
struct CompactTable {
  std::string name;  // the subcommand / --table value, the metrics label
  const row::ColumnTable* columns;
  std::string drain;  // "drain.ledger"
};

const std::vector<CompactTable>& CompactTables() {
  static const std::vector<CompactTable> tables = [] {
    std::vector<CompactTable> out;
    for (const table::TableSpec& t : table::Tables()) {
      const std::string name(t.name);
      out.push_back(
          {name, t.columns, t.writer == table::Writer::kStream ? "drain." + name : std::string()});
    }
    return out;
  }();
  return tables;
}

struct CompactFlags {
  std::string table;  // --table, on `sinkd compact` itself
  DestinationFlags destination;
  LakeFlags lake;
  uint64_t target_bytes = 256ull << 20;
  uint32_t min_parts = 8;
  size_t merge_lanes = 0;  // 0: two when encoding takes more than one thread, else one
  std::string settle = "1h";
  std::string grace = "1h";
  bool follow = false;
  bool dry_run = false;
  std::string every = "5m";
  std::string metrics_listen;
  std::string metrics_textfile;
};

int64_t CompactNowUnixNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Result<int64_t> DurationMillis(const std::string& text, const char* flag) {
  Result<std::chrono::nanoseconds> d = ParseDuration(text);
  if (!d.ok()) return d.status().WithContext(flag);
  return std::chrono::duration_cast<std::chrono::milliseconds>(*d).count();
}

struct CompactSettings {
  compact::CompactOptions options;
  bool follow = false;
  std::chrono::milliseconds every{0};
  std::string metrics_listen;
  std::string metrics_textfile;  // "{table}" replaced; "" = none
};

// The file's path for `table`: one config file names one path for every table's pass.
std::string TextfilePath(std::string path, const std::string& table) {
  for (size_t at = path.find("{table}"); at != std::string::npos; at = path.find("{table}", at)) {
    path.replace(at, 7, table);
    at += table.size();
  }
  return path;
}

Result<CompactSettings> SettingsFrom(const CompactFlags& flags, const CompactTable& table) {
  CompactSettings s;
  SINKD_ASSIGN_OR_RETURN(lake::LakeWriterOptions lake,
                         LakeWriterOptionsFrom(flags.lake, table.name));
  compact::CompactOptions& o = s.options;
  o.table = table.columns;
  o.prefix = lake.key_prefix;
  o.instance = lake.instance;
  o.parquet = lake.parquet;
  o.encode_threads = lake.encode_threads;
  o.target_bytes = flags.target_bytes;
  o.min_parts = flags.min_parts;
  o.merge_lanes = flags.merge_lanes != 0 ? flags.merge_lanes : (o.encode_threads > 1 ? 2 : 1);
  // Each lane reads and places through a Destination of its own, made from the same flags.
  o.open_destination = [destination = flags.destination] { return MakeDestination(destination); };
  SINKD_ASSIGN_OR_RETURN(o.settle_ms, DurationMillis(flags.settle, "--settle"));
  SINKD_ASSIGN_OR_RETURN(o.grace_ms, DurationMillis(flags.grace, "--grace"));
  SINKD_RETURN_IF_ERROR(table::CheckTableFormat(flags.lake.table_format));
  SINKD_RETURN_IF_ERROR(iceberg::CheckTableCatalog(TableCatalogFrom(flags.lake)));
  // The engine names its options as the struct spells them; the operator typed the flags.
  Status valid = o.Validate();
  if (!valid.ok()) {
    std::string message = valid.message();
    for (auto [option, flag] :
         {std::pair{"target_bytes", "--target-bytes"}, std::pair{"min_parts", "--min-parts"},
          std::pair{"settle", "--settle"}, std::pair{"grace", "--grace"},
          std::pair{"merge_lanes", "--merge-lanes"},
          std::pair{"prefix", "--key-prefix"}}) {
      if (message.rfind(option, 0) == 0) {
        message = flag + message.substr(std::string_view(option).size());
        break;
      }
    }
    return Status::Refuse(message);
  }
  s.follow = flags.follow;
  if (flags.dry_run && flags.follow) {
    return Status::Refuse("--dry-run plans one pass: it does not go with --follow");
  }
  s.metrics_textfile = TextfilePath(flags.metrics_textfile, table.name);
  if (!s.metrics_textfile.empty() &&
      !std::filesystem::is_directory(
          std::filesystem::path(s.metrics_textfile).parent_path().empty()
              ? std::filesystem::path(".")
              : std::filesystem::path(s.metrics_textfile).parent_path())) {
    return Status::Refuse("--metrics-textfile " + s.metrics_textfile +
                          ": its directory does not exist");
  }
  if (flags.follow) {
    SINKD_ASSIGN_OR_RETURN(int64_t every, DurationMillis(flags.every, "--every"));
    if (every < 1000) return Status::Refuse("--every must be at least 1s");
    s.every = std::chrono::milliseconds(every);
    s.metrics_listen = flags.metrics_listen;
  }
  return s;
}

bool Stopping() { return ShutdownSignals::stop().load(); }

// Sleeps `d`, or less when a stop is asked for (checked every 100 ms).
void WaitUnlessStopped(std::chrono::milliseconds d) {
  const auto until = std::chrono::steady_clock::now() + d;
  while (!Stopping() && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
        std::chrono::milliseconds(100), until - std::chrono::steady_clock::now()));
  }
}

// One pass, its progress on a terminal, a log line per output and the metrics.
Result<compact::PassReport> CompactPass(compact::Compactor& compactor, const CompactTable& table,
                                        metrics::CompactMetrics& metrics, Logger& log) {
  Progress progress(stderr, "compact " + table.name, 0, ProgressUnit::kCount, "rows");
  uint64_t rows = 0;
  compact::PassHooks hooks;
  hooks.stop_requested = Stopping;
  hooks.on_partition = [&](uint64_t done, uint64_t total) {
    progress.SetNote(std::to_string(done) + " of " + std::to_string(total) + " partitions");
    progress.Update(rows);
  };
  hooks.on_output = [&](const compact::OutputReport& out) {
    log.Info("compaction output", {{"key", out.key},
                                   {"rows_in", out.rows_in},
                                   {"rows_out", out.rows_out},
                                   {"duplicates_dropped", out.duplicates_dropped},
                                   {"bytes", out.bytes},
                                   {"supersedes", static_cast<uint64_t>(out.supersedes.size())},
                                   {"found_in_place", out.found_in_place}});
    rows += out.rows_in;
    progress.Update(rows);
    // An output another compactor had already written is counted by that one.
    if (out.found_in_place) return;
    metrics.outputs.fetch_add(1);
    metrics.rows_in.fetch_add(out.rows_in);
    metrics.rows_out.fetch_add(out.rows_out);
    metrics.duplicates_dropped.fetch_add(out.duplicates_dropped);
    metrics.bytes_written.fetch_add(out.bytes);
  };
  const auto start = std::chrono::steady_clock::now();
  compact::PassReport r;  // filled even when the pass fails
  Result<compact::PassReport> report = compactor.RunPass(hooks, &r);
  progress.Finish();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  metrics.inputs_deleted.fetch_add(r.inputs_deleted);
  metrics.partitions_failed.fetch_add(r.partitions_failed);
  for (const std::string& key : r.kept) {
    log.Warn("compaction kept a Part an output names: the key holds another object than the one "
             "merged (re-created since), so it is a live Part and merges again",
             {{"part", key}});
  }
  if (!report.ok()) {
    metrics.pass_failures.fetch_add(1);
    // A pass that refused a Part or failed a partition still compacted every other partition:
    // its backlog is real.
    if (r.completed) metrics.partitions_pending.store(static_cast<int64_t>(r.partitions_pending));
    for (const std::string& refused : r.refused) {
      log.Error("compaction refused a Part", {{"part", refused}});
    }
    for (const std::string& failed : r.failed) {
      log.Error("compaction skipped a failed partition", {{"partition", failed}});
    }
    log.Error("compaction pass failed", {{"error", report.status().message()},
                                         {"outputs", r.outputs},
                                         {"inputs_deleted", r.inputs_deleted},
                                         {"seconds", seconds}});
    return report;
  }
  r = *report;
  if (r.table_missing) {
    log.Warn(
        "compaction found no table to compact: with --table-format iceberg only Parts the "
        "table's current snapshot holds merge, and it has none yet (a drain or import with "
        "--table-format iceberg creates it)",
        {{"key_prefix", compactor.options().prefix}});
  }
  metrics.passes.fetch_add(1);
  metrics.partitions_pending.store(static_cast<int64_t>(r.partitions_pending));
  metrics.last_pass_success_unix_ns.store(CompactNowUnixNs());
  log.Info("compaction pass finished",
           {{"partitions", r.partitions},
            {"partitions_merged", r.partitions_merged},
            {"partitions_pending", r.partitions_pending},
            {"outputs", r.outputs},
            {"inputs_deleted", r.inputs_deleted},
            {"inputs_kept", static_cast<uint64_t>(r.kept.size())},
            {"rows_in", r.rows_in},
            {"rows_out", r.rows_out},
            {"duplicates_dropped", r.duplicates_dropped},
            {"bytes_read", r.bytes_read},
            {"bytes_written", r.bytes_written},
            {"merges_discarded", r.merges_discarded},
            {"parts_left_alone", r.parts_left_alone},
            {"replaces", r.replaces},
            {"replaces_dropped", r.replaces_dropped},
            {"parts_outside_table", r.parts_outside_table},
            {"inputs_retained", r.inputs_retained},
            {"table_seconds", r.table_seconds},
            {"merges_at_once", r.merges_at_once},
            {"seconds", seconds},
            {"rows_per_second", seconds > 0 ? static_cast<double>(r.rows_in) / seconds : 0.0},
            {"stopped", Stopping()}});
  return report;
}

std::string KeySize(const lake::StoredObject& o) {
  return o.key + " (" + std::to_string(o.size) + " bytes)";
}

// Compacting a table's Parts as loose files (--table-format none) deletes, once the grace has
// passed, inputs the table's snapshots still name: every reader of the table then fails on a
// missing file, and nothing but a restore brings them back. A lake whose prefix holds table
// metadata (the files catalog's v<N>.metadata.json or a metastore's <N>-<uuid>.metadata.json)
// is therefore compacted only through the table.
Status RefuseCompactingAroundATable(lake::Destination& destination, const std::string& prefix,
                                    const std::string& table) {
  Result<std::optional<std::string>> metadata = iceberg::FindTableMetadata(destination, prefix);
  if (!metadata.ok()) {
    return metadata.status().WithContext("compact " + table + ": looking for a table's metadata");
  }
  if (!*metadata) return Status::OK();
  return Status::Refuse("compact " + table + ": " + destination.Describe() +
                        " keeps an Iceberg table over " + prefix + "'s Parts (" + **metadata +
                        "): compacting it without the table would delete files its snapshots "
                        "name; give --table-format iceberg (lake.table_format), with the "
                        "table's --iceberg-catalog");
}

// --dry-run: one pass that changes nothing, its plan on standard output. Neither Ensure (it
// creates a lake directory) nor the exclusive-create probe (it places an object) runs: a lake
// that is not there lists empty, and the plan is that nothing would happen.
Status DryRun(lake::Destination& destination, const compact::CompactOptions& options,
              const CompactTable& table, Logger& log) {
  compact::Compactor compactor(destination, options);
  compact::PassHooks hooks;
  hooks.stop_requested = Stopping;
  uint64_t deletions = 0, deleted_bytes = 0, merges = 0, inputs = 0, input_bytes = 0;
  uint64_t outputs = 0, lone = 0;
  hooks.on_plan = [&](const compact::PlannedStep& step) {
    if (step.kind == compact::PlannedStep::Kind::kDelete) {
      ++deletions;
      deleted_bytes += step.input_bytes;
      std::printf("would delete %s: superseded by an output older than --grace\n",
                  KeySize(step.inputs.front()).c_str());
      return;
    }
    ++merges;
    inputs += step.inputs.size();
    input_bytes += step.input_bytes;
    outputs += step.outputs.size();
    if (step.lone) ++lone;
    std::string into;
    for (const std::string& key : step.outputs) into += (into.empty() ? "" : ", ") + key;
    std::printf("would merge %s: %zu input%s, %llu bytes -> %s%s\n", step.partition.c_str(),
                step.inputs.size(), step.inputs.size() == 1 ? "" : "s",
                static_cast<unsigned long long>(step.input_bytes), into.c_str(),
                step.lone  ? " (only if it holds two rows of one record or is out of order)"
                : step.split ? " (split by rows: fewer outputs if records have copies)"
                             : "");
    for (const lake::StoredObject& in : step.inputs) std::printf("  %s\n", KeySize(in).c_str());
  };
  compact::PassReport r;
  Result<compact::PassReport> report = compactor.RunPass(hooks, &r);
  for (const std::string& refused : r.refused) {
    log.Error("compaction would skip a Part it cannot read", {{"part", refused}});
  }
  std::printf("dry run of compact %s: %llu partitions; %llu merges of %llu inputs (%llu bytes) "
              "into %llu outputs, %llu of them a lone Part; %llu deletions (%llu bytes); "
              "nothing was changed\n",
              table.name.c_str(), static_cast<unsigned long long>(r.partitions),
              static_cast<unsigned long long>(merges), static_cast<unsigned long long>(inputs),
              static_cast<unsigned long long>(input_bytes),
              static_cast<unsigned long long>(outputs), static_cast<unsigned long long>(lone),
              static_cast<unsigned long long>(deletions),
              static_cast<unsigned long long>(deleted_bytes));
  std::fflush(stdout);
  if (!report.ok()) return report.status().WithContext("compact --dry-run " + table.name);
  return Status::OK();
}

Status RunCompact(const CompactFlags& flags, const CompactTable& table,
                  const std::string& settings_from, Invocation& invocation) {
  // Everything that can be refused without the destination is refused first, as a usage error.
  Result<CompactSettings> settings = SettingsFrom(flags, table);
  if (!settings.ok()) {
    invocation.usage_error = true;
    return settings.status();
  }
  Result<std::unique_ptr<lake::Destination>> made = MakeDestination(flags.destination);
  if (!made.ok()) {
    invocation.usage_error = true;
    return made.status();
  }
  std::unique_ptr<lake::Destination> destination = std::move(*made);
  // The table kept over the Parts: a pass's merges committed as replace snapshots (nullptr:
  // none). A dry run opens its catalog read-only: it must not create the sql catalog's tables.
  Result<std::unique_ptr<table::Rewrite>> rewrite = iceberg::MakeTableRewrite(
      flags.lake.table_format, *destination, TableCatalogFrom(flags.lake), flags.dry_run,
      settings->options.encode_threads);
  if (!rewrite.ok()) {
    invocation.usage_error = true;
    return rewrite.status();
  }
  settings->options.rewrite = rewrite->get();
  // Before the first store call: a SIGTERM while connecting must still end in exit 0.
  ShutdownSignals::Install();

  metrics::CompactMetrics metrics;
  metrics.table = table.name;
  const compact::CompactOptions& o = settings->options;
  Logger log;
  log.AddContext("table", table.name);
  // The counters go on from the last pass's file: each one-shot run would otherwise start at 0
  // and write the same small numbers, which Prometheus cannot tell from no change.
  const std::string& textfile = settings->metrics_textfile;
  if (!textfile.empty()) metrics.Restore(metrics::ReadTextfile(textfile));
  auto write_textfile = [&]() -> Status {
    if (textfile.empty()) return Status::OK();
    Status written = metrics::WriteTextfile(textfile, metrics.Render());
    if (!written.ok()) log.Error("metrics textfile not written", {{"error", written.message()}});
    return written;
  };
  log.Info("sinkd compact started",
           {{"version", std::string_view(kVersion)},
            {"settings", settings_from},
            {"destination", destination->Describe()},
            {"key_prefix", o.prefix},
            {"instance", o.instance},
            {"target_bytes", o.target_bytes},
            {"min_parts", static_cast<uint64_t>(o.min_parts)},
            {"merge_lanes", static_cast<uint64_t>(o.merge_lanes)},
            {"table_format", std::string_view(flags.lake.table_format)},
            {"settle", FormatDuration(std::chrono::milliseconds(o.settle_ms))},
            {"grace", FormatDuration(std::chrono::milliseconds(o.grace_ms))},
            {"follow", settings->follow},
            {"dry_run", flags.dry_run},
            {"every", settings->follow ? FormatDuration(settings->every) : std::string()},
            {"metrics_listen", settings->metrics_listen},
            {"metrics_textfile", textfile}});
  // After the store answered (a real run) or before the plan (a dry run): a table kept over the
  // Parts is compacted only through it.
  auto refuse_around_a_table = [&]() -> Status {
    if (settings->options.rewrite != nullptr) return Status::OK();
    Status around = RefuseCompactingAroundATable(*destination, o.prefix, table.name);
    invocation.usage_error = around.IsRefuse();
    return around;
  };
  if (flags.dry_run) {
    SINKD_RETURN_IF_ERROR(refuse_around_a_table());
    return DryRun(*destination, o, table, log);
  }
  http::Listener listener([&metrics] { return metrics.Render(); },
                                 [&metrics](std::string* why) {
                                   *why = metrics.Readiness();
                                   return metrics.ready();
                                 });
  if (!settings->metrics_listen.empty()) {
    Status started = listener.Start(settings->metrics_listen);
    if (!started.ok()) {
      invocation.usage_error = true;
      return started;
    }
    log.Info("metrics listening",
             {{"address", settings->metrics_listen}, {"port", listener.port()}});
  }
  Status reachable = destination->Ensure();
  if (reachable.ok()) {
    reachable =
        RequireExclusiveCreates(*destination, o.prefix, flags.destination, "compaction", log);
  }
  if (!reachable.ok()) {
    // A pass that could not start is a failed pass to whoever reads the textfile.
    metrics.pass_failures.fetch_add(1);
    (void)write_textfile();
    return reachable;
  }
  metrics.destination_reachable = true;
  SINKD_RETURN_IF_ERROR(refuse_around_a_table());

  compact::Compactor compactor(*destination, settings->options);
  if (!settings->follow) {
    Result<compact::PassReport> report = CompactPass(compactor, table, metrics, log);
    Status written = write_textfile();
    if (!report.ok()) return report.status().WithContext("compact " + table.name);
    // The pass did its work; the exit says its figures did not reach the collector.
    if (!written.ok()) return written;
    const compact::PassReport& r = *report;
    std::printf(
        "compacted %s: %llu partitions, %llu merged into %llu outputs (%llu rows in, "
        "%llu rows out, %llu duplicates dropped), %llu lone Parts left as they were, %llu "
        "inputs deleted, %llu partitions pending\n",
        table.name.c_str(), static_cast<unsigned long long>(r.partitions),
        static_cast<unsigned long long>(r.partitions_merged),
        static_cast<unsigned long long>(r.outputs), static_cast<unsigned long long>(r.rows_in),
        static_cast<unsigned long long>(r.rows_out),
        static_cast<unsigned long long>(r.duplicates_dropped),
        static_cast<unsigned long long>(r.parts_left_alone),
        static_cast<unsigned long long>(r.inputs_deleted),
        static_cast<unsigned long long>(r.partitions_pending));
    if (settings->options.rewrite != nullptr) {
      std::printf(
          "table %s: %s, %llu replace snapshots committed, %llu merges dropped (another "
          "replace took their inputs), %llu objects outside the current snapshot left "
          "alone, %llu deletions left to table expire (a snapshot names them), %.3f s reading "
          "and committing the table\n",
          o.prefix.c_str(), r.table_missing ? "no snapshot yet" : "iceberg",
          static_cast<unsigned long long>(r.replaces),
          static_cast<unsigned long long>(r.replaces_dropped),
          static_cast<unsigned long long>(r.parts_outside_table),
          static_cast<unsigned long long>(r.inputs_retained), r.table_seconds);
    }
    return Status::OK();
  }
  // --follow: a failed pass (the store away, a Part refused) is counted and tried again on the
  // next one; only a stop ends the loop.
  while (!Stopping()) {
    // A drain or import may start keeping a table after this compactor started: every pass looks
    // again, and the refusal ends the service (a listing that failed is the pass's to report).
    Status around = refuse_around_a_table();
    if (around.IsRefuse()) return around;
    (void)CompactPass(compactor, table, metrics, log);
    (void)write_textfile();  // logged; the next pass tries again
    WaitUnlessStopped(settings->every);
  }
  log.Info("sinkd compact stopped");
  return Status::OK();
}

void AddCompactFlags(CLI::App& cmd, CompactFlags& flags, ConfigFlags& config) {
  AddDestinationFlags(cmd, flags.destination);
  AddLakeFlags(cmd, flags.lake);
  AddSizeOption(cmd, "--target-bytes", flags.target_bytes,
                "size an output aims at; a partition's Parts merge into outputs of about this "
                "size (at least 1MiB)");
  cmd.add_option("--min-parts", flags.min_parts,
                 "a partition's small Parts merge once there are this many of them")
      ->capture_default_str();
  cmd.add_option("--merge-lanes", flags.merge_lanes,
                 "partitions merged at once, each on a thread of its own (1-16; default: 2 when "
                 "--encode-threads is above 1, else 1); merges at once share a bound on decoded "
                 "rows, so a large partition merges alone");
  cmd.add_option("--settle", flags.settle,
                 "a UTC date is closed this long after its end: then even fewer Parts merge")
      ->capture_default_str();
  cmd.add_option("--grace", flags.grace,
                 "an input is deleted on a later pass once its output is this old; longer than "
                 "the longest query")
      ->capture_default_str();
  cmd.add_flag("--follow", flags.follow, "keep compacting: one pass every --every until SIGTERM");
  cmd.add_flag("--dry-run", flags.dry_run,
               "print the pass's plan (deletions, merges: inputs -> outputs, bytes) and change "
               "nothing");
  cmd.add_option("--every", flags.every, "time between two passes with --follow")
      ->capture_default_str();
  cmd.add_option("--metrics-listen", flags.metrics_listen,
                 "with --follow, serve /metrics, /healthz and /readyz on this host:port");
  cmd.add_option("--metrics-textfile", flags.metrics_textfile,
                 "after each pass, write its metrics to this file for node_exporter's textfile "
                 "collector (atomically; counters carried on from the file; {table} is replaced "
                 "by the table's name)");
  AddTableFormatFlag(cmd, flags.lake,
                     "the table kept over the Parts: none (the hive layout alone; inputs deleted "
                     "--grace after their output appeared) or iceberg (merge only the Parts the "
                     "Iceberg table at <lake>/<key prefix> holds, committed as replace snapshots; "
                     "an input is deleted only once no snapshot names it, else by table expire)");
  BindDestinationFlags(config);
  BindTableFormatFlag(config);
  config.Bind("--instance-id", {"lake.instance_id"});
  config.Bind("--zstd-level", {"lake.zstd_level"});
  config.Bind("--row-group-rows", {"lake.row_group_rows"});
  config.Bind("--encode-threads", {"lake.encode_threads"});
  for (const char* name :
       {"target_bytes", "min_parts", "merge_lanes", "settle", "grace", "follow", "every"}) {
    std::string flag = std::string("--") + name;
    for (char& c : flag) c = c == '_' ? '-' : c;
    config.Bind(flag, {std::string("compaction.") + name});
  }
  config.Bind("--metrics-listen", {"compaction.metrics_listen", "metrics.listen"});
  config.Bind("--metrics-textfile", {"compaction.metrics_textfile"});
}

Result<const CompactTable*> ChosenTable(const CompactFlags& flags, const std::string& positional) {
  if (!positional.empty() && !flags.table.empty()) {
    return Status::Refuse("compact: name the table once, as `compact " + positional +
                          "` or with --table");
  }
  const std::string& name = positional.empty() ? flags.table : positional;
  if (name.empty()) {
    return Status::Refuse(
        "compact needs a table: sinkd compact ledger|audit, or sinkd compact "
        "--table outbox_events|outbox_audit");
  }
  for (const CompactTable& table : CompactTables()) {
    if (table.name == name) return &table;
  }
  return Status::Refuse("compact: unknown table \"" + name + "\"");
}

}  // namespace

void AddCompactCommand(CLI::App& root, Invocation& invocation) {
  CLI::App* cmd = root.add_subcommand(
      "compact",
      "merge a table's small Parts into outputs of about --target-bytes, one row per event_id "
      "(the outbox tables: per outbox position); inputs are deleted by a later pass, --grace after their output appeared");
  auto flags = std::make_shared<CompactFlags>();
  auto positional = std::make_shared<std::string>();
  auto config = std::make_shared<ConfigFlags>(*cmd, "compact");
  invocation.configurable.push_back(config);
  cmd->add_option("table", *positional, "ledger or audit (the drains' tables)")
      ->check(CLI::IsMember(table::TableNames(table::Writer::kStream)));
  cmd->add_option("--table", flags->table,
                  "the table to compact: outbox_events or outbox_audit (the outbox lake sinks'), "
                  "or ledger, audit")
      ->check(CLI::IsMember(table::TableNames()));
  AddCompactFlags(*cmd, *flags, *config);
  // What RunCompact refuses before the store (for the ledger table: the settings are every
  // table's), and the store.
  config->check = [flags]() -> Status {
    SINKD_RETURN_IF_ERROR(SettingsFrom(*flags, CompactTables().front()).status());
    return MakeDestination(flags->destination).status();
  };
  config->reach = [flags]() -> std::vector<Status> {
    Status s = ReachDestination(flags->destination);
    if (s.ok()) return {};
    return {s};
  };
  cmd->callback([flags, positional, config, &invocation] {
    invocation.run = [flags, positional, config, &invocation]() -> Status {
      Result<const CompactTable*> table = ChosenTable(*flags, *positional);
      Status applied = table.ok() ? config->Apply() : table.status();
      if (!applied.ok()) {
        invocation.usage_error = true;
        return applied;
      }
      // Compaction works where the drain writes: the file's key prefix for the drain of this
      // table is the default (the flag still wins).
      if (flags->lake.key_prefix.empty() && !(*table)->drain.empty() && config->file()) {
        const auto& settings = config->file()->settings;
        auto it = settings.find((*table)->drain + ".key_prefix");
        if (it != settings.end()) flags->lake.key_prefix = it->second.text;
      }
      return RunCompact(*flags, **table, config->SettingsFrom(), invocation);
    };
  });
}

}  // namespace sinkd::cli
