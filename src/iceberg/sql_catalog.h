// SqlCatalog keeps the pointer to a table's current metadata in PostgreSQL, in the two tables of
// Iceberg's JDBC catalog, so that Spark, Flink, Trino and PyIceberg (type jdbc / sql) find the
// table by name: iceberg_tables (catalog_name, table_namespace, table_name, metadata_location,
// previous_metadata_location; primary key the first three) and iceberg_namespace_properties
// (catalog_name, namespace, property_key, property_value), created when missing with the columns
// and sizes Iceberg's JdbcCatalog gives them (schema V0: no iceberg_type column, which V1
// readers take as TABLE). A new namespace gets the property exists=true, as Iceberg and
// PyIceberg write it, so engines list it.
//
// Everything of the table but the pointer is written to the lake exactly as by the files
// catalog (FilesCatalog, whose commit loop this class reuses): Parts, manifests, lists and a new
// metadata file, named <table>/metadata/<NNNNN>-<uuid>.metadata.json as metastore tables name
// them, created never-replace. Swap then moves the pointer in one statement, the compare-and-swap
//   UPDATE iceberg_tables SET metadata_location = new, previous_metadata_location = old
//    WHERE catalog_name = … AND table_namespace = … AND table_name = …
//      AND metadata_location = old
// one row updated: won; none: another committer moved it first (lost: the loop re-reads,
// re-applies and retries). A table's first commit INSERTs the row; finding it there is a lost
// race. A metadata file whose swap lost is deleted (nothing names it); one whose answer was lost
// stays, and the next Load tells by the commit id whether it became current.
//
// Read-only (target.read_only): for a command that only looks (table info, orphans, a dry run of
// expire or compact), which must leave the database as it found it. It never creates the tables
// or the namespace's property row, and Swap refuses (Internal: a dry run that tried to commit).
// A database without iceberg_tables then holds no table: Load finds none and NoTableReason names
// the database and the missing catalog table.
//
// In a transaction with the caller: `in_swap` (if set) runs on the catalog's connection inside
// the swap's transaction, after the pointer moved and before COMMIT, so that what it writes (an
// outbox sink's cursor in the same database) commits with the pointer or not at all.
//
// Connection: one of its own, opened on first use and again after it broke. The URL is never
// logged or returned (libpq's messages and PgConn's never hold the password).
// Threads: one thread at a time. Errors: Retry when PostgreSQL cannot be reached (the commit loop
// tries again); Reject when the row names a metadata file outside the lake or not named as a
// metastore table's; the rest as Catalog.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "iceberg/files_catalog.h"
#include "outbox/pg.h"

namespace sinkd::iceberg {

inline constexpr char kDefaultSqlCatalogName[] = "sinkd";
inline constexpr char kDefaultSqlNamespace[] = "lake";

struct SqlCatalogTarget {
  std::string url;  // postgresql://… or libpq key=value pairs
  std::string catalog_name = kDefaultSqlCatalogName;
  std::string namespace_name = kDefaultSqlNamespace;
  bool read_only = false;  // see "Read-only" above
};

// Whether connection strings `a` and `b` reach the same database of the same server: the same
// text, or the servers' system identifier (pg_control_system(), the same for a server whatever
// address or socket reaches it), current_database() and the schemas of the search path
// (current_schemas) agree on both. An error (Retry, naming
// neither URL) when either cannot be reached. How an outbox lake sink tells that its sql catalog
// lives in the outbox's own database, where its cursor can move in the swap's transaction.
Result<bool> SameDatabase(const std::string& a, const std::string& b);

class SqlCatalog final : public FilesCatalog {
 public:
  // The table `table_key` of the lake in `destination` (as FilesCatalog), its pointer the row
  // (target.catalog_name, target.namespace_name, table_key) of iceberg_tables at target.url.
  SqlCatalog(lake::Destination& destination, std::string lake_uri, std::string table_key,
             TableSpec spec, SqlCatalogTarget target, CommitOptions options = {});

  Result<LoadedTable> Load() override;
  Result<Swapped> Swap(const LoadedTable& base, TableMetadata next,
                       const std::string& commit_id) override;
  Status Published(const LoadedTable&) override { return Status::OK(); }

  // Runs inside every later swap's transaction, after the pointer moved; an error rolls the swap
  // back (the commit fails with it, nothing moved). Empty: none.
  void set_in_swap(std::function<Status(outbox::PgConn&)> in_swap) {
    in_swap_ = std::move(in_swap);
  }

  // The metadata file the row names ("" when there is no row): what an engine reads.
  Result<std::string> MetadataLocation();

  // A table moved into this catalog (`sinkd table register`): when there is no row and the lake
  // keeps the table in the files catalog (v<N>.metadata.json), creates the row naming its newest
  // metadata file — the table's snapshots and committed positions kept — and returns that file's
  // URI; "" when there is a row or no such table, or its metadata names another location than
  // this table's and `any_location` is false (a copied lake, rebuilt only when asked).
  Result<std::string> AdoptFilesTable(bool any_location);

  // Creates iceberg_tables and iceberg_namespace_properties when missing and the namespace's
  // exists=true property; done before the first Load or Swap, once per connection. Refused when
  // read-only.
  Status EnsureSchema();

  // Why the last Load found no table: no row for it, or (read-only) no iceberg_tables at all;
  // names the database and schema, never the URL.
  std::string NoTableReason() const override { return no_table_; }

 private:
  Result<outbox::PgConn*> Conn();
  // "database \"d\", schema s" of the connection, for messages (never the URL).
  Result<std::string> Where(outbox::PgConn& conn);
  // The version N of a metastore metadata file name <N>-<uuid>.metadata.json (or sinkd's files
  // catalog's v<N>.metadata.json, for a table adopted from it); Reject otherwise.
  Result<int64_t> VersionOf(const std::string& key) const;

  SqlCatalogTarget target_;
  std::optional<outbox::PgConn> conn_;
  bool schema_ready_ = false;
  std::string no_table_;
  std::function<Status(outbox::PgConn&)> in_swap_;
};

// The catalog of the table `table_key` of the lake in `destination`: the sql catalog's row at
// `sql` when given, else the files catalog. The one place that decides, for a flush's commit
// (IcebergCommit) and for `sinkd table` alike.
std::unique_ptr<FilesCatalog> OpenCatalog(lake::Destination& destination, std::string table_key,
                                          TableSpec spec,
                                          const std::optional<SqlCatalogTarget>& sql,
                                          CommitOptions options = {});

}  // namespace sinkd::iceberg
