#include "iceberg/iceberg_commit.h"

#include "table/table.h"

namespace sinkd::iceberg {

IcebergCommit::IcebergCommit(lake::Destination& destination, std::string stream_created,
                             CommitOptions options, std::optional<SqlCatalogTarget> sql,
                             std::function<Status(outbox::PgConn&)> in_swap)
    : destination_(destination),
      stream_created_(std::move(stream_created)),
      options_(std::move(options)),
      sql_(std::move(sql)),
      in_swap_(std::move(in_swap)) {}

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
    batch.outbox_first[sink] = p.first_sequence;
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
  std::unique_ptr<FilesCatalog> catalog;
  if (sql_) {
    auto sql = std::make_unique<SqlCatalog>(destination_, destination_.Uri(), std::string(table),
                                            SpecOf(*columns), *sql_, options_);
    if (in_swap_) sql->set_in_swap(in_swap_);
    catalog = std::move(sql);
  } else {
    catalog = std::make_unique<FilesCatalog>(destination_, destination_.Uri(), std::string(table),
                                             SpecOf(*columns), options_);
  }
  return *catalogs_.emplace(std::string(table), std::move(catalog)).first->second;
}

Result<std::vector<table::SequenceRange>> IcebergCommit::Committed(
    std::string_view table, const table::Provenance& positions) {
  const BatchPositions batch = PositionsOf(positions);
  if (batch.positions.empty()) return std::vector<table::SequenceRange>{};
  if (table::FindTable(table) == nullptr && catalogs_.find(table) == catalogs_.end()) {
    // A key prefix other than a table's name, before its first Apply: nothing to read yet.
    return std::vector<table::SequenceRange>{};
  }
  FilesCatalog& catalog = CatalogFor(table, nullptr);
  SINKD_ASSIGN_OR_RETURN(const LoadedTable loaded, catalog.Load());
  SINKD_ASSIGN_OR_RETURN(const Positions committed,
                         CommittedPositions(loaded.metadata ? &*loaded.metadata : nullptr));
  const Positions again = AlreadyCommitted(committed, batch);
  std::vector<table::SequenceRange> out;
  for (const auto& [stream, ranges] : again.streams)
    out.insert(out.end(), ranges.begin(), ranges.end());
  for (const auto& [sink, mark] : again.outbox) {
    out.push_back({batch.outbox_first.at(sink), mark});
  }
  return MergeRanges(std::move(out));
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
  Result<CommitReport> committed = catalog.Commit(append);
  return committed.ok() ? Status::OK() : committed.status();
}

}  // namespace sinkd::iceberg
