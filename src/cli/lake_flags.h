// Flags every command that writes a lake shares (drain, import, compact), and their validation into
// LakeWriterOptions; and --table-format, the table a command keeps over its Parts. A bad value
// stops the program before anything is read.
#pragma once

#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "base/result.h"
#include "base/work_pool.h"
#include "cli/config_flags.h"
#include "iceberg/table_format.h"
#include "lake/lake_writer.h"

namespace sinkd::cli {

struct LakeFlags {
  std::string key_prefix;   // default: the origin ("ledger", "audit")
  std::string instance_id;  // default: <hostname>-<pid>
  int zstd_level = 3;
  size_t row_group_rows = 122'880;
  size_t encode_threads = WorkPool::DefaultThreads();
  std::string table_format = "none";  // table::TableFormats(); only with AddTableFormatFlag
  // Only with AddTableFormatFlag: where an iceberg table's pointer lives (iceberg/table_format.h).
  std::string iceberg_catalog = "files";
  std::string iceberg_catalog_url;
  std::string iceberg_namespace = "lake";
};

// Adds --key-prefix, --instance-id, --zstd-level, --row-group-rows, --encode-threads.
void AddLakeFlags(CLI::App& cmd, LakeFlags& flags);

// Adds --table-format none|iceberg (a closed set: anything else is refused naming the value and
// the choices) to a command that keeps a table over its Parts, and binds it to `lake.table_format`
// of the configuration file. iceberg/table_format.h makes the commit step it names. With it,
// --iceberg-catalog files|sql, --iceberg-catalog-url and --iceberg-namespace (config [iceberg]
// catalog, catalog_url, namespace). `help`: what --table-format's help says instead of a writer's
// (compact commits replaces, not flushes).
void AddTableFormatFlag(CLI::App& cmd, LakeFlags& flags, const std::string& help = "");
void BindTableFormatFlag(ConfigFlags& config);
// --iceberg-catalog, --iceberg-catalog-url, --iceberg-namespace alone (AddTableFormatFlag adds
// them too), for a command that reads or maintains a table where its writers keep it (`sinkd
// table`), bound to [iceberg] catalog, catalog_url, namespace.
void AddIcebergCatalogFlags(CLI::App& cmd, std::string& kind, std::string& url,
                            std::string& namespace_name);
void BindIcebergCatalogFlags(ConfigFlags& config);
// The catalog the --iceberg-* flags name.
iceberg::TableCatalog TableCatalogFrom(const LakeFlags& flags);
// AddIcebergCatalogFlags and BindIcebergCatalogFlags into `catalog`: for a command that reads or
// maintains a table (`sinkd table …`, `lake verify --table-format iceberg`).
void AddTableCatalogFlags(CLI::App& cmd, ConfigFlags& config, iceberg::TableCatalog& catalog);
// The catalog of the table of `columns` under `prefix` in `destination`, as `catalog` names it
// (iceberg::OpenCatalog: the files catalog, or the sql catalog's row whose table name is the
// prefix). Refuse, naming the flag, as CheckTableCatalog: sql without a URL (a usage error).
// `read_only` for a command that only looks (info, orphans, verify, a dry run): it creates
// nothing in the sql catalog's database, and a database without the catalog's tables holds no
// table.
Result<std::unique_ptr<iceberg::FilesCatalog>> TableCatalogOf(lake::Destination& destination,
                                                              const std::string& prefix,
                                                              const row::ColumnTable& columns,
                                                              const iceberg::TableCatalog& catalog,
                                                              bool read_only = false);

// Checks the flags (prefix and instance are single safe key tokens, levels in range) and builds the
// writer options; `origin` is the default key prefix.
Result<lake::LakeWriterOptions> LakeWriterOptionsFrom(const LakeFlags& flags,
                                                      const std::string& origin);

// "sinkd version X (build Y)": the created_by of every Part.
std::string CreatedBy();

}  // namespace sinkd::cli
