// `sinkd table info`: what the Iceberg table of a lake table holds, read from its newest metadata
// (found by probing past version-hint.text, as a commit finds it): where that metadata is, the
// format version, the current snapshot, how many snapshots, data files, records, bytes and
// manifests it has, and the source positions it holds (sinkd.positions). Exit 0 when the table
// has metadata, 1 when it has none or the lake cannot be read, 2 for a wrong flag.
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "cli/config_flags.h"
#include "cli/destination_flags.h"
#include "iceberg/files_catalog.h"
#include "iceberg/positions.h"
#include "lake/lake_writer.h"
#include "table/table.h"

namespace sinkd::cli {

namespace {

struct TableInfoFlags {
  DestinationFlags destination;
  std::string table;
  std::string key_prefix;
  bool json = false;
};

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
  iceberg::FilesCatalog catalog(*destination, destination->Uri(), prefix,
                                iceberg::SpecOf(*spec->columns));
  SINKD_ASSIGN_OR_RETURN(const iceberg::LoadedTable loaded, catalog.Load());
  if (!loaded.metadata) {
    return Status::NotFound("table info: no Iceberg table at " + catalog.location() +
                            " (no metadata/v<N>.metadata.json)");
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
  std::printf("  metadata          %s (hint says %lld)\n", catalog.Uri(loaded.key).c_str(),
              static_cast<long long>(loaded.hint));
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
  for (const auto& [sink, mark] : positions.outbox) {
    std::printf("  committed         outbox sink %s: up to %llu\n", sink.c_str(),
                static_cast<unsigned long long>(mark));
  }
  if (positions.empty()) std::printf("  committed         no source positions recorded\n");
  return Status::OK();
}

}  // namespace

void AddTableCommand(CLI::App& root, Invocation& invocation) {
  CLI::App* parent = AddParent(root, "table", "inspect a lake table's Iceberg metadata");
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
}

}  // namespace sinkd::cli
