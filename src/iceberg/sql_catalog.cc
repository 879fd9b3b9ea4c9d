#include "iceberg/sql_catalog.h"

#include <fmt/format.h>

#include <utility>

namespace sinkd::iceberg {

namespace {

constexpr char kApplication[] = "sinkd-iceberg";

// The sizes are Iceberg's JdbcCatalog's (schema V0), so that a JDBC engine pointed at this
// database finds the tables it would have created itself.
constexpr char kCreateTables[] =
    "CREATE TABLE IF NOT EXISTS iceberg_tables ("
    " catalog_name VARCHAR(255) NOT NULL,"
    " table_namespace VARCHAR(255) NOT NULL,"
    " table_name VARCHAR(255) NOT NULL,"
    " metadata_location VARCHAR(1000),"
    " previous_metadata_location VARCHAR(1000),"
    " PRIMARY KEY (catalog_name, table_namespace, table_name))";
constexpr char kCreateProperties[] =
    "CREATE TABLE IF NOT EXISTS iceberg_namespace_properties ("
    " catalog_name VARCHAR(255) NOT NULL,"
    " namespace VARCHAR(255) NOT NULL,"
    " property_key VARCHAR(255),"
    " property_value VARCHAR(1000),"
    " PRIMARY KEY (catalog_name, namespace, property_key))";

std::optional<int64_t> Digits(std::string_view s) {
  if (s.empty() || s.size() > 15) return std::nullopt;
  int64_t n = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return n;
}

// "<system identifier>/<database>/<schemas>" of the server `url` reaches: the schemas too, since
// the outbox's tables must resolve alike on the catalog's connection (a search_path set in one
// URL only is another place).
Result<std::string> DatabaseIdentity(const std::string& url, const char* which) {
  auto conn = outbox::PgConn::Connect(url, kApplication);
  if (!conn.ok()) return conn.status().As(Status::Retry).WithContext(which);
  SINKD_ASSIGN_OR_RETURN(
      const outbox::PgResult r,
      conn->Exec("SELECT (SELECT system_identifier FROM pg_control_system())::text || '/' || "
                 "current_database() || '/' || current_schemas(false)::text"));
  if (r.rows() != 1) return Status::Internal(std::string(which) + ": no identity");
  return std::string(r.Text(0, 0));
}

}  // namespace

Result<bool> SameDatabase(const std::string& a, const std::string& b) {
  if (a == b) return true;
  SINKD_ASSIGN_OR_RETURN(const std::string first, DatabaseIdentity(a, "the sql catalog's url"));
  SINKD_ASSIGN_OR_RETURN(const std::string second, DatabaseIdentity(b, "the outbox's url"));
  return first == second;
}

SqlCatalog::SqlCatalog(lake::Destination& destination, std::string lake_uri, std::string table_key,
                       TableSpec spec, SqlCatalogTarget target, CommitOptions options)
    : FilesCatalog(destination, std::move(lake_uri), std::move(table_key), std::move(spec),
                   std::move(options)),
      target_(std::move(target)) {}

Result<outbox::PgConn*> SqlCatalog::Conn() {
  if (!conn_ || !conn_->healthy()) {
    conn_.reset();
    schema_ready_ = false;
    SINKD_ASSIGN_OR_RETURN(outbox::PgConn conn, outbox::PgConn::Connect(target_.url, kApplication));
    conn_.emplace(std::move(conn));
  }
  // Read-only: the tables are looked for by MetadataLocation instead, never created.
  if (!schema_ready_ && !target_.read_only) {
    schema_ready_ = true;  // EnsureSchema asks for the connection again
    if (Status ensured = EnsureSchema(); !ensured.ok()) {
      schema_ready_ = false;
      return ensured;
    }
  }
  return &*conn_;
}

Status SqlCatalog::EnsureSchema() {
  if (target_.read_only) {
    return Status::Internal("iceberg: the sql catalog was opened read-only; its tables are not "
                            "created");
  }
  SINKD_ASSIGN_OR_RETURN(outbox::PgConn * conn, Conn());
  // Two processes creating the tables at once can both pass IF NOT EXISTS and one then fails on
  // the catalog's unique index; the second round finds them there.
  Status last = Status::OK();
  for (int round = 0; round < 2; ++round) {
    Result<outbox::PgResult> tables = conn->Exec(kCreateTables);
    Result<outbox::PgResult> properties =
        tables.ok() ? conn->Exec(kCreateProperties) : tables.status();
    last = properties.ok() ? Status::OK() : properties.status();
    if (last.ok()) break;
  }
  SINKD_RETURN_IF_ERROR(last);
  // Iceberg and PyIceberg list a namespace by its properties; exists=true is what they write for
  // one created without any.
  SINKD_RETURN_IF_ERROR(conn->Exec("INSERT INTO iceberg_namespace_properties "
                                   "(catalog_name, namespace, property_key, property_value) "
                                   "VALUES ($1, $2, 'exists', 'true') ON CONFLICT DO NOTHING",
                                   {target_.catalog_name, target_.namespace_name})
                             .status());
  return Status::OK();
}

Result<std::string> SqlCatalog::Where(outbox::PgConn& conn) {
  SINKD_ASSIGN_OR_RETURN(
      const outbox::PgResult r,
      conn.Exec("SELECT current_database(), coalesce(current_schema(), '(none)')"));
  if (r.rows() != 1) return Status::Internal("iceberg: the sql catalog's database has no name");
  return fmt::format("database \"{}\", schema {}", r.Text(0, 0), r.Text(0, 1));
}

Result<std::string> SqlCatalog::MetadataLocation() {
  no_table_.clear();
  SINKD_ASSIGN_OR_RETURN(outbox::PgConn * conn, Conn());
  if (target_.read_only) {
    // Resolved through the search path, as the unqualified SELECT below would be.
    SINKD_ASSIGN_OR_RETURN(const outbox::PgResult found,
                           conn->Exec("SELECT to_regclass('iceberg_tables') IS NOT NULL"));
    if (found.rows() != 1 || found.Text(0, 0) != "t") {
      SINKD_ASSIGN_OR_RETURN(const std::string where, Where(*conn));
      no_table_ = "the sql catalog's " + where +
                  ", has no table iceberg_tables: nothing was committed through it (a command "
                  "that only looks creates none)";
      return std::string();
    }
  }
  SINKD_ASSIGN_OR_RETURN(
      const outbox::PgResult row,
      conn->Exec("SELECT metadata_location FROM iceberg_tables WHERE catalog_name = $1 AND "
                 "table_namespace = $2 AND table_name = $3",
                 {target_.catalog_name, target_.namespace_name, table_key_}));
  if (row.rows() == 0 || row.IsNull(0, 0)) {
    SINKD_ASSIGN_OR_RETURN(const std::string where, Where(*conn));
    no_table_ = "no row for " + table_key_ + " in namespace " + target_.namespace_name +
                " of the sql catalog, " + where;
    return std::string();
  }
  return std::string(row.Text(0, 0));
}

Result<std::string> SqlCatalog::AdoptFilesTable(bool any_location) {
  SINKD_ASSIGN_OR_RETURN(const std::string named, MetadataLocation());
  if (!named.empty()) return std::string();
  FilesCatalog files(destination_, lake_uri_, table_key_, spec_);
  SINKD_ASSIGN_OR_RETURN(const LoadedTable found, files.Load());
  if (!found.metadata || (!any_location && found.metadata->location != location())) {
    return std::string();
  }
  SINKD_ASSIGN_OR_RETURN(outbox::PgConn * conn, Conn());
  const std::string uri = Uri(found.key);
  // Another's first commit may have created the row meanwhile: theirs stands.
  SINKD_ASSIGN_OR_RETURN(
      const outbox::PgResult inserted,
      conn->Exec("INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, "
                 "metadata_location, previous_metadata_location) "
                 "VALUES ($1, $2, $3, $4, NULL) ON CONFLICT DO NOTHING",
                 {target_.catalog_name, target_.namespace_name, table_key_, uri}));
  return inserted.Affected() == 1 ? uri : std::string();
}

Result<int64_t> SqlCatalog::VersionOf(const std::string& key) const {
  std::string_view name = key;
  name.remove_prefix(name.rfind('/') == std::string_view::npos ? 0 : name.rfind('/') + 1);
  if (name.ends_with(kMetadataFileSuffix)) {
    name.remove_suffix(kMetadataFileSuffix.size());
    std::optional<int64_t> n;
    if (name.starts_with('v')) {
      n = Digits(name.substr(1));
    } else {
      n = Digits(name.substr(0, name.find('-')));
    }
    if (n && *n > 0) return *n;
  }
  return Status::Reject("iceberg: the sql catalog's row names " + Uri(key) +
                        ", not a metadata file named <N>-<uuid>.metadata.json");
}

Result<LoadedTable> SqlCatalog::Load() {
  LoadedTable loaded;
  SINKD_ASSIGN_OR_RETURN(const std::string location, MetadataLocation());
  if (location.empty()) return loaded;
  loaded.pointer = location;
  Result<std::string> key = KeyOf(location);
  // A lake copied here with its table (table register --replace-metadata) holds the file the
  // row names at its old place under the same name: read as the files catalog reads a copied
  // v<N>, so that the caller sees the old location and can rebuild, and the swap compares
  // against the row as it is.
  const size_t slash = location.rfind('/');
  const std::string name = slash == std::string::npos ? location : location.substr(slash + 1);
  if (!key.ok()) {
    const bool metadata_file =
        slash != std::string::npos && name.ends_with(kMetadataFileSuffix) &&
        std::string_view(location).substr(0, slash).ends_with("/metadata");
    if (!metadata_file) return key.status();
    const std::string here = table_key_ + "/metadata/" + name;
    SINKD_ASSIGN_OR_RETURN(const bool there, Exists(here));
    if (!there) {
      return Status::Reject("iceberg: the sql catalog's row names " + location +
                            ", outside the lake " + lake_uri_ + ", which holds no copy of it at " +
                            Uri(here));
    }
    key = here;
  }
  loaded.key = *key;
  SINKD_ASSIGN_OR_RETURN(loaded.version, VersionOf(loaded.key));
  SINKD_ASSIGN_OR_RETURN(std::string json, ReadWhole(loaded.key));
  SINKD_ASSIGN_OR_RETURN(loaded.metadata, Parsed(loaded.key, std::move(json)));
  if (location != Uri(loaded.key) && loaded.metadata->location + "/metadata/" + name != location) {
    return Status::Reject("iceberg: the sql catalog's row names " + location +
                          ", outside the lake " + lake_uri_ + "; " + Uri(loaded.key) +
                          " is not a copy of it (its table is at " + loaded.metadata->location +
                          ")");
  }
  return loaded;
}

Result<Swapped> SqlCatalog::Swap(const LoadedTable& base, TableMetadata next, const std::string&) {
  if (target_.read_only) {
    // One format string, not a sum of literals: gcc builds a short last piece of a sum in
    // registers, and "ommitted" alone is a spelling finding of lintian's in the packaged binary.
    return Status::Internal(fmt::format(
        "iceberg: the sql catalog of {} was opened read-only (a command that only looks); "
        "nothing is committed",
        location()));
  }
  Swapped swapped;
  swapped.version = base.version + 1;
  const std::string key = fmt::format("{}/metadata/{:05d}-{}{}", table_key_, swapped.version,
                                      NewUuid(), kMetadataFileSuffix);
  std::string json = ToJson(next);
  SINKD_ASSIGN_OR_RETURN(const lake::Placed created, Create(key, json));
  if (created == lake::Placed::kTaken) {
    return Status::Internal("iceberg: the new metadata file's name " + key + " is taken");
  }
  // The row must never name a file a power cut could lose.
  SINKD_RETURN_IF_ERROR(destination_.Sync());

  SINKD_ASSIGN_OR_RETURN(outbox::PgConn * conn, Conn());
  const std::string location = Uri(key);
  SINKD_RETURN_IF_ERROR(conn->Exec("BEGIN").status());
  Result<outbox::PgResult> moved =
      base.version == 0
          // The first commit creates the row; a row already there is another's first commit.
          ? conn->Exec("INSERT INTO iceberg_tables (catalog_name, table_namespace, table_name, "
                       "metadata_location, previous_metadata_location) "
                       "VALUES ($1, $2, $3, $4, NULL) ON CONFLICT DO NOTHING",
                       {target_.catalog_name, target_.namespace_name, table_key_, location})
          : conn->Exec("UPDATE iceberg_tables SET metadata_location = $4, "
                       "previous_metadata_location = $5 WHERE catalog_name = $1 AND "
                       "table_namespace = $2 AND table_name = $3 AND metadata_location = $5",
                       {target_.catalog_name, target_.namespace_name, table_key_, location,
                        base.pointer.empty() ? Uri(base.key) : base.pointer});
  Status failed = moved.ok() ? Status::OK() : moved.status();
  if (failed.ok() && moved->Affected() == 1 && in_swap_) failed = in_swap_(*conn);
  if (!failed.ok() || moved->Affected() != 1) {
    (void)conn->Exec("ROLLBACK");
    if (!failed.ok()) {
      // The transaction did not commit; the file may still be named by nothing but a retry's
      // Load is what tells, so it stays (an orphan at worst).
      return failed;
    }
    // Lost: the pointer names another's metadata, and nothing names ours.
    (void)destination_.Delete(key);
    return swapped;
  }
  // A COMMIT whose answer is lost leaves the outcome unknown: the error goes to the commit loop,
  // whose next Load reads the row and finds our commit id if it landed.
  SINKD_RETURN_IF_ERROR(conn->Exec("COMMIT").status());
  swapped.won = true;
  Remember(key, std::move(json), std::move(next));
  return swapped;
}

std::unique_ptr<FilesCatalog> OpenCatalog(lake::Destination& destination, std::string table_key,
                                          TableSpec spec,
                                          const std::optional<SqlCatalogTarget>& sql,
                                          CommitOptions options) {
  if (sql) {
    return std::make_unique<SqlCatalog>(destination, destination.Uri(), std::move(table_key),
                                        std::move(spec), *sql, std::move(options));
  }
  return std::make_unique<FilesCatalog>(destination, destination.Uri(), std::move(table_key),
                                        std::move(spec), std::move(options));
}

}  // namespace sinkd::iceberg
