#include "compact/output.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "base/sha256.h"

namespace sinkd::compact {

std::string MergeHash(std::vector<InputRef> inputs) {
  std::sort(inputs.begin(), inputs.end(),
            [](const InputRef& a, const InputRef& b) { return a.key < b.key; });
  std::string text;
  for (const InputRef& in : inputs) text += in.key + "\n" + std::to_string(in.size) + "\n";
  return Sha256Hex(text).substr(0, 32);
}

std::string OutputKey(const std::string& partition, const std::string& hash, uint64_t index,
                      uint64_t outputs) {
  // Appended piece by piece: gcc 12 -O3 warns falsely (-Wrestrict) on `partition + "/…" + hash`.
  std::string key;
  key.append(partition).append("/compact-").append(hash);
  if (outputs > 1) key.append("-").append(std::to_string(index));
  key.append(".parquet");
  return key;
}

std::vector<parquet::KeyValue> OutputMetadata(const row::ColumnTable& table,
                                              const std::vector<std::string>& supersedes,
                                              const std::vector<std::string>& stamps,
                                              const MergeCounts& counts, uint64_t index) {
  std::string stamps_json = "[";
  for (size_t i = 0; i < stamps.size(); ++i) {
    if (i > 0) stamps_json += ',';
    stamps_json += stamps[i];
  }
  stamps_json += ']';
  nlohmann::ordered_json compaction = {{"rows_in", counts.rows_in},
                                       {"rows_out", counts.rows_out},
                                       {"duplicates_dropped", counts.duplicates_dropped},
                                       {"inputs", counts.inputs},
                                       {"outputs", counts.outputs},
                                       {"index", index}};
  return {
      {"sinkd.table", std::string(table.name)},
      {"sinkd.schema_version", std::to_string(table.schema_version)},
      {"sinkd.source", "compact"},
      {"sinkd.supersedes", nlohmann::json(supersedes).dump()},
      {"sinkd.stamps", stamps_json},
      {"sinkd.compaction", compaction.dump()},
  };
}

Result<std::vector<std::string>> ParseSupersedes(std::string_view json) {
  nlohmann::json parsed = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_array()) return Status::Refuse("sinkd.supersedes is not a JSON array");
  std::vector<std::string> keys;
  for (const auto& element : parsed) {
    if (!element.is_string()) return Status::Refuse("sinkd.supersedes holds a non-string");
    keys.push_back(element.get<std::string>());
  }
  return keys;
}

Status AppendStamps(std::string_view json, std::vector<std::string>& out) {
  nlohmann::json parsed = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_array()) return Status::Refuse("sinkd.stamps is not a JSON array");
  for (const auto& element : parsed) out.push_back(element.dump());
  return Status::OK();
}

void SortUnique(std::vector<std::string>& texts) {
  std::sort(texts.begin(), texts.end());
  texts.erase(std::unique(texts.begin(), texts.end()), texts.end());
}

}  // namespace sinkd::compact
