#include "table/footer.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <tuple>

namespace sinkd::table {

std::vector<std::pair<std::string, std::string>> FooterHead(const row::ColumnTable& columns,
                                                            std::string_view source) {
  return {{std::string(kTableKey), std::string(columns.name)},
          {std::string(kSchemaVersionKey), std::to_string(columns.schema_version)},
          {std::string(kSourceKey), std::string(source)}};
}

std::string FormatSupersedes(std::vector<SupersededObject> inputs) {
  std::sort(inputs.begin(), inputs.end(),
            [](const SupersededObject& a, const SupersededObject& b) { return a.key < b.key; });
  nlohmann::ordered_json array = nlohmann::ordered_json::array();
  for (const SupersededObject& in : inputs) {
    array.push_back({{"key", in.key}, {"size", in.size}, {"version", in.version}});
  }
  return array.dump();
}

Result<std::vector<SupersededObject>> ParseSupersedes(std::string_view json) {
  nlohmann::json parsed = nlohmann::json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_array()) return Status::Refuse("sinkd.supersedes is not a JSON array");
  std::vector<SupersededObject> inputs;
  for (const auto& element : parsed) {
    if (element.is_string()) {
      inputs.push_back(SupersededObject{element.get<std::string>(), 0, ""});
      continue;
    }
    if (!element.is_object() || !element.contains("key") || !element["key"].is_string() ||
        !element.contains("size") || !element["size"].is_number_unsigned() ||
        !element.contains("version") || !element["version"].is_string()) {
      return Status::Refuse(
          "sinkd.supersedes holds an element that is neither a key nor {key, size, version}");
    }
    inputs.push_back(SupersededObject{element["key"].get<std::string>(),
                                      element["size"].get<uint64_t>(),
                                      element["version"].get<std::string>()});
  }
  return inputs;
}

std::set<std::string> SupersededKeys(const std::vector<PresentObject>& objects) {
  std::set<std::tuple<std::string, uint64_t, std::string>> merged;
  for (const PresentObject& o : objects) {
    for (const SupersededObject& in : o.supersedes) {
      if (!in.version.empty()) merged.emplace(in.key, in.size, in.version);
    }
  }
  std::set<std::string> superseded;
  for (const PresentObject& o : objects) {
    if (merged.count({o.key, o.size, o.version}) > 0) superseded.insert(o.key);
  }
  return superseded;
}

}  // namespace sinkd::table
