// The commit step a table format names (table/commit.h): what `--table-format` (config
// `lake.table_format`) and an outbox lake sink's `table_format` select, made in one place so that
// every writer of a lake (a drain, `import`, an outbox lake sink) commits a format the same way.
//   none     table::NoCommit: the hive layout alone, nothing recorded.
//   iceberg  IcebergCommit over `destination`: each flush one append snapshot of the table at
//            <lake>/<key prefix>, through the catalog `catalog` names (TableCatalog).
// `stream_created`: the creation time of the stream a drain reads (PullConsumer::stream_created),
// the identity its positions are recorded under when a flush's Provenance carries none; "" for
// import and the outbox, whose positions are not a stream's.
// Ownership: the commit borrows `destination`, which must outlive it.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "iceberg/sql_catalog.h"
#include "lake/destination.h"
#include "table/commit.h"
#include "table/rewrite.h"

namespace sinkd::iceberg {

// Where an iceberg table's pointer to its current metadata lives (`--iceberg-catalog`,
// `--iceberg-catalog-url`, `--iceberg-namespace`; config [iceberg] catalog, catalog_url,
// namespace): `files` (the newest v<N>.metadata.json in the lake) or `sql` (Iceberg's JDBC
// catalog tables in the PostgreSQL at `url`, the table's row in namespace `namespace_name`).
struct TableCatalog {
  std::string kind = "files";
  std::string url;
  std::string namespace_name = "lake";
};

// The catalog kinds, in the order help shows them.
std::vector<std::string> CatalogKinds();
// Refuses a kind not in CatalogKinds(), sql without a URL, an empty namespace; the messages name
// the flags. Never names the URL (it may hold a password).
Status CheckTableCatalog(const TableCatalog& catalog);
// The sql catalog's target `catalog` names; nullopt for the files catalog. `read_only`: for a
// command that only looks, which must create nothing in the catalog's database (sql_catalog.h).
std::optional<SqlCatalogTarget> SqlTargetOf(const TableCatalog& catalog, bool read_only = false);

// The key of a metadata file under <table_key>/metadata/ — either catalog's naming
// (v<N>.metadata.json, <N>-<uuid>.metadata.json) — or nullopt: whether the lake keeps a table
// at `table_key`, whichever catalog names its current version.
Result<std::optional<std::string>> FindTableMetadata(lake::Destination& destination,
                                                     const std::string& table_key);

// Refuses (table::CheckTableFormat) a format that is not none or iceberg.
Result<std::unique_ptr<table::Commit>> MakeTableCommit(std::string_view format,
                                                       lake::Destination& destination,
                                                       std::string stream_created,
                                                       const TableCatalog& catalog = {});

// The commit step of `sinkd compact --table-format` (table/rewrite.h): nullptr for none (the hive
// layout alone, compact/compactor.h's grace deleter), an IcebergCommit for iceberg, through the
// catalog `catalog` names. Refuses as MakeTableCommit. `read_only`: a dry run's, which reads the
// table and commits nothing (SqlTargetOf). `threads`: CommitOptions::threads.
Result<std::unique_ptr<table::Rewrite>> MakeTableRewrite(std::string_view format,
                                                         lake::Destination& destination,
                                                         const TableCatalog& catalog = {},
                                                         bool read_only = false,
                                                         size_t threads = 1);

}  // namespace sinkd::iceberg
