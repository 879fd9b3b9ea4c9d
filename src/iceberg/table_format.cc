#include "iceberg/table_format.h"

#include <utility>

#include "iceberg/iceberg_commit.h"

namespace sinkd::iceberg {

std::vector<std::string> CatalogKinds() { return {"files", "sql"}; }

Status CheckTableCatalog(const TableCatalog& catalog) {
  if (catalog.kind != "files" && catalog.kind != "sql") {
    return Status::Refuse("--iceberg-catalog: " + catalog.kind + " not in {files,sql}");
  }
  if (catalog.kind == "sql" && catalog.url.empty()) {
    return Status::Refuse("--iceberg-catalog sql needs --iceberg-catalog-url postgresql://…");
  }
  if (catalog.namespace_name.empty()) return Status::Refuse("--iceberg-namespace is empty");
  return Status::OK();
}

std::optional<SqlCatalogTarget> SqlTargetOf(const TableCatalog& catalog, bool read_only) {
  if (catalog.kind != "sql") return std::nullopt;
  return SqlCatalogTarget{catalog.url, kDefaultSqlCatalogName, catalog.namespace_name, read_only};
}

Result<std::optional<std::string>> FindTableMetadata(lake::Destination& destination,
                                                     const std::string& table_key) {
  SINKD_ASSIGN_OR_RETURN(const std::vector<lake::StoredObject> objects,
                         destination.List(table_key + "/metadata/"));
  for (const lake::StoredObject& o : objects) {
    if (o.key.ends_with(kMetadataFileSuffix)) return std::optional<std::string>(o.key);
  }
  return std::optional<std::string>();
}

Result<std::unique_ptr<table::Commit>> MakeTableCommit(std::string_view format,
                                                       lake::Destination& destination,
                                                       std::string stream_created,
                                                       const TableCatalog& catalog) {
  SINKD_RETURN_IF_ERROR(table::CheckTableFormat(format));
  SINKD_RETURN_IF_ERROR(CheckTableCatalog(catalog));
  if (format == kIcebergCommitFormat) {
    return std::unique_ptr<table::Commit>(std::make_unique<IcebergCommit>(
        destination, std::move(stream_created), CommitOptions{}, SqlTargetOf(catalog)));
  }
  return std::unique_ptr<table::Commit>(std::make_unique<table::NoCommit>());
}

Result<std::unique_ptr<table::Rewrite>> MakeTableRewrite(std::string_view format,
                                                         lake::Destination& destination,
                                                         const TableCatalog& catalog,
                                                         bool read_only, size_t threads) {
  SINKD_RETURN_IF_ERROR(table::CheckTableFormat(format));
  SINKD_RETURN_IF_ERROR(CheckTableCatalog(catalog));
  if (format != kIcebergCommitFormat) return std::unique_ptr<table::Rewrite>();
  // A compaction records no source positions of its own: it carries the table's.
  CommitOptions options;
  options.threads = threads;
  return std::unique_ptr<table::Rewrite>(std::make_unique<IcebergCommit>(
      destination, "", options, SqlTargetOf(catalog, read_only)));
}

}  // namespace sinkd::iceberg
