#include "row/column_table.h"

namespace sinkd::row {

std::string_view ColumnTypeName(ColumnType type) {
  switch (type) {
    case ColumnType::kString: return "string";
    case ColumnType::kInt32: return "int32";
    case ColumnType::kInt64: return "int64";
    case ColumnType::kDouble: return "double";
    case ColumnType::kBool: return "bool";
    case ColumnType::kTimestamp: return "timestamp";
  }
  return "?";
}

std::string_view DuckDbTypeName(ColumnType type) {
  switch (type) {
    case ColumnType::kString: return "VARCHAR";
    case ColumnType::kInt32: return "INTEGER";
    case ColumnType::kInt64: return "BIGINT";
    case ColumnType::kDouble: return "DOUBLE";
    case ColumnType::kBool: return "BOOLEAN";
    case ColumnType::kTimestamp: return "TIMESTAMP WITH TIME ZONE";
  }
  return "?";
}

}  // namespace sinkd::row
