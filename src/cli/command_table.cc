// `sinkd table info`: what the Iceberg table of a lake table holds, read from its newest metadata
// (found by probing past version-hint.text, as a commit finds it): where that metadata is, the
// format version, the current snapshot, how many snapshots, data files, records, bytes and
// manifests it has, and the source positions it holds (sinkd.positions). Exit 0 when the table
// has metadata, 1 when it has none or the lake cannot be read, 2 for a wrong flag.
// `sinkd table expire` and `sinkd table orphans`: the maintenance of iceberg/maintenance.h, each
// file deleted (or, without --delete / with --dry-run, that would be) one line; exit 1 when a
// delete failed or the table is missing.
// `sinkd table register`: adopts the live Parts a lake holds into its table in one append snapshot
// (iceberg/register.h), or with --replace-metadata rebuilds a copied lake's table at its new
// location; exit 0 when registered (or nothing was left to register), 1 when it could not.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>

#include "base/duration.h"
#include "cli/command.h"
#include "cli/config_flags.h"
#include "cli/destination_flags.h"
#include "cli/lake_flags.h"
#include "cli/nats_flags.h"
#include "cli/stream_origin.h"
#include "iceberg/files_catalog.h"
#include "iceberg/maintenance.h"
#include "iceberg/positions.h"
#include "iceberg/register.h"
#include "iceberg/sql_catalog.h"
#include "iceberg/table_format.h"
#include "jetstream/streams.h"
#include "lake/lake_writer.h"
#include "table/table.h"

namespace sinkd::cli {

namespace {

struct TableInfoFlags {
  DestinationFlags destination;
  std::string table;
  std::string key_prefix;
  iceberg::TableCatalog catalog;
  bool json = false;
};

// The table a maintenance command works on, its lake open.
struct OpenTable {
  std::unique_ptr<lake::Destination> destination;
  std::unique_ptr<iceberg::FilesCatalog> catalog;
};

Result<OpenTable> OpenTableOf(const DestinationFlags& destination, const std::string& table,
                              const std::string& key_prefix, const iceberg::TableCatalog& catalog,
                              bool read_only, const std::string& command,
                              Invocation& invocation) {
  if (table.empty()) {
    return invocation.Usage(Status::Refuse(
        command + " needs a table: ledger, audit, outbox_events or outbox_audit"));
  }
  const table::TableSpec* spec = table::FindTable(table);
  if (spec == nullptr) {
    return invocation.Usage(Status::Refuse(command + ": unknown table \"" + table + "\""));
  }
  const std::string prefix = key_prefix.empty() ? table : key_prefix;
  lake::LakeWriterOptions check;
  check.key_prefix = prefix;
  check.instance = "table";
  SINKD_RETURN_IF_ERROR(invocation.Usage(check.Validate()));
  OpenTable out;
  SINKD_ASSIGN_OR_RETURN(out.destination, invocation.Usage(MakeDestination(destination)));
  SINKD_ASSIGN_OR_RETURN(out.catalog,
                         invocation.Usage(TableCatalogOf(*out.destination, prefix, *spec->columns,
                                                         catalog, read_only)));
  return out;
}

// An age: whole days ("5d", as Iceberg's maintenance is spoken of) or a duration ("36h").
Result<std::chrono::milliseconds> AgeFlag(const std::string& text, const char* flag,
                                          Invocation& invocation) {
  if (text.size() > 1 && text.size() < 8 && text.back() == 'd' &&
      std::all_of(text.begin(), text.end() - 1, [](char c) { return c >= '0' && c <= '9'; })) {
    return std::chrono::milliseconds(std::chrono::hours(24) * std::stoll(text));
  }
  Result<std::chrono::nanoseconds> d = ParseDuration(text);
  if (!d.ok()) return invocation.Usage(d.status().WithContext(flag));
  return std::chrono::duration_cast<std::chrono::milliseconds>(*d);
}

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

struct TableExpireFlags {
  DestinationFlags destination;
  std::string table;
  std::string key_prefix;
  iceberg::TableCatalog catalog;
  std::string older_than = "5d";
  int retain_last = 1;
  int previous_versions_max = 100;
  std::string grace = "1h";
  bool dry_run = false;
};

Status RunTableExpire(const TableExpireFlags& flags, Invocation& invocation) {
  iceberg::ExpireOptions options;
  SINKD_ASSIGN_OR_RETURN(options.older_than,
                         AgeFlag(flags.older_than, "--older-than", invocation));
  SINKD_ASSIGN_OR_RETURN(options.data_grace, AgeFlag(flags.grace, "--grace", invocation));
  options.retain_last = flags.retain_last;
  options.previous_versions_max = flags.previous_versions_max;
  options.dry_run = flags.dry_run;
  SINKD_RETURN_IF_ERROR(invocation.Usage(options.Validate()));
  SINKD_ASSIGN_OR_RETURN(
      OpenTable open, OpenTableOf(flags.destination, flags.table, flags.key_prefix, flags.catalog,
                                  flags.dry_run, "table expire", invocation));
  SINKD_ASSIGN_OR_RETURN(const iceberg::ExpireReport report,
                         iceberg::ExpireSnapshots(*open.catalog, *open.destination, options,
                                                  NowMs()));
  const char* verb = flags.dry_run ? "would delete" : "deleted";
  for (const std::string& uri : report.deleted) std::printf("%s %s\n", verb, uri.c_str());
  for (const std::string& failed : report.not_deleted) {
    std::printf("not deleted %s\n", failed.c_str());
  }
  for (const int64_t id : report.kept_for_grace) {
    std::printf("kept snapshot %lld: it names the inputs of a replace younger than --grace\n",
                static_cast<long long>(id));
  }
  std::printf("table %s: %s %zu snapshots%s, %s %zu files\n", flags.table.c_str(),
              flags.dry_run ? "would expire" : "expired", report.expired.size(),
              report.expired.empty() || flags.dry_run
                  ? ""
                  : (" (metadata v" + std::to_string(report.version) + ")").c_str(),
              verb, report.deleted.size());
  if (!report.not_deleted.empty()) {
    return Status::Redeliver("table expire: " + std::to_string(report.not_deleted.size()) +
                             " files could not be deleted (listed above); a later run retries");
  }
  return Status::OK();
}

struct TableOrphansFlags {
  DestinationFlags destination;
  std::string table;
  std::string key_prefix;
  iceberg::TableCatalog catalog;
  std::string older_than = "3d";
  bool remove = false;
};

Status RunTableOrphans(const TableOrphansFlags& flags, Invocation& invocation) {
  iceberg::OrphanOptions options;
  SINKD_ASSIGN_OR_RETURN(options.older_than,
                         AgeFlag(flags.older_than, "--older-than", invocation));
  options.remove = flags.remove;
  SINKD_RETURN_IF_ERROR(invocation.Usage(options.Validate()));
  // Read-only even with --delete: orphans deletes objects in the lake, never a catalog row.
  SINKD_ASSIGN_OR_RETURN(
      OpenTable open, OpenTableOf(flags.destination, flags.table, flags.key_prefix, flags.catalog,
                                  /*read_only=*/true, "table orphans", invocation));
  SINKD_ASSIGN_OR_RETURN(const iceberg::OrphanReport report,
                         iceberg::FindOrphans(*open.catalog, *open.destination, options, NowMs()));
  for (const lake::StoredObject& o : report.orphans) {
    std::printf("orphan %s (%llu bytes)\n", open.catalog->Uri(o.key).c_str(),
                static_cast<unsigned long long>(o.size));
  }
  for (const std::string& failed : report.not_deleted) {
    std::printf("not deleted %s\n", failed.c_str());
  }
  std::printf("table %s: %zu orphans, %llu bytes%s\n", flags.table.c_str(), report.orphans.size(),
              static_cast<unsigned long long>(report.bytes),
              flags.remove ? (", deleted " + std::to_string(report.deleted)).c_str() : "");
  if (!report.not_deleted.empty()) {
    return Status::Redeliver("table orphans: " + std::to_string(report.not_deleted.size()) +
                             " files could not be deleted (listed above)");
  }
  return Status::OK();
}

// A summary total as a number (0 when the snapshot has none).
uint64_t SummaryCount(const iceberg::Snapshot* s, const char* key) {
  const std::string* v = s == nullptr ? nullptr : s->Find(key);
  return v == nullptr ? 0 : std::strtoull(v->c_str(), nullptr, 10);
}

Status RunTableInfo(const TableInfoFlags& flags, Invocation& invocation) {
  // Checked here rather than by the parser, so that a wrong flag is named first (exit 2 either
  // way).
  if (flags.table.empty()) {
    return invocation.Usage(
        Status::Refuse("table info needs a table: ledger, audit, outbox_events or outbox_audit"));
  }
  const table::TableSpec* spec = table::FindTable(flags.table);
  if (spec == nullptr) {
    return invocation.Usage(Status::Refuse("table info: unknown table \"" + flags.table + "\""));
  }
  const std::string prefix = flags.key_prefix.empty() ? flags.table : flags.key_prefix;
  lake::LakeWriterOptions check;
  check.key_prefix = prefix;
  check.instance = "table-info";
  SINKD_RETURN_IF_ERROR(invocation.Usage(check.Validate()));
  SINKD_ASSIGN_OR_RETURN(std::unique_ptr<lake::Destination> destination,
                         invocation.Usage(MakeDestination(flags.destination)));
  SINKD_ASSIGN_OR_RETURN(std::unique_ptr<iceberg::FilesCatalog> opened,
                         invocation.Usage(TableCatalogOf(*destination, prefix, *spec->columns,
                                                         flags.catalog, /*read_only=*/true)));
  iceberg::FilesCatalog& catalog = *opened;
  SINKD_ASSIGN_OR_RETURN(const iceberg::LoadedTable loaded, catalog.Load());
  if (!loaded.metadata) {
    return Status::NotFound("table info: no Iceberg table at " + catalog.location() + " (" +
                            catalog.NoTableReason() + ")");
  }
  const iceberg::TableMetadata& m = *loaded.metadata;
  const iceberg::Snapshot* current = m.Current();
  size_t manifests = 0;
  if (current != nullptr) {
    SINKD_ASSIGN_OR_RETURN(const std::string list_key, catalog.KeyOf(current->manifest_list));
    SINKD_ASSIGN_OR_RETURN(const std::string list,
                           destination->Read(list_key, 0, uint64_t{1} << 40));
    SINKD_ASSIGN_OR_RETURN(const std::vector<iceberg::ManifestFile> listed,
                           iceberg::ReadManifestList(list));
    manifests = listed.size();
  }
  SINKD_ASSIGN_OR_RETURN(const iceberg::Positions positions, iceberg::CommittedPositions(&m));
  const nlohmann::ordered_json positions_json =
      nlohmann::ordered_json::parse(iceberg::PositionsJson(positions));
  nlohmann::ordered_json j = {
      {"table", flags.table},
      {"location", m.location},
      {"metadata", catalog.Uri(loaded.key)},
      {"catalog", flags.catalog.kind},
      {"version", loaded.version},
      {"version_hint", loaded.hint},
      {"format_version", 2},
      {"table_uuid", m.uuid},
      {"current_snapshot", current != nullptr ? nlohmann::ordered_json(current->id) : nullptr},
      {"snapshots", m.snapshots.size()},
      {"data_files", SummaryCount(current, "total-data-files")},
      {"records", SummaryCount(current, "total-records")},
      {"bytes", SummaryCount(current, "total-files-size")},
      {"manifests", manifests},
      {"positions", positions_json}};
  if (flags.json) {
    std::printf("%s\n", j.dump().c_str());
    return Status::OK();
  }
  std::printf("table %s: Iceberg format version 2 at %s\n", flags.table.c_str(),
              m.location.c_str());
  if (flags.catalog.kind == "sql") {
    std::printf("  metadata          %s (named by the sql catalog, namespace %s)\n",
                catalog.Uri(loaded.key).c_str(), flags.catalog.namespace_name.c_str());
  } else {
    std::printf("  metadata          %s (hint says %lld)\n", catalog.Uri(loaded.key).c_str(),
                static_cast<long long>(loaded.hint));
  }
  if (current != nullptr) {
    std::printf("  current snapshot  %lld (sequence %lld)\n", static_cast<long long>(current->id),
                static_cast<long long>(current->sequence_number));
  } else {
    std::printf("  current snapshot  none\n");
  }
  for (const char* key : {"snapshots", "data_files", "records", "bytes", "manifests"}) {
    std::printf("  %-17s %s\n", key, j[key].dump().c_str());
  }
  for (const auto& [stream, ranges] : positions.streams) {
    std::printf("  committed         stream %s: %s\n", stream.c_str(),
                lake::FormatRanges(ranges).c_str());
  }
  for (const auto& [sink, seq] : positions.outbox) {
    std::printf("  committed         outbox sink %s: up to %llu:%llu\n", sink.c_str(),
                static_cast<unsigned long long>(positions.OutboxMark(sink).first),
                static_cast<unsigned long long>(seq));
  }
  if (positions.empty()) std::printf("  committed         no source positions recorded\n");
  return Status::OK();
}

void AddTableTarget(CLI::App& cmd, std::string& table, std::string& key_prefix,
                    DestinationFlags& destination) {
  cmd.add_option("table", table, "ledger, audit, outbox_events or outbox_audit")
      ->check(CLI::IsMember(table::TableNames()));
  AddDestinationFlags(cmd, destination);
  cmd.add_option("--key-prefix", key_prefix,
                 "the table's first key segment (default: the table's name)");
}

void AddTableExpire(CLI::App& parent, Invocation& invocation) {
  auto flags = std::make_shared<TableExpireFlags>();
  CLI::App* cmd = parent.add_subcommand(
      "expire", "drop old snapshots, then the files and metadata only they named");
  auto config = std::make_shared<ConfigFlags>(*cmd, "table expire");
  invocation.configurable.push_back(config);
  AddTableTarget(*cmd, flags->table, flags->key_prefix, flags->destination);
  cmd->add_option("--older-than", flags->older_than,
                  "expire snapshots older than this: days (5d, the default: Iceberg's) or a "
                  "duration");
  cmd->add_option("--retain-last", flags->retain_last,
                  "always keep this many newest snapshots (default 1)");
  cmd->add_option("--previous-versions-max", flags->previous_versions_max,
                  "metadata files kept besides the newest (default 100)");
  cmd->add_option("--grace", flags->grace,
                  "delete a compaction's input only this long after its replace (default 1h, "
                  "[compaction] grace: glob readers may still open it)");
  cmd->add_flag("--dry-run", flags->dry_run, "print what would go; change nothing");
  AddTableCatalogFlags(*cmd, *config, flags->catalog);
  BindDestinationFlags(*config);
  config->Bind("--grace", {"compaction.grace"});
  config->Bind("--older-than", {"iceberg.expire_older_than"});
  config->Bind("--retain-last", {"iceberg.expire_retain_last"});
  config->Bind("--previous-versions-max", {"iceberg.previous_versions_max"});
  cmd->callback([flags, config, &invocation] {
    invocation.run = [flags, config, &invocation] {
      if (flags->table == "ledger" || flags->table == "audit") {
        config->Bind("--key-prefix", {"drain." + flags->table + ".key_prefix"});
      }
      SINKD_RETURN_IF_ERROR(invocation.Usage(config->Apply()));
      return RunTableExpire(*flags, invocation);
    };
  });
}

void AddTableOrphans(CLI::App& parent, Invocation& invocation) {
  auto flags = std::make_shared<TableOrphansFlags>();
  CLI::App* cmd = parent.add_subcommand(
      "orphans", "list (--delete: delete) files under a table that no snapshot names");
  auto config = std::make_shared<ConfigFlags>(*cmd, "table orphans");
  invocation.configurable.push_back(config);
  AddTableTarget(*cmd, flags->table, flags->key_prefix, flags->destination);
  cmd->add_option("--older-than", flags->older_than,
                  "only files older than this: days (3d, the default) or a duration (a running "
                  "commit's files are young)");
  cmd->add_flag("--delete", flags->remove, "delete them");
  AddTableCatalogFlags(*cmd, *config, flags->catalog);
  BindDestinationFlags(*config);
  config->Bind("--older-than", {"iceberg.orphans_older_than"});
  config->Bind("--delete", {"iceberg.orphans_delete"});
  cmd->callback([flags, config, &invocation] {
    invocation.run = [flags, config, &invocation] {
      if (flags->table == "ledger" || flags->table == "audit") {
        config->Bind("--key-prefix", {"drain." + flags->table + ".key_prefix"});
      }
      SINKD_RETURN_IF_ERROR(invocation.Usage(config->Apply()));
      return RunTableOrphans(*flags, invocation);
    };
  });
}

struct TableRegisterFlags {
  DestinationFlags destination;
  jetstream::ConnectOptions nats;
  std::string table;
  std::string key_prefix;
  iceberg::TableCatalog catalog;
  std::vector<std::string> stream_created;  // TIME or STREAM=TIME
  bool replace_metadata = false;
  bool use_nats = false;
};

Status RunTableRegister(const TableRegisterFlags& flags, Invocation& invocation) {
  iceberg::RegisterOptions options;
  options.replace_metadata = flags.replace_metadata;
  for (const std::string& given : flags.stream_created) {
    const size_t eq = given.find('=');
    const std::string stream = eq == std::string::npos ? "*" : given.substr(0, eq);
    const std::string created = eq == std::string::npos ? given : given.substr(eq + 1);
    if (created.empty() || stream.empty()) {
      return invocation.Usage(Status::Refuse("--stream-created \"" + given +
                                             "\": give TIME or STREAM=TIME (the stream's Created, "
                                             "RFC 3339)"));
    }
    options.stream_created[stream] = created;
  }
  SINKD_ASSIGN_OR_RETURN(OpenTable open,
                         OpenTableOf(flags.destination, flags.table, flags.key_prefix,
                                     flags.catalog, /*read_only=*/false, "table register",
                                     invocation));
  if (flags.use_nats) {
    // The stream's creation time from the server: the table of a drain keys positions by it.
    std::optional<StreamOrigin> origin;
    for (const StreamOrigin& o : StreamOrigins()) {
      if (o.name == flags.table) origin = o;
    }
    if (!origin) {
      return invocation.Usage(Status::Refuse("table register " + flags.table +
                                             ": --nats-url gives a stream's creation time; an "
                                             "outbox table has none"));
    }
    if (options.stream_created.count(origin->stream) == 0) {
      jetstream::ConnectOptions connect = flags.nats;
      connect.name = "sinkd table register " + flags.table;
      SINKD_ASSIGN_OR_RETURN(auto connection, jetstream::Connection::Connect(connect));
      SINKD_ASSIGN_OR_RETURN(const jetstream::StreamState stream,
                             jetstream::GetStreamState(*connection, origin->stream));
      options.stream_created[origin->stream] = stream.created;
    }
  }
  const table::TableSpec* spec = table::FindTable(flags.table);
  const std::string prefix = flags.key_prefix.empty() ? flags.table : flags.key_prefix;
  SINKD_ASSIGN_OR_RETURN(
      const iceberg::RegisterReport report,
      iceberg::Register(*open.catalog, *open.destination, *spec->columns, prefix, options));
  if (!report.adopted.empty()) {
    std::printf("adopted %s into the sql catalog (namespace %s)\n", report.adopted.c_str(),
                flags.catalog.namespace_name.c_str());
  }
  for (const std::string& key : report.not_adopted) {
    std::printf(
        "not adopted %s: younger than the table and not in it (a failed commit's; see "
        "table orphans)\n",
        open.catalog->Uri(key).c_str());
  }
  if (!report.replaced_location.empty()) {
    std::printf("replaced metadata naming %s\n", report.replaced_location.c_str());
  }
  for (const auto& [stream, ranges] : report.seeded.streams) {
    std::printf("seeded stream %s: %s\n", stream.c_str(), lake::FormatRanges(ranges).c_str());
  }
  for (const auto& [sink, mark] : report.seeded.outbox) {
    std::printf("seeded outbox sink %s: up to %llu\n", sink.c_str(),
                static_cast<unsigned long long>(mark));
  }
  if (!report.commit) {
    std::printf(
        "table %s at %s: nothing to register (%llu Parts in the table already, %llu "
        "superseded)\n",
        flags.table.c_str(), open.catalog->location().c_str(),
        static_cast<unsigned long long>(report.already),
        static_cast<unsigned long long>(report.superseded));
    return Status::OK();
  }
  std::printf(
      "table %s at %s: registered %zu Parts, %llu records, %llu bytes in snapshot %lld "
      "(metadata v%lld); %llu in the table already, %llu superseded\n",
      flags.table.c_str(), open.catalog->location().c_str(), report.added.size(),
      static_cast<unsigned long long>(report.records),
      static_cast<unsigned long long>(report.bytes),
      static_cast<long long>(report.commit->snapshot_id),
      static_cast<long long>(report.commit->version),
      static_cast<unsigned long long>(report.already),
      static_cast<unsigned long long>(report.superseded));
  return Status::OK();
}

void AddTableRegister(CLI::App& parent, Invocation& invocation) {
  auto flags = std::make_shared<TableRegisterFlags>();
  CLI::App* cmd = parent.add_subcommand(
      "register",
      "adopt the live Parts of a lake into its table in one snapshot, or rebuild a copied "
      "lake's table at its new location");
  auto config = std::make_shared<ConfigFlags>(*cmd, "table register");
  invocation.configurable.push_back(config);
  AddTableTarget(*cmd, flags->table, flags->key_prefix, flags->destination);
  cmd->add_flag("--replace-metadata", flags->replace_metadata,
                "the lake was copied here with its table, whose metadata names the old "
                "location: write a new table naming this one, of the files the old current "
                "snapshot holds and its committed positions");
  cmd->add_option("--stream-created", flags->stream_created,
                  "a stream's creation time (RFC 3339, as nats stream info shows it), which "
                  "keys the sequences the table records: TIME for the table's stream, or "
                  "STREAM=TIME; repeatable");
  AddNatsFlags(*cmd, flags->nats, *config);
  AddTableCatalogFlags(*cmd, *config, flags->catalog);
  BindDestinationFlags(*config);
  cmd->callback([flags, config, cmd, &invocation] {
    invocation.run = [flags, config, cmd, &invocation] {
      if (flags->table == "ledger" || flags->table == "audit") {
        config->Bind("--key-prefix", {"drain." + flags->table + ".key_prefix"});
      }
      SINKD_RETURN_IF_ERROR(invocation.Usage(config->Apply()));
      // The stream's creation time from NATS only when asked for (the flag or nats.url in the
      // file), as lake verify does.
      flags->use_nats = cmd->get_option("--nats-url")->count() > 0;
      return RunTableRegister(*flags, invocation);
    };
  });
}

}  // namespace

void AddTableCommand(CLI::App& root, Invocation& invocation) {
  CLI::App* parent =
      AddParent(root, "table", "inspect and maintain a lake table's Iceberg metadata");
  auto flags = std::make_shared<TableInfoFlags>();
  CLI::App* cmd = parent->add_subcommand(
      "info", "what a table's Iceberg metadata holds: snapshots, files, rows, committed positions");
  auto config = std::make_shared<ConfigFlags>(*cmd, "table info");
  invocation.configurable.push_back(config);
  cmd->add_option("table", flags->table, "ledger, audit, outbox_events or outbox_audit")
      ->check(CLI::IsMember(table::TableNames()));
  AddDestinationFlags(*cmd, flags->destination);
  cmd->add_option("--key-prefix", flags->key_prefix,
                  "the table's first key segment (default: the table's name)");
  cmd->add_flag("--json", flags->json, "one JSON object on standard output");
  AddTableCatalogFlags(*cmd, *config, flags->catalog);
  BindDestinationFlags(*config);
  cmd->callback([flags, config, &invocation] {
    invocation.run = [flags, config, &invocation] {
      if (flags->table == "ledger" || flags->table == "audit") {
        config->Bind("--key-prefix", {"drain." + flags->table + ".key_prefix"});
      }
      SINKD_RETURN_IF_ERROR(invocation.Usage(config->Apply()));
      return RunTableInfo(*flags, invocation);
    };
  });

  AddTableExpire(*parent, invocation);
  AddTableOrphans(*parent, invocation);
  AddTableRegister(*parent, invocation);
}

}  // namespace sinkd::cli
