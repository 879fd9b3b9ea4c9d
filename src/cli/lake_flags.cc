#include "cli/lake_flags.h"

#include <cstdlib>

#include "base/build_info.h"
#include "lake/key.h"

namespace sinkd::cli {

namespace {

// A key token must not be able to climb out of the lake or split into two segments.
bool SafeToken(const std::string& s) {
  if (s.empty() || s == "." || s == "..") return false;
  for (unsigned char c : s) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '.';
    if (!ok) return false;
  }
  return true;
}

bool SafePrefix(const std::string& prefix) {
  size_t start = 0;
  while (true) {
    const size_t slash = prefix.find('/', start);
    if (!SafeToken(prefix.substr(start, slash - start))) return false;
    if (slash == std::string::npos) return true;
    start = slash + 1;
  }
}

}  // namespace

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
}

Result<lake::LakeWriterOptions> LakeWriterOptionsFrom(const LakeFlags& flags,
                                                      const std::string& origin) {
  lake::LakeWriterOptions options;
  options.key_prefix = flags.key_prefix.empty() ? origin : flags.key_prefix;
  if (!SafePrefix(options.key_prefix)) {
    return Status::Refuse("--key-prefix \"" + options.key_prefix +
                          "\": use '/'-separated segments of letters, digits, '-', '_' and '.'");
  }
  options.instance = flags.instance_id.empty() ? lake::DefaultInstanceId() : flags.instance_id;
  if (!SafeToken(options.instance)) {
    return Status::Refuse("--instance-id \"" + options.instance +
                          "\": use letters, digits, '-', '_' and '.' only");
  }
  if (flags.zstd_level < 1 || flags.zstd_level > 19) {
    return Status::Refuse("--zstd-level " + std::to_string(flags.zstd_level) +
                          ": must be between 1 and 19");
  }
  if (flags.row_group_rows < 1 || flags.row_group_rows > 10'000'000) {
    return Status::Refuse("--row-group-rows " + std::to_string(flags.row_group_rows) +
                          ": must be between 1 and 10000000");
  }
  options.parquet.zstd_level = flags.zstd_level;
  options.parquet.row_group_rows = flags.row_group_rows;
  options.parquet.created_by = CreatedBy();
  return options;
}

}  // namespace sinkd::cli
