#include "cli/lake_flags.h"

#include <string_view>
#include <utility>

#include "base/build_info.h"
#include "iceberg/table_format.h"
#include "table/commit.h"
#include "table/key.h"

namespace sinkd::cli {

std::string CreatedBy() {
  return std::string("sinkd version ") + kVersion + " (build " + kBuildId + ")";
}

void AddLakeFlags(CLI::App& cmd, LakeFlags& flags) {
  cmd.add_option("--key-prefix", flags.key_prefix,
                 "first key segment of every Part (default: ledger or audit)");
  cmd.add_option("--instance-id", flags.instance_id,
                 "unique instance id in Part names (default: <hostname>-<pid>)");
  cmd.add_option("--zstd-level", flags.zstd_level, "ZSTD level of every Parquet page (1-19)")
      ->capture_default_str();
  cmd.add_option("--row-group-rows", flags.row_group_rows, "rows per Parquet row group")
      ->capture_default_str();
  cmd.add_option("--encode-threads", flags.encode_threads,
                 "threads decoding a batch's messages and encoding a flush's Parts and "
                 "column chunks (1-256; default: the machine's cores); the bytes written are "
                 "the same for any value")
      ->capture_default_str();
}

void AddTableFormatFlag(CLI::App& cmd, LakeFlags& flags, const std::string& help) {
  cmd.add_option("--table-format", flags.table_format,
                 !help.empty()
                     ? help
                     : "the table kept over the Parts: none (the hive layout alone) or iceberg "
                       "(each flush one append snapshot of the Iceberg table at <lake>/<key "
                       "prefix>, committed before the batch is acknowledged)")
      ->check(CLI::IsMember(table::TableFormats()))
      ->capture_default_str();
  AddIcebergCatalogFlags(cmd, flags.iceberg_catalog, flags.iceberg_catalog_url,
                         flags.iceberg_namespace);
}

void AddIcebergCatalogFlags(CLI::App& cmd, std::string& kind, std::string& url,
                            std::string& namespace_name) {
  cmd.add_option("--iceberg-catalog", kind,
                 "where an iceberg table's current metadata is named: files (the newest "
                 "metadata/v<N>.metadata.json in the lake) or sql (a row of Iceberg's JDBC "
                 "catalog tables in PostgreSQL, moved by a compare-and-swap)")
      ->check(CLI::IsMember(iceberg::CatalogKinds()))
      ->capture_default_str();
  cmd.add_option(
      "--iceberg-catalog-url", url,
      "the sql catalog's PostgreSQL (postgresql://…); its tables are created if missing");
  cmd.add_option("--iceberg-namespace", namespace_name,
                 "the sql catalog's namespace of the table (the table's name: its key prefix)")
      ->capture_default_str();
}

iceberg::TableCatalog TableCatalogFrom(const LakeFlags& flags) {
  return {flags.iceberg_catalog, flags.iceberg_catalog_url, flags.iceberg_namespace};
}

void AddTableCatalogFlags(CLI::App& cmd, ConfigFlags& config, iceberg::TableCatalog& catalog) {
  AddIcebergCatalogFlags(cmd, catalog.kind, catalog.url, catalog.namespace_name);
  BindIcebergCatalogFlags(config);
}

Result<std::unique_ptr<iceberg::FilesCatalog>> TableCatalogOf(
    lake::Destination& destination, const std::string& prefix, const row::ColumnTable& columns,
    const iceberg::TableCatalog& catalog, bool read_only) {
  SINKD_RETURN_IF_ERROR(iceberg::CheckTableCatalog(catalog));
  return iceberg::OpenCatalog(destination, prefix, iceberg::SpecOf(columns),
                              iceberg::SqlTargetOf(catalog, read_only));
}

void BindTableFormatFlag(ConfigFlags& config) {
  config.Bind("--table-format", {"lake.table_format"});
  BindIcebergCatalogFlags(config);
}

void BindIcebergCatalogFlags(ConfigFlags& config) {
  config.Bind("--iceberg-catalog", {"iceberg.catalog"});
  config.Bind("--iceberg-catalog-url", {"iceberg.catalog_url"});
  config.Bind("--iceberg-namespace", {"iceberg.namespace"});
}

Result<lake::LakeWriterOptions> LakeWriterOptionsFrom(const LakeFlags& flags,
                                                      const std::string& origin) {
  lake::LakeWriterOptions options;
  options.key_prefix = flags.key_prefix.empty() ? origin : flags.key_prefix;
  options.instance = flags.instance_id.empty() ? table::DefaultInstanceId() : flags.instance_id;
  options.parquet.zstd_level = flags.zstd_level;
  options.parquet.row_group_rows = flags.row_group_rows;
  options.encode_threads = flags.encode_threads;
  options.parquet.created_by = CreatedBy();
  // The option names in the message are the flags': "--key-prefix \"../x\": …".
  Status valid = options.Validate();
  if (!valid.ok()) {
    std::string message = valid.message();
    for (auto [option, flag] : {std::pair{"key_prefix ", "--key-prefix "},
                                std::pair{"instance ", "--instance-id "},
                                std::pair{"zstd_level ", "--zstd-level "},
                                std::pair{"row_group_rows ", "--row-group-rows "},
                                std::pair{"encode_threads ", "--encode-threads "}}) {
      if (message.rfind(option, 0) == 0) {
        message = flag + message.substr(std::string_view(option).size());
        break;
      }
    }
    return Status::Refuse(message);
  }
  return options;
}

}  // namespace sinkd::cli
