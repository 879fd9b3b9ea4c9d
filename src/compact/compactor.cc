#include "compact/compactor.h"

#include <chrono>
#include <map>

#include "compact/layout.h"

namespace sinkd::compact {

namespace {

bool SafeToken(std::string_view s) {
  if (s.empty() || s == "." || s == "..") return false;
  for (unsigned char c : s) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '.';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

Status CompactOptions::Validate() const {
  if (table == nullptr) return Status::Refuse("table: none given");
  size_t start = 0;
  while (true) {
    const size_t slash = prefix.find('/', start);
    if (!SafeToken(std::string_view(prefix).substr(start, slash - start))) {
      return Status::Refuse("prefix \"" + prefix +
                            "\": use '/'-separated segments of letters, digits, '-', '_' and '.'");
    }
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  // Dead letters live under dead-letters/<prefix>/ (backfill/dead_letter_file.h): never compacted.
  if (prefix == "dead-letters" || prefix.rfind("dead-letters/", 0) == 0) {
    return Status::Refuse("prefix \"" + prefix + "\": dead letters are never compacted");
  }
  if (target_bytes < (uint64_t{1} << 20)) {
    return Status::Refuse("target_bytes " + std::to_string(target_bytes) +
                          ": must be at least 1 MiB (1048576)");
  }
  if (min_parts < 2) {
    return Status::Refuse("min_parts " + std::to_string(min_parts) + ": must be at least 2");
  }
  if (settle_ms < 0) return Status::Refuse("settle: must not be negative");
  if (grace_ms < 0) return Status::Refuse("grace: must not be negative");
  lake::LakeWriterOptions lake_options;
  lake_options.key_prefix = prefix;
  lake_options.instance = "compact";
  lake_options.parquet = parquet;
  return lake_options.Validate();
}

struct Compactor::Rep {};

Compactor::Compactor(lake::Destination& destination, CompactOptions options)
    : destination_(destination), options_(std::move(options)), rep_(std::make_unique<Rep>()) {
  if (!options_.now_unix_ms) {
    options_.now_unix_ms = [] {
      return std::chrono::duration_cast<std::chrono::milliseconds>(
                 std::chrono::system_clock::now().time_since_epoch())
          .count();
    };
  }
}

Compactor::~Compactor() = default;

Result<PassReport> Compactor::RunPass(const PassHooks& hooks, PassReport* out) {
  PassReport local;
  PassReport& report = out ? *out : local;
  report = PassReport{};
  SINKD_RETURN_IF_ERROR(options_.Validate());
  Result<std::vector<lake::StoredObject>> listed = destination_.List(options_.prefix + "/");
  if (!listed.ok()) return listed.status().As(Status::Redeliver).WithContext("list lake");
  std::map<std::string, std::vector<lake::StoredObject>> partitions;
  for (lake::StoredObject& object : *listed) {
    std::optional<ObjectKey> parsed = ParseObjectKey(*options_.table, options_.prefix, object.key);
    if (parsed) partitions[parsed->partition].push_back(std::move(object));
  }
  report.partitions = partitions.size();
  if (hooks.on_partition) hooks.on_partition(report.partitions, report.partitions);
  return report;
}

}  // namespace sinkd::compact
