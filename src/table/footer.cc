#include "table/footer.h"

#include <nlohmann/json.hpp>

namespace sinkd::table {

std::vector<std::pair<std::string, std::string>> FooterHead(const row::ColumnTable& columns,
                                                            std::string_view source) {
  return {{std::string(kTableKey), std::string(columns.name)},
          {std::string(kSchemaVersionKey), std::to_string(columns.schema_version)},
          {std::string(kSourceKey), std::string(source)}};
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

}  // namespace sinkd::table
