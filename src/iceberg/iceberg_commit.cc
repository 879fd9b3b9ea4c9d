#include "iceberg/iceberg_commit.h"

#include "iceberg/maintenance.h"
#include "iceberg/manifest.h"
#include "table/table.h"

namespace sinkd::iceberg {

IcebergCommit::IcebergCommit(lake::Destination& destination, std::string stream_created,
                             CommitOptions options, std::optional<SqlCatalogTarget> sql)
    : destination_(destination),
      stream_created_(std::move(stream_created)),
      options_(std::move(options)),
      sql_(std::move(sql)) {}

BatchPositions IcebergCommit::PositionsOf(const table::Provenance& p) const {
  BatchPositions batch;
  std::vector<table::SequenceRange> ranges = p.acknowledged;
  if (ranges.empty()) ranges.push_back({p.first_sequence, p.last_sequence});
  if (p.scope == "stream") {
    // The drain's Provenance names its stream's creation time; a writer that has none is given it.
    const std::string& created = p.source_created.empty() ? stream_created_ : p.source_created;
    batch.positions.streams[StreamIdentity(p.source, created)] = MergeRanges(std::move(ranges));
  } else if (p.scope == "outbox") {
    constexpr std::string_view kOutbox = "outbox:";
    const std::string sink =
        p.source.starts_with(kOutbox) ? p.source.substr(kOutbox.size()) : p.source;
    batch.positions.outbox[sink] = p.last_sequence;
    batch.positions.outbox_txid[sink] = p.last_txid.value_or(0);
    batch.outbox_first[sink] = {p.first_txid.value_or(0), p.first_sequence};
  }
  return batch;
}

FilesCatalog& IcebergCommit::CatalogFor(std::string_view table, const row::ColumnTable* columns) {
  auto it = catalogs_.find(table);
  if (it != catalogs_.end()) return *it->second;
  if (columns == nullptr) {
    // Committed comes before any Apply; the table's columns come from its name then.
    const table::TableSpec* known = table::FindTable(table);
    columns = known != nullptr ? known->columns : nullptr;
  }
  std::unique_ptr<FilesCatalog> catalog =
      OpenCatalog(destination_, std::string(table), SpecOf(*columns), sql_, options_);
  return *catalogs_.emplace(std::string(table), std::move(catalog)).first->second;
}

Result<Positions> IcebergCommit::HeldAlready(std::string_view table, const BatchPositions& batch) {
  if (table::FindTable(table) == nullptr && catalogs_.find(table) == catalogs_.end()) {
    // A key prefix other than a table's name, before its first Apply: nothing to read yet.
    return Positions{};
  }
  FilesCatalog& catalog = CatalogFor(table, nullptr);
  SINKD_ASSIGN_OR_RETURN(const LoadedTable loaded, catalog.Load());
  SINKD_ASSIGN_OR_RETURN(const Positions committed,
                         CommittedPositions(loaded.metadata ? &*loaded.metadata : nullptr));
  return AlreadyCommitted(committed, batch);
}

Result<std::vector<table::SequenceRange>> IcebergCommit::Committed(
    std::string_view table, const table::Provenance& positions) {
  const BatchPositions batch = PositionsOf(positions);
  if (batch.positions.streams.empty()) return std::vector<table::SequenceRange>{};
  SINKD_ASSIGN_OR_RETURN(const Positions again, HeldAlready(table, batch));
  std::vector<table::SequenceRange> out;
  for (const auto& [stream, ranges] : again.streams)
    out.insert(out.end(), ranges.begin(), ranges.end());
  return MergeRanges(std::move(out));
}

Result<std::optional<table::OutboxPosition>> IcebergCommit::CommittedThrough(
    std::string_view table, const table::Provenance& positions) {
  std::optional<table::OutboxPosition> none;
  const BatchPositions batch = PositionsOf(positions);
  if (batch.positions.outbox.empty()) return none;
  SINKD_ASSIGN_OR_RETURN(const Positions again, HeldAlready(table, batch));
  if (again.outbox.empty()) return none;  // one sink per Provenance
  const auto [txid, seq] = again.OutboxMark(again.outbox.begin()->first);
  return std::optional<table::OutboxPosition>(table::OutboxPosition{txid, seq});
}

Status IcebergCommit::Apply(const table::CommitRequest& request) {
  FilesCatalog& catalog = CatalogFor(request.table, &request.columns);
  const TableSpec spec = SpecOf(request.columns);
  Append append;
  for (const table::PartReport& p : request.placed.parts) {
    Result<DataFile> file = DataFileOf(spec, catalog.Uri(p.key), p.bytes, p.values, p.statistics);
    if (!file.ok()) return file.status().WithContext("iceberg: " + p.key);
    append.files.push_back(std::move(*file));
  }
  BatchPositions batch = PositionsOf(request.positions);
  if (!batch.positions.empty()) append.marks = Marks(std::move(batch));
  auto* sql = sql_ ? static_cast<SqlCatalog*>(&catalog) : nullptr;
  if (sql != nullptr && in_swap_) {
    // This flush's positions, for as long as its commit runs (retries included).
    sql->set_in_swap(
        [this, &request](outbox::PgConn& conn) { return in_swap_(conn, request.positions); });
  }
  Result<CommitReport> committed = catalog.Commit(append);
  if (sql != nullptr) sql->set_in_swap({});
  return committed.ok() ? Status::OK() : committed.status();
}

Result<table::LiveParts> IcebergCommit::Live(std::string_view table,
                                             const row::ColumnTable& columns) {
  FilesCatalog& catalog = CatalogFor(table, &columns);
  SINKD_ASSIGN_OR_RETURN(const LoadedTable loaded, catalog.Load());
  table::LiveParts out;
  LiveValues& values = live_[std::string(table)];
  values.clear();
  // The manifests read now are the ones the pass's replace rewrites: decoded once, kept for it.
  catalog.ForgetDecoded();
  const Snapshot* current = loaded.metadata ? loaded.metadata->Current() : nullptr;
  if (current == nullptr) return out;
  out.exists = true;
  constexpr uint64_t kWhole = uint64_t{1} << 40;
  SINKD_ASSIGN_OR_RETURN(const std::string list_key, catalog.KeyOf(current->manifest_list));
  Result<std::string> list = destination_.Read(list_key, 0, kWhole);
  if (!list.ok()) return list.status().WithContext(current->manifest_list);
  Result<std::vector<ManifestFile>> manifests = ReadManifestList(*list);
  if (!manifests.ok()) return manifests.status().WithContext(current->manifest_list);
  for (const ManifestFile& m : *manifests) {
    SINKD_ASSIGN_OR_RETURN(const FilesCatalog::Entries entries, catalog.Decoded(m, true));
    for (const ManifestEntry& e : *entries) {
      if (e.status == EntryStatus::kDeleted) continue;
      SINKD_ASSIGN_OR_RETURN(std::string key, catalog.KeyOf(e.file.path));
      out.keys.insert(key);
      values[std::move(key)] = e.file.values;
    }
  }
  return out;
}

Result<std::set<std::string>> IcebergCommit::Referenced(std::string_view table,
                                                        const row::ColumnTable& columns) {
  FilesCatalog& catalog = CatalogFor(table, &columns);
  SINKD_ASSIGN_OR_RETURN(const LoadedTable loaded, catalog.Load());
  std::set<std::string> keys;
  if (!loaded.metadata) return keys;
  std::set<int64_t> ids;
  for (const Snapshot& s : loaded.metadata->snapshots) ids.insert(s.id);
  SINKD_ASSIGN_OR_RETURN(const std::set<std::string> uris,
                         FilesOf(catalog, destination_, *loaded.metadata, ids));
  // Manifests and lists are named too; only keys a Part can have matter to the caller.
  for (const std::string& uri : uris) {
    Result<std::string> key = catalog.KeyOf(uri);
    if (key.ok()) keys.insert(std::move(*key));
  }
  return keys;
}

Status IcebergCommit::Replace(std::string_view table, const row::ColumnTable& columns,
                              const std::vector<table::PartRewrite>& rewrites) {
  FilesCatalog& catalog = CatalogFor(table, &columns);
  LiveValues& values = live_[std::string(table)];
  if (rewrites.empty()) return Status::Internal("iceberg: a replace of no merge");
  const TableSpec spec = SpecOf(columns);
  iceberg::Replace replace;
  for (const table::PartRewrite& rewrite : rewrites) {
    if (rewrite.removed.empty()) return Status::Internal("iceberg: a replace of no file");
    // The outputs' partition tuple is their inputs': a merge never leaves its partition.
    auto first = values.find(rewrite.removed.front());
    if (first == values.end()) {
      return Status::Internal("iceberg: " + rewrite.removed.front() +
                              " was not live when the table was read");
    }
    for (const std::string& key : rewrite.removed) replace.removed.push_back(catalog.Uri(key));
    for (const table::RewrittenPart& p : rewrite.added) {
      Result<DataFile> file =
          DataFileOf(spec, catalog.Uri(p.key), p.bytes, first->second, p.statistics);
      if (!file.ok()) return file.status().WithContext("iceberg: " + p.key);
      replace.added.push_back(std::move(*file));
    }
  }
  Result<CommitReport> committed = catalog.CommitReplace(replace);
  if (!committed.ok()) return committed.status();
  size_t i = 0;
  for (const table::PartRewrite& rewrite : rewrites) {
    for (const std::string& key : rewrite.removed) values.erase(key);
    for (const table::RewrittenPart& p : rewrite.added) values[p.key] = replace.added[i++].values;
  }
  return Status::OK();
}

}  // namespace sinkd::iceberg
