// `sinkd lake verify`: proves from footers alone that a lake table holds every row its writers
// acknowledged (src/verify/verify.h has the rules). Exit 0 when nothing is missing, 1 naming every
// gap and incomplete flush (or when it could not look).
// `sinkd lake stats`: per partition, the Parts, rows, bytes and small Parts from the same scan
// (verify/stats.h). Exit 1 naming the Parts whose footer cannot be read (or when it could not look).
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>

#include "base/progress.h"
#include "base/redact.h"
#include "cli/command.h"
#include "cli/config_flags.h"
#include "cli/destination_flags.h"
#include "cli/lake_flags.h"
#include "cli/nats_flags.h"
#include "cli/size_flags.h"
#include "cli/stream_origin.h"
#include "iceberg/iceberg_commit.h"
#include "iceberg/positions.h"
#include "sinks/registry.h"
#include "table/commit.h"
#include "table/table.h"
#include "verify/scan.h"
#include "verify/stats.h"
#include "verify/lake_check.h"
#include "verify/verify.h"

namespace sinkd::cli {

namespace {

struct VerifyFlags {
  DestinationFlags destination;
  jetstream::ConnectOptions nats;
  std::string table_arg;  // positional: ledger | audit
  std::string table;      // --table: ledger | audit | outbox_events | outbox_audit
  std::string key_prefix;
  std::string durable;
  uint64_t from = 0, to = 0;
  bool has_from = false, has_to = false, use_nats = false;
  uint64_t small_bytes = 64ull << 20;
  uint64_t target_bytes = 256ull << 20;  // lake stats: compaction's --target-bytes
  bool json = false;
  std::string sink;                 // --sink: the outbox lake sink of the --config file
  bool destination_given = false;   // a destination flag on the command line
  std::string table_format = "none";  // lake verify: iceberg also checks the table
  iceberg::TableCatalog catalog;      // lake verify: where that table's pointer lives
  bool catalog_given = false;         // an --iceberg-* flag on the command line
};

// The outbox lake sink entry of the configuration file that `table` belongs to: the one --sink
// names, or the only lake sink of that kind.
Result<const config::SinkConfig*> LakeSinkEntry(const config::Config& file, const std::string& table,
                                                const std::string& wanted,
                                                const std::string& command) {
  const bool events = table == "outbox_events";
  const auto& entries = events ? file.event_sinks : file.audit_sinks;
  const char* list = events ? "[[sinks.events]]" : "[[sinks.audit]]";
  std::vector<const config::SinkConfig*> lakes;
  std::string ids;
  for (const config::SinkConfig& e : entries) {
    if (e.type != "lake") continue;
    if (!ids.empty()) ids += ", ";
    ids += e.id;
    if (wanted.empty() || e.id == wanted) lakes.push_back(&e);
  }
  if (lakes.size() == 1) return lakes[0];
  if (!wanted.empty()) {
    return Status::Refuse(command + " --sink " + wanted + ": no lake sink of that id in " + list +
                          (ids.empty() ? std::string() : " (lake sinks: " + ids + ")"));
  }
  if (lakes.empty()) return Status::Refuse(command + ": no lake sink in " + list);
  return Status::Refuse(command + ": several lake sinks in " + std::string(list) + " (" + ids +
                        "): name one with --sink");
}

std::string Ranges(const std::vector<lake::SequenceRange>& r) {
  return r.empty() ? std::string("none") : lake::FormatRanges(r);
}

nlohmann::json ReportJson(const std::string& table, const std::string& prefix,
                          const std::string& where, const verify::VerifyReport& r) {
  nlohmann::json j;
  j["table"] = table;
  j["prefix"] = prefix;
  j["destination"] = where;
  j["ok"] = r.ok();
  j["parts"] = r.objects;
  j["rows"] = r.rows;
  j["bytes"] = r.bytes;
  j["small_parts"] = r.small_parts;
  j["unstamped_parts"] = r.unstamped;
  j["superseded_parts"] = r.superseded;
  j["flushes"] = r.flushes;
  j["duplicates"] = {{"parts", r.duplicate_parts},
                     {"rows", r.duplicate_rows},
                     {"sequences", r.duplicate_sequences}};
  j["spaces"] = nlohmann::json::array();
  for (const verify::SpaceReport& s : r.spaces) {
    j["spaces"].push_back({{"space", s.space},
                           {"covered", lake::FormatRanges(s.covered)},
                           {"expected", lake::FormatRanges(s.expected)},
                           {"complete_flushes", s.flushes}});
  }
  j["incomplete_flushes"] = nlohmann::json::array();
  for (const verify::IncompleteFlush& f : r.incomplete) {
    nlohmann::json missing = nlohmann::json::array();
    for (const verify::MissingPart& m : f.missing) {
      missing.push_back({{"n", m.n}, {"name", m.name}, {"after", m.after_dir},
                         {"before", m.before_dir}});
    }
    j["incomplete_flushes"].push_back({{"instance", f.flush.instance},
                                       {"source", f.flush.source},
                                       {"first", f.flush.first},
                                       {"last", f.flush.last},
                                       {"acked", lake::FormatRanges(f.flush.acked)},
                                       {"parts", f.flush.parts},
                                       {"rows", f.flush.rows},
                                       {"missing", missing}});
  }
  j["gaps"] = nlohmann::json::array();
  for (const verify::Gap& g : r.gaps) {
    j["gaps"].push_back({{"space", g.space}, {"first", g.range.first}, {"last", g.range.last}});
  }
  j["unreadable"] = nlohmann::json::array();
  for (const auto& [key, error] : r.unreadable) {
    j["unreadable"].push_back({{"key", key}, {"error", error}});
  }
  return j;
}

void PrintText(const std::string& table, const std::string& where,
               const verify::VerifyReport& r) {
  std::printf("lake verify %s (%s): %llu Parts, %llu rows, %llu bytes; %llu small, %llu without a "
              "stamp, %llu superseded (awaiting deletion); %llu flushes\n",
              table.c_str(), where.c_str(), static_cast<unsigned long long>(r.objects),
              static_cast<unsigned long long>(r.rows), static_cast<unsigned long long>(r.bytes),
              static_cast<unsigned long long>(r.small_parts),
              static_cast<unsigned long long>(r.unstamped),
              static_cast<unsigned long long>(r.superseded),
              static_cast<unsigned long long>(r.flushes));
  for (const verify::SpaceReport& s : r.spaces) {
    std::printf("  %s: covered %s; expected %s\n", s.space.c_str(), Ranges(s.covered).c_str(),
                Ranges(s.expected).c_str());
  }
  std::printf("  duplicates known from stamps: %llu Parts (%llu rows), %llu sequences\n",
              static_cast<unsigned long long>(r.duplicate_parts),
              static_cast<unsigned long long>(r.duplicate_rows),
              static_cast<unsigned long long>(r.duplicate_sequences));
  for (const verify::IncompleteFlush& f : r.incomplete) {
    for (const verify::MissingPart& m : f.missing) {
      std::printf("  incomplete flush %s %s %llu-%llu (%llu Parts, %llu rows, acked %s): Part %llu "
                  "missing: %s\n",
                  f.flush.instance.c_str(), f.flush.source.c_str(),
                  static_cast<unsigned long long>(f.flush.first),
                  static_cast<unsigned long long>(f.flush.last),
                  static_cast<unsigned long long>(f.flush.parts),
                  static_cast<unsigned long long>(f.flush.rows),
                  lake::FormatRanges(f.flush.acked).c_str(),
                  static_cast<unsigned long long>(m.n), m.Describe().c_str());
    }
  }
  for (const verify::Gap& g : r.gaps) {
    std::printf("  gap %s %s\n", g.space.c_str(), lake::FormatRanges({g.range}).c_str());
  }
  for (const auto& [key, error] : r.unreadable) {
    std::printf("  unreadable %s: %s\n", key.c_str(), error.c_str());
  }
  std::printf("  %s\n", r.ok() ? "OK" : "NOT OK");
}

nlohmann::json TableReportJson(const verify::TableReport& t) {
  nlohmann::json j;
  j["ok"] = t.ok();
  j["metadata"] = t.metadata.empty() ? nlohmann::json(nullptr) : nlohmann::json(t.metadata);
  j["current_snapshot"] = t.snapshot;
  j["data_files"] = t.files;
  j["records"] = t.records;
  j["positions"] = nlohmann::json::parse(iceberg::PositionsJson(t.positions));
  j["problems"] = nlohmann::json::array();
  for (const verify::TableFileProblem& p : t.problems) {
    j["problems"].push_back({{"file", p.uri}, {"problem", p.problem}});
  }
  const nlohmann::json view = ReportJson("", "", "", t.view);
  for (const char* key : {"spaces", "gaps", "incomplete_flushes", "duplicates"}) {
    j[key] = view[key];
  }
  return j;
}

void PrintTableText(const verify::TableReport& t, const iceberg::TableCatalog& catalog,
                    const std::string& prefix) {
  if (t.metadata.empty()) {
    std::printf("  table: no Iceberg table (%s)\n  NOT OK\n",
                catalog.kind == "sql" ? ("no row for " + prefix + " in namespace " +
                                         catalog.namespace_name + " of the sql catalog")
                                            .c_str()
                                      : "no metadata/v<N>.metadata.json");
    return;
  }
  std::printf("  table: %s, snapshot %lld: %llu data files, %llu records\n", t.metadata.c_str(),
              static_cast<long long>(t.snapshot), static_cast<unsigned long long>(t.files),
              static_cast<unsigned long long>(t.records));
  for (const verify::SpaceReport& s : t.view.spaces) {
    std::printf("  table %s: covered %s; expected %s\n", s.space.c_str(), Ranges(s.covered).c_str(),
                Ranges(s.expected).c_str());
  }
  for (const verify::TableFileProblem& p : t.problems) {
    std::printf("  table file %s %s\n", p.uri.c_str(), p.problem.c_str());
  }
  for (const verify::IncompleteFlush& f : t.view.incomplete) {
    for (const verify::MissingPart& m : f.missing) {
      std::printf("  table incomplete flush %s %s %llu-%llu: Part %llu not in the table: %s\n",
                  f.flush.instance.c_str(), f.flush.source.c_str(),
                  static_cast<unsigned long long>(f.flush.first),
                  static_cast<unsigned long long>(f.flush.last),
                  static_cast<unsigned long long>(m.n), m.Describe().c_str());
    }
  }
  for (const verify::Gap& g : t.view.gaps) {
    std::printf("  table gap %s %s (committed, in no file of the table)\n", g.space.c_str(),
                lake::FormatRanges({g.range}).c_str());
  }
  std::printf("  table %s\n", t.ok() ? "OK" : "NOT OK");
}

// What `lake verify` checks, read from the flags and the file before anything is read: a
// refusal here is a usage error (exit 2); a lake found wanting later is a failure (exit 1).
struct VerifyTarget {
  std::string table;
  std::optional<StreamOrigin> origin;     // a drain's table; none for an outbox table
  const config::SinkConfig* entry = nullptr;  // the outbox lake sink, with --config [postgres]
  std::string prefix;
  std::unique_ptr<lake::Destination> destination;
  iceberg::TableCatalog catalog;  // the table's, for --table-format iceberg
};

Result<VerifyTarget> VerifyTargetFrom(const VerifyFlags& flags, const config::Config* file,
                                      const std::string& command) {
  std::string table = flags.table.empty() ? flags.table_arg : flags.table;
  if (!flags.table.empty() && !flags.table_arg.empty() && flags.table != flags.table_arg) {
    return Status::Refuse(command + ": table given twice (" + flags.table_arg + " and --table " +
                          flags.table + ")");
  }
  if (table.empty()) {
    return Status::Refuse(command + " needs a table: ledger, audit, or --table "
                          "outbox_events|outbox_audit");
  }
  std::optional<StreamOrigin> origin;
  for (const StreamOrigin& o : StreamOrigins()) {
    if (o.name == table) origin = o;
  }
  if (table::FindTable(table) == nullptr) {
    return Status::Refuse(command + ": unknown table \"" + table +
                          "\": use ledger, audit, outbox_events or outbox_audit");
  }
  if (flags.use_nats && !origin) {
    return Status::Refuse(command + " --table " + table +
                          ": --nats-url gives a stream's range; an outbox table has none");
  }
  if (flags.has_from && flags.has_to && flags.from > flags.to) {
    return Status::Refuse(command + ": --from " + std::to_string(flags.from) + " is past --to " +
                          std::to_string(flags.to));
  }
  // With the dispatch configuration, an outbox table is its lake sink's: its prefix, its
  // destination (unless a flag names another) and its database, whose rows it must hold.
  const config::SinkConfig* entry = nullptr;
  const bool outbox_rows = !origin && file != nullptr && !file->postgres_url.empty();
  if (outbox_rows) {
    SINKD_ASSIGN_OR_RETURN(entry, LakeSinkEntry(*file, table, flags.sink, command));
  } else if (!flags.sink.empty()) {
    return Status::Refuse(command + " --sink needs an outbox table and --config with [postgres]");
  }
  std::string prefix = flags.key_prefix.empty() ? table : flags.key_prefix;
  std::unique_ptr<lake::Destination> destination;
  iceberg::TableCatalog catalog = flags.catalog;
  if (entry != nullptr) {
    config::OptionReader options(*entry);
    if (flags.key_prefix.empty()) {
      SINKD_ASSIGN_OR_RETURN(prefix, options.String("key_prefix", table));
    }
    if (!flags.destination_given) {
      SINKD_ASSIGN_OR_RETURN(destination, DestinationFromSinkOptions(options, nullptr));
    }
    // The sink's table is where its entry commits it, unless a flag names another catalog.
    if (!flags.catalog_given) {
      sinks::SinkEnvironment env;
      env.catalog = flags.catalog;
      env.outbox_conninfo = file->postgres_url;
      SINKD_ASSIGN_OR_RETURN(catalog, sinks::LakeSinkCatalog(*entry, options, env));
    }
  }
  if (flags.table_format == iceberg::kIcebergCommitFormat) {
    SINKD_RETURN_IF_ERROR(iceberg::CheckTableCatalog(catalog));
  }
  lake::LakeWriterOptions check;
  check.key_prefix = prefix;
  check.instance = "verify";
  SINKD_RETURN_IF_ERROR(check.Validate());
  if (!destination) {
    SINKD_ASSIGN_OR_RETURN(destination, MakeDestination(flags.destination));
  }
  return VerifyTarget{table, origin, entry, prefix, std::move(destination), std::move(catalog)};
}

Status RunVerify(const VerifyFlags& flags, const config::Config* file, Invocation& invocation) {
  SINKD_ASSIGN_OR_RETURN(VerifyTarget target, invocation.Usage(VerifyTargetFrom(flags, file, "lake verify")));
  const std::string& table = target.table;
  const std::optional<StreamOrigin>& origin = target.origin;
  const config::SinkConfig* entry = target.entry;
  const std::string& prefix = target.prefix;
  std::unique_ptr<lake::Destination>& destination = target.destination;
  const std::string where = destination->Describe();

  verify::LakeCheckRequest request;
  request.table = table;
  request.prefix = prefix;
  request.input.small_part_bytes = flags.small_bytes;
  if (flags.has_from) request.input.from = flags.from;
  if (flags.has_to) request.input.to = flags.to;
  std::unique_ptr<iceberg::FilesCatalog> catalog;
  if (flags.table_format == iceberg::kIcebergCommitFormat) {
    request.columns = table::FindTable(table)->columns;
    SINKD_ASSIGN_OR_RETURN(catalog,
                           invocation.Usage(TableCatalogOf(*destination, prefix, *request.columns,
                                                           target.catalog, /*read_only=*/true)));
    request.catalog = catalog.get();
  }
  if (flags.use_nats) {
    verify::StreamExpectation stream;
    stream.connect = flags.nats;
    stream.connect.name = "sinkd lake verify " + table;
    stream.origin = origin->name;
    stream.stream = origin->stream;
    stream.durable = flags.durable.empty() ? "sink-" + origin->name : flags.durable;
    request.stream = std::move(stream);
  }
  if (entry != nullptr) {
    request.outbox = verify::OutboxExpectation{
        file->postgres_url,
        table == "outbox_events" ? verify::OutboxTable::kEvents : verify::OutboxTable::kAudit,
        entry->id};
  }
  std::unique_ptr<Progress> progress;
  request.progress = [&](uint64_t done, uint64_t total) {
    if (!progress) {
      progress = std::make_unique<Progress>(stderr, "lake verify " + table, total,
                                            ProgressUnit::kCount, "objects");
    }
    if (progress->active()) progress->Update(done);
  };
  SINKD_ASSIGN_OR_RETURN(verify::LakeCheckResult checked,
                         verify::CheckLake(*destination, std::move(request)));
  progress.reset();
  const verify::VerifyReport& report = checked.report;
  const std::optional<verify::TableReport>& table_report = checked.table;
  if (flags.json) {
    nlohmann::json j = ReportJson(table, prefix, where, report);
    if (table_report) {
      j["iceberg"] = TableReportJson(*table_report);
      j["ok"] = report.ok() && table_report->ok();
    }
    std::printf("%s\n", j.dump().c_str());
  } else {
    PrintText(table, where, report);
    if (table_report) PrintTableText(*table_report, target.catalog, prefix);
  }
  std::fflush(stdout);
  if (checked.ok()) return Status::OK();
  return Status::Refuse("lake verify " + table + ": " + checked.Problems());
}


nlohmann::json StatsJson(const std::vector<std::string>& columns, const verify::PartitionStats& p) {
  nlohmann::json j;
  if (!p.partition.empty()) {
    j["partition"] = p.partition;
    j["date"] = p.date;
    nlohmann::json values = nlohmann::json::object();
    for (size_t i = 0; i < columns.size() && i < p.values.size(); ++i) values[columns[i]] = p.values[i];
    j["values"] = values;
  }
  j["parts"] = p.parts;
  j["rows"] = p.rows;
  j["bytes"] = p.bytes;
  j["small_parts"] = p.small_parts;
  j["superseded_parts"] = p.superseded_parts;
  j["superseded_bytes"] = p.superseded_bytes;
  return j;
}

Status RunStats(const VerifyFlags& flags, const config::Config* file, Invocation& invocation) {
  SINKD_ASSIGN_OR_RETURN(VerifyTarget target,
                         invocation.Usage(VerifyTargetFrom(flags, file, "lake stats")));
  if (flags.target_bytes < (uint64_t{1} << 20)) {
    invocation.usage_error = true;
    return Status::Refuse("--target-bytes " + std::to_string(flags.target_bytes) +
                          ": must be at least 1 MiB (1048576)");
  }
  const std::string where = target.destination->Describe();
  verify::VerifyInput input;
  {
    std::unique_ptr<Progress> progress;
    SINKD_RETURN_IF_ERROR(verify::ScanLake(
        *target.destination, target.prefix, input, [&](uint64_t done, uint64_t total) {
          if (!progress) {
            progress = std::make_unique<Progress>(stderr, "lake stats " + target.table, total,
                                                  ProgressUnit::kCount, "objects");
          }
          if (progress->active()) progress->Update(done);
        }));
  }
  // Small as compaction sees it: below half the target, a Part its policy still merges
  // (compact/policy.h, IsFull).
  const uint64_t small_below = flags.target_bytes / 2;
  const verify::LakeStats stats =
      verify::Stats(*table::FindTable(target.table)->columns, target.prefix, input.objects,
                    small_below);
  if (flags.json) {
    nlohmann::json j;
    j["table"] = target.table;
    j["prefix"] = target.prefix;
    j["destination"] = where;
    j["target_bytes"] = flags.target_bytes;
    j["small_below_bytes"] = small_below;
    j["columns"] = stats.columns;
    j["partitions"] = nlohmann::json::array();
    for (const verify::PartitionStats& p : stats.partitions) {
      j["partitions"].push_back(StatsJson(stats.columns, p));
    }
    j["total"] = StatsJson(stats.columns, stats.total);
    j["foreign"] = stats.foreign;
    j["unreadable"] = stats.unreadable;
    std::printf("%s\n", j.dump().c_str());
  } else {
    const verify::PartitionStats& t = stats.total;
    std::printf("lake stats %s (%s): %zu partitions; %llu Parts, %llu rows, %llu bytes; %llu "
                "small (below %llu bytes, half of --target-bytes: compaction still merges them); "
                "%llu superseded (%llu bytes, awaiting deletion)\n",
                target.table.c_str(), where.c_str(), stats.partitions.size(),
                static_cast<unsigned long long>(t.parts), static_cast<unsigned long long>(t.rows),
                static_cast<unsigned long long>(t.bytes),
                static_cast<unsigned long long>(t.small_parts),
                static_cast<unsigned long long>(small_below),
                static_cast<unsigned long long>(t.superseded_parts),
                static_cast<unsigned long long>(t.superseded_bytes));
    std::vector<std::string> head = {"date"};
    head.insert(head.end(), stats.columns.begin(), stats.columns.end());
    for (const char* h : {"parts", "rows", "bytes", "small", "superseded"}) head.push_back(h);
    std::vector<std::vector<std::string>> rows = {head};
    for (const verify::PartitionStats& p : stats.partitions) {
      std::vector<std::string> row = {p.date};
      row.insert(row.end(), p.values.begin(), p.values.end());
      for (uint64_t n : {p.parts, p.rows, p.bytes, p.small_parts, p.superseded_parts}) {
        row.push_back(std::to_string(n));
      }
      rows.push_back(std::move(row));
    }
    std::vector<size_t> width(head.size(), 0);
    for (const auto& row : rows) {
      for (size_t i = 0; i < row.size() && i < width.size(); ++i) {
        width[i] = std::max(width[i], row[i].size());
      }
    }
    const size_t numbers = head.size() - 5;  // the figures align right
    for (const auto& row : rows) {
      std::string line;
      for (size_t i = 0; i < row.size() && i < width.size(); ++i) {
        if (i > 0) line += "  ";
        line += i < numbers ? fmt::format("{:<{}}", row[i], width[i])
                            : fmt::format("{:>{}}", row[i], width[i]);
      }
      while (!line.empty() && line.back() == ' ') line.pop_back();
      std::printf("%s\n", line.c_str());
    }
    if (!stats.foreign.empty()) {
      std::printf("%zu objects under %s/ are not the table's (another layout): not counted\n",
                  stats.foreign.size(), target.prefix.c_str());
    }
    for (const std::string& u : stats.unreadable) std::printf("unreadable %s\n", u.c_str());
  }
  std::fflush(stdout);
  if (stats.unreadable.empty()) return Status::OK();
  std::string all;
  for (const std::string& u : stats.unreadable) all += (all.empty() ? "" : "; ") + u;
  return Status::Refuse("lake stats " + target.table + ": " +
                        std::to_string(stats.unreadable.size()) +
                        " Part(s) whose footer cannot be read: " + all);
}
}  // namespace

void AddLakeCommand(CLI::App& root, Invocation& invocation) {
  CLI::App* parent = AddParent(root, "lake", "inspect a lake");
  auto flags = std::make_shared<VerifyFlags>();
  CLI::App* cmd = parent->add_subcommand(
      "verify", "prove from Part footers that nothing acknowledged is missing from a table");
  auto config = std::make_shared<ConfigFlags>(*cmd, "lake verify");
  invocation.configurable.push_back(config);
  cmd->add_option("table", flags->table_arg, "ledger or audit")
      ->check(CLI::IsMember(table::TableNames(table::Writer::kStream)));
  cmd->add_option("--table", flags->table, "ledger, audit, outbox_events or outbox_audit")
      ->check(CLI::IsMember(table::TableNames()));
  AddDestinationFlags(*cmd, flags->destination);
  cmd->add_option("--key-prefix", flags->key_prefix, "the table's first key segment (default: "
                                                     "the table's name)");
  AddNatsFlags(*cmd, flags->nats, *config);
  cmd->add_option("--durable", flags->durable,
                  "with --nats-url: the drain's durable (default sink-<table>)");
  CLI::Option* from = cmd->add_option("--from", flags->from, "lowest sequence to check");
  CLI::Option* to = cmd->add_option("--to", flags->to, "highest sequence to check");
  AddSizeOption(*cmd, "--small-bytes", flags->small_bytes,
                "a Part below this size counts as small");
  cmd->add_flag("--json", flags->json, "one JSON object on standard output");
  cmd->add_option("--sink", flags->sink,
                  "outbox tables with --config: the lake sink (default: the only one)");
  cmd->add_option("--table-format", flags->table_format,
                  "iceberg: also check the table's current snapshot (every file it names there, "
                  "agreeing with its manifest entry) and the gaps from its committed positions")
      ->check(CLI::IsMember(table::TableFormats()))
      ->capture_default_str();
  AddTableCatalogFlags(*cmd, *config, flags->catalog);
  BindDestinationFlags(*config);
  config->Bind("--table-format", {"lake.table_format"});
  cmd->callback([flags, config, cmd, from, to, &invocation] {
    invocation.run = [flags, config, cmd, from, to, &invocation] {
      // The drain's own keys, for the table the command names: its durable and its prefix.
      const std::string table = flags->table.empty() ? flags->table_arg : flags->table;
      if (table == "ledger" || table == "audit") {
        config->Bind("--durable", {"drain." + table + ".durable"});
        config->Bind("--key-prefix", {"drain." + table + ".key_prefix"});
      }
      for (const char* f : {"--lake-dir", "--s3-endpoint", "--s3-bucket"}) {
        if (cmd->get_option(f)->count() > 0) flags->destination_given = true;
      }
      for (const char* f : {"--iceberg-catalog", "--iceberg-catalog-url", "--iceberg-namespace"}) {
        if (cmd->get_option(f)->count() > 0) flags->catalog_given = true;
      }
      SINKD_RETURN_IF_ERROR(invocation.Usage(config->Apply()));
      flags->has_from = from->count() > 0;
      flags->has_to = to->count() > 0;
      // A stream's range only when asked for (the flag or nats.url in the file): an exported
      // NATS_URL alone does not turn a check of the lake into one of the broker.
      flags->use_nats = cmd->get_option("--nats-url")->count() > 0;
      return RunVerify(*flags, config->file() ? &*config->file() : nullptr, invocation);
    };
  });

  auto stats_flags = std::make_shared<VerifyFlags>();
  CLI::App* stats = parent->add_subcommand(
      "stats", "per partition (date and the partition columns): Parts, rows, bytes, small Parts");
  auto stats_config = std::make_shared<ConfigFlags>(*stats, "lake stats");
  invocation.configurable.push_back(stats_config);
  stats->add_option("table", stats_flags->table_arg, "ledger or audit")
      ->check(CLI::IsMember(table::TableNames(table::Writer::kStream)));
  stats->add_option("--table", stats_flags->table, "ledger, audit, outbox_events or outbox_audit")
      ->check(CLI::IsMember(table::TableNames()));
  AddDestinationFlags(*stats, stats_flags->destination);
  stats->add_option("--key-prefix", stats_flags->key_prefix,
                    "the table's first key segment (default: the table's name)");
  AddSizeOption(*stats, "--target-bytes", stats_flags->target_bytes,
                "compaction's output size: a Part below half of it is small");
  stats->add_flag("--json", stats_flags->json, "one JSON object on standard output");
  stats->add_option("--sink", stats_flags->sink,
                    "outbox tables with --config: the lake sink (default: the only one)");
  BindDestinationFlags(*stats_config);
  stats_config->Bind("--target-bytes", {"compaction.target_bytes"});
  stats->callback([stats_flags, stats_config, stats, &invocation] {
    invocation.run = [stats_flags, stats_config, stats, &invocation] {
      const std::string table =
          stats_flags->table.empty() ? stats_flags->table_arg : stats_flags->table;
      if (table == "ledger" || table == "audit") {
        stats_config->Bind("--key-prefix", {"drain." + table + ".key_prefix"});
      }
      for (const char* f : {"--lake-dir", "--s3-endpoint", "--s3-bucket"}) {
        if (stats->get_option(f)->count() > 0) stats_flags->destination_given = true;
      }
      SINKD_RETURN_IF_ERROR(invocation.Usage(stats_config->Apply()));
      return RunStats(*stats_flags, stats_config->file() ? &*stats_config->file() : nullptr,
                      invocation);
    };
  });
}

}  // namespace sinkd::cli
