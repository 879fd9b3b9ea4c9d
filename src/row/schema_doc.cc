#include "row/schema_doc.h"

namespace sinkd::row {

std::string SourceText(const ColumnSpec& spec) {
  const std::string field = std::to_string(spec.wire_field);
  switch (spec.shape) {
    case WireShape::kNone: return "";
    case WireShape::kScalar:
    case WireShape::kTimestamp: return "field " + field;
    case WireShape::kSubField: return "field " + field + "." + std::to_string(spec.wire_subfield);
    case WireShape::kMapJson: return "field " + field + " (map, as JSON)";
    case WireShape::kListJson: return "field " + field + " (repeated, as JSON)";
  }
  return "";
}

std::string SchemaMarkdown(const ColumnTable& table) {
  std::string out = "| # | column | type | source | meaning |\n|---|---|---|---|---|\n";
  int n = 0;
  for (const ColumnSpec& spec : table.columns) {
    out += "| " + std::to_string(++n) + " | `" + std::string(spec.name) + "` | " +
           std::string(DuckDbTypeName(spec.type)) + " | " + SourceText(spec) + " | " +
           std::string(spec.doc) + " |\n";
  }
  out += "| – | `date` | DATE | UTC date of `" +
         std::string(table.columns[table.time_column].name) +
         "` | partition column (in the key, not in the file) |\n";
  return out;
}

}  // namespace sinkd::row
