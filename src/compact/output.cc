#include "compact/output.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "base/sha256.h"
#include "table/footer.h"

namespace sinkd::compact {

std::string MergeHash(std::vector<InputRef> inputs) {
  std::sort(inputs.begin(), inputs.end(),
            [](const InputRef& a, const InputRef& b) { return a.key < b.key; });
  std::string text;
  for (const InputRef& in : inputs) {
    text += in.key + "\n" + std::to_string(in.size) + "\n" + in.version + "\n";
  }
  return Sha256Hex(text).substr(0, 32);
}

std::vector<parquet::KeyValue> OutputMetadata(const row::ColumnTable& table,
                                              const std::vector<InputRef>& supersedes,
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
  std::vector<parquet::KeyValue> metadata = table::FooterHead(table, table::kCompactionSource);
  std::vector<table::SupersededObject> inputs;
  for (const InputRef& in : supersedes) inputs.push_back({in.key, in.size, in.version});
  metadata.emplace_back(table::kSupersedesKey, table::FormatSupersedes(std::move(inputs)));
  metadata.emplace_back(table::kStampsKey, stamps_json);
  metadata.emplace_back(table::kCompactionKey, compaction.dump());
  return metadata;
}

Status AppendStamps(std::string_view json, std::vector<std::string>& out) {
  nlohmann::json parsed = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_array()) {
    return Status::Refuse(std::string(table::kStampsKey) + " is not a JSON array");
  }
  for (const auto& element : parsed) out.push_back(element.dump());
  return Status::OK();
}

void SortUnique(std::vector<std::string>& texts) {
  std::sort(texts.begin(), texts.end());
  texts.erase(std::unique(texts.begin(), texts.end()), texts.end());
}

}  // namespace sinkd::compact
