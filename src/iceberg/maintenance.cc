#include "iceberg/maintenance.h"

#include <algorithm>
#include <map>

#include "iceberg/manifest.h"
#include "iceberg/positions.h"

namespace sinkd::iceberg {

namespace {

constexpr uint64_t kWhole = uint64_t{1} << 40;

Result<std::string> ReadUri(FilesCatalog& catalog, lake::Destination& destination,
                            const std::string& uri) {
  SINKD_ASSIGN_OR_RETURN(const std::string key, catalog.KeyOf(uri));
  Result<std::string> bytes = destination.Read(key, 0, kWhole);
  if (!bytes.ok()) return bytes.status().WithContext(uri);
  return bytes;
}

// The snapshots expiry keeps (see maintenance.h).
std::set<int64_t> Kept(const TableMetadata& m, const ExpireOptions& options, int64_t now_ms,
                       std::vector<int64_t>* for_grace = nullptr) {
  std::set<int64_t> kept;
  std::map<int64_t, const Snapshot*> by_id;
  for (const Snapshot& s : m.snapshots) by_id[s.id] = &s;
  const int64_t cutoff = now_ms - options.older_than.count();
  for (const Snapshot& s : m.snapshots) {
    if (s.timestamp_ms >= cutoff) kept.insert(s.id);
  }
  // The current snapshot and its ancestors, newest first (bounded: a cycle of parents ends it).
  std::vector<const Snapshot*> chain;
  for (const Snapshot* s = m.Current(); s != nullptr && chain.size() < m.snapshots.size();) {
    chain.push_back(s);
    if (!s->parent_id) break;
    auto it = by_id.find(*s->parent_id);
    s = it == by_id.end() ? nullptr : it->second;
  }
  for (size_t i = 0; i < chain.size() && i < static_cast<size_t>(options.retain_last); ++i) {
    kept.insert(chain[i]->id);
  }
  // Every snapshot down to the nearest one carrying the positions: CommittedPositions finds them
  // by walking parents from the current one, which a gap in the chain would end. A chain carrying
  // none (a table only imports wrote) has no positions to keep, and keeps nothing for them.
  for (size_t i = 0; i < chain.size(); ++i) {
    if (chain[i]->Find(kPositionsKey) == nullptr) continue;
    for (size_t j = 0; j <= i; ++j) kept.insert(chain[j]->id);
    break;
  }
  // A replace within the grace keeps its parent, which still names the replace's inputs.
  for (const Snapshot& s : m.snapshots) {
    const std::string* op = s.Find("operation");
    if (op == nullptr || *op != "replace" || !s.parent_id) continue;
    if (now_ms - s.timestamp_ms >= options.data_grace.count()) continue;
    if (kept.insert(*s.parent_id).second && for_grace != nullptr) {
      for_grace->push_back(*s.parent_id);
    }
  }
  return kept;
}

}  // namespace

int64_t TableCreatedMs(const TableMetadata& m) {
  for (const auto& [key, value] : m.properties) {
    if (key == kCreatedMsProperty) return std::strtoll(value.c_str(), nullptr, 10);
  }
  // A table sinkd did not create: the oldest time its metadata remembers.
  int64_t oldest = m.last_updated_ms;
  for (const Snapshot& s : m.snapshots) oldest = std::min(oldest, s.timestamp_ms);
  for (const LogEntry& e : m.snapshot_log) oldest = std::min(oldest, e.timestamp_ms);
  for (const LogEntry& e : m.metadata_log) oldest = std::min(oldest, e.timestamp_ms);
  return oldest;
}

namespace {

bool IsVersionFile(std::string_view name) {
  if (!name.starts_with("v") || !name.ends_with(kMetadataFileSuffix)) return false;
  name.remove_prefix(1);
  name.remove_suffix(kMetadataFileSuffix.size());
  return !name.empty() &&
         std::all_of(name.begin(), name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

Status ExpireOptions::Validate() const {
  if (older_than.count() < 0) return Status::Refuse("expire: --older-than must not be negative");
  if (retain_last < 1) return Status::Refuse("expire: --retain-last must be at least 1");
  if (data_grace.count() < 0) return Status::Refuse("expire: --grace must not be negative");
  if (previous_versions_max < 1) {
    return Status::Refuse("expire: previous_versions_max must be at least 1");
  }
  return Status::OK();
}

Status OrphanOptions::Validate() const {
  if (older_than.count() < 0) return Status::Refuse("orphans: --older-than must not be negative");
  return Status::OK();
}

Result<std::vector<DataFile>> CurrentDataFiles(lake::Destination& destination,
                                               const TableMetadata& metadata,
                                               const KeyOfUri& key_of) {
  std::vector<DataFile> out;
  const Snapshot* current = metadata.Current();
  if (current == nullptr) return out;
  const auto read = [&](const std::string& uri) -> Result<std::string> {
    SINKD_ASSIGN_OR_RETURN(const std::string key, key_of(uri));
    Result<std::string> bytes = destination.Read(key, 0, kWhole);
    if (!bytes.ok()) return bytes.status().WithContext(uri);
    return bytes;
  };
  SINKD_ASSIGN_OR_RETURN(const std::string list, read(current->manifest_list));
  Result<std::vector<ManifestFile>> manifests = ReadManifestList(list);
  if (!manifests.ok()) return manifests.status().WithContext(current->manifest_list);
  for (const ManifestFile& m : *manifests) {
    SINKD_ASSIGN_OR_RETURN(const std::string bytes, read(m.path));
    Result<std::vector<ManifestEntry>> entries = ReadManifest(bytes, metadata.spec);
    if (!entries.ok()) return entries.status().WithContext(m.path);
    for (ManifestEntry& e : *entries) {
      if (e.status != EntryStatus::kDeleted) out.push_back(std::move(e.file));
    }
  }
  return out;
}

Result<std::set<std::string>> FilesOf(FilesCatalog& catalog, lake::Destination& destination,
                                      const TableMetadata& metadata, const std::set<int64_t>& ids) {
  std::set<std::string> out;
  std::set<std::string> manifests_read;
  for (const Snapshot& s : metadata.snapshots) {
    if (ids.count(s.id) == 0) continue;
    out.insert(s.manifest_list);
    SINKD_ASSIGN_OR_RETURN(const std::string list, ReadUri(catalog, destination, s.manifest_list));
    Result<std::vector<ManifestFile>> manifests = ReadManifestList(list);
    if (!manifests.ok()) return manifests.status().WithContext(s.manifest_list);
    for (const ManifestFile& m : *manifests) {
      out.insert(m.path);
      if (!manifests_read.insert(m.path).second) continue;  // manifests are immutable
      SINKD_ASSIGN_OR_RETURN(const std::string bytes, ReadUri(catalog, destination, m.path));
      Result<std::vector<ManifestEntry>> entries = ReadManifest(bytes, metadata.spec);
      if (!entries.ok()) return entries.status().WithContext(m.path);
      for (const ManifestEntry& e : *entries) {
        if (e.status != EntryStatus::kDeleted) out.insert(e.file.path);
      }
    }
  }
  return out;
}

Result<ExpireReport> ExpireSnapshots(FilesCatalog& catalog, lake::Destination& destination,
                                     const ExpireOptions& options, int64_t now_ms) {
  SINKD_RETURN_IF_ERROR(options.Validate());
  ExpireReport report;
  // What the winning attempt decided: its base and the metadata it wrote.
  std::optional<TableMetadata> before, after;
  const FilesCatalog::MetadataChange change =
      [&](const TableMetadata& base,
          const std::string& base_uri) -> Result<std::optional<TableMetadata>> {
    report.kept_for_grace.clear();
    const std::set<int64_t> kept = Kept(base, options, now_ms, &report.kept_for_grace);
    TableMetadata next = base;
    next.snapshots.clear();
    for (const Snapshot& s : base.snapshots) {
      if (kept.count(s.id) > 0) next.snapshots.push_back(s);
    }
    std::erase_if(next.snapshot_log,
                  [&](const LogEntry& e) { return kept.count(e.snapshot_id) == 0; });
    next.metadata_log.push_back({base_uri, 0, base.last_updated_ms});
    const size_t max = static_cast<size_t>(options.previous_versions_max);
    if (next.metadata_log.size() > max) {
      next.metadata_log.erase(next.metadata_log.begin(),
                              next.metadata_log.end() - static_cast<std::ptrdiff_t>(max));
    }
    before = base;
    after = next;
    const bool trims_log = base.metadata_log.size() + 1 > max;
    if (next.snapshots.size() == base.snapshots.size() && !trims_log) {
      return std::optional<TableMetadata>();
    }
    if (options.dry_run) return std::optional<TableMetadata>();
    return std::optional<TableMetadata>(std::move(next));
  };
  SINKD_ASSIGN_OR_RETURN(const CommitReport committed, catalog.CommitMetadata(change));
  report.version = committed.version;
  if (!before || !after) return report;
  std::set<int64_t> gone, kept;
  for (const Snapshot& s : after->snapshots) kept.insert(s.id);
  for (const Snapshot& s : before->snapshots) {
    if (kept.count(s.id) == 0) {
      gone.insert(s.id);
      report.expired.push_back(s.id);
    }
  }
  std::vector<std::string> doomed;
  if (!gone.empty()) {
    SINKD_ASSIGN_OR_RETURN(const std::set<std::string> named,
                           FilesOf(catalog, destination, *before, gone));
    SINKD_ASSIGN_OR_RETURN(const std::set<std::string> still,
                           FilesOf(catalog, destination, *after, kept));
    // Data files first, then manifests, then lists: a crash midway leaves files named by
    // nothing (orphans), never a list naming a deleted manifest of a kept snapshot.
    std::vector<std::string> data, manifests, lists;
    std::set<std::string> list_uris;
    for (const Snapshot& s : before->snapshots) list_uris.insert(s.manifest_list);
    for (const std::string& uri : named) {
      if (still.count(uri) > 0) continue;
      if (list_uris.count(uri) > 0) {
        lists.push_back(uri);
      } else if (uri.ends_with(".avro")) {
        manifests.push_back(uri);
      } else {
        data.push_back(uri);
      }
    }
    for (auto* group : {&data, &manifests, &lists}) {
      doomed.insert(doomed.end(), group->begin(), group->end());
    }
  }
  // Metadata files that left the log (never the one written now, nor the newest before it).
  std::set<std::string> logged;
  for (const LogEntry& e : after->metadata_log) logged.insert(e.metadata_file);
  for (const LogEntry& e : before->metadata_log) {
    if (logged.count(e.metadata_file) == 0) doomed.push_back(e.metadata_file);
  }
  for (const std::string& uri : doomed) {
    if (options.dry_run) {
      report.deleted.push_back(uri);
      continue;
    }
    Result<std::string> key = catalog.KeyOf(uri);
    Status deleted = key.ok() ? destination.Delete(*key) : key.status();
    if (deleted.ok() || deleted.IsNotFound()) {
      report.deleted.push_back(uri);
    } else {
      report.not_deleted.push_back(uri + ": " + deleted.message());
    }
  }
  return report;
}

Result<OrphanReport> FindOrphans(FilesCatalog& catalog, lake::Destination& destination,
                                 const OrphanOptions& options, int64_t now_ms) {
  SINKD_RETURN_IF_ERROR(options.Validate());
  SINKD_ASSIGN_OR_RETURN(const LoadedTable table, catalog.Load());
  if (!table.metadata) {
    return Status::NotFound("orphans: no Iceberg table at " + catalog.location() + " (" +
                            catalog.NoTableReason() + ")");
  }
  // Listed before the metadata's files are gathered: a commit landing in between names files
  // that are then known, and whatever the listing saw that it names is spared.
  SINKD_ASSIGN_OR_RETURN(std::string prefix, catalog.KeyOf(catalog.location()));
  prefix += "/";
  SINKD_ASSIGN_OR_RETURN(const std::vector<lake::StoredObject> objects, destination.List(prefix));
  std::set<int64_t> all;
  for (const Snapshot& s : table.metadata->snapshots) all.insert(s.id);
  SINKD_ASSIGN_OR_RETURN(std::set<std::string> named,
                         FilesOf(catalog, destination, *table.metadata, all));
  // Files a commit newer than this Load wrote: read the newest metadata again.
  SINKD_ASSIGN_OR_RETURN(const LoadedTable newest, catalog.Load());
  if (newest.metadata && newest.version != table.version) {
    std::set<int64_t> ids;
    for (const Snapshot& s : newest.metadata->snapshots) ids.insert(s.id);
    SINKD_ASSIGN_OR_RETURN(const std::set<std::string> more,
                           FilesOf(catalog, destination, *newest.metadata, ids));
    named.insert(more.begin(), more.end());
  }
  for (const LogEntry& e : table.metadata->metadata_log) named.insert(e.metadata_file);
  // The current metadata files themselves: a metastore table's (the sql catalog's
  // <N>-<uuid>.metadata.json) are no v<N> version file spared below, and no log names them yet.
  named.insert(catalog.Uri(table.key));
  if (newest.metadata) named.insert(catalog.Uri(newest.key));
  const int64_t created = TableCreatedMs(*table.metadata);
  const int64_t cutoff = now_ms - options.older_than.count();
  OrphanReport report;
  for (const lake::StoredObject& o : objects) {
    const std::string uri = catalog.Uri(o.key);
    if (named.count(uri) > 0) continue;
    const std::string_view name = std::string_view(o.key).substr(o.key.rfind('/') + 1);
    if (o.key.starts_with(prefix + "metadata/") &&
        (IsVersionFile(name) || name == "version-hint.text")) {
      continue;
    }
    if (o.modified_unix_ms <= 0 || o.modified_unix_ms >= cutoff || o.modified_unix_ms < created) {
      continue;
    }
    report.orphans.push_back(o);
    report.bytes += o.size;
  }
  if (!options.remove) return report;
  for (const lake::StoredObject& o : report.orphans) {
    Result<bool> deleted = destination.DeleteIfUnchanged(o);
    if (deleted.ok()) {
      if (*deleted) ++report.deleted;
    } else {
      report.not_deleted.push_back(o.key + ": " + deleted.status().message());
    }
  }
  return report;
}

}  // namespace sinkd::iceberg
