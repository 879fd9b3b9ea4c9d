#include "iceberg/table_spec.h"

namespace sinkd::iceberg {

namespace {

const char* IcebergType(row::ColumnType type) {
  switch (type) {
    case row::ColumnType::kString:
      return "string";
    case row::ColumnType::kInt32:
      return "int";
    case row::ColumnType::kInt64:
      return "long";
    case row::ColumnType::kDouble:
      return "double";
    case row::ColumnType::kBool:
      return "boolean";
    // Parquet TIMESTAMP(MICROS, isAdjustedToUTC=true) is Iceberg's timestamptz; `timestamp`
    // would be the zone-less form.
    case row::ColumnType::kTimestamp:
      return "timestamptz";
  }
  return "string";
}

nlohmann::ordered_json SortField(int32_t source_id) {
  return {{"transform", "identity"},
          {"source-id", source_id},
          {"direction", "asc"},
          {"null-order", "nulls-first"}};
}

}  // namespace

TableSpec SpecOf(const row::ColumnTable& table) {
  TableSpec spec;
  spec.name = std::string(table.name);
  spec.time_field_id = table.time_column + 1;
  spec.id_field_id = table.id_column + 1;
  nlohmann::ordered_json fields = nlohmann::ordered_json::array();
  for (size_t i = 0; i < table.columns.size(); ++i) {
    const row::ColumnSpec& c = table.columns[i];
    const auto id = static_cast<int32_t>(i + 1);
    fields.push_back({{"id", id},
                      {"name", std::string(c.name)},
                      {"required", id == spec.time_field_id || id == spec.id_field_id},
                      {"type", IcebergType(c.type)}});
    spec.last_column_id = id;
  }
  spec.schema = {{"type", "struct"}, {"schema-id", 0}, {"fields", fields}};
  int32_t next = kFirstPartitionFieldId;
  spec.partition.push_back({spec.time_field_id, next++, "date", "day"});
  for (size_t i = 0; i < table.columns.size(); ++i) {
    if (!table.columns[i].partition) continue;
    spec.partition.push_back(
        {static_cast<int32_t>(i + 1), next++, std::string(table.columns[i].name), "identity"});
  }
  spec.last_partition_id = next - 1;
  spec.sort_order = {{"order-id", kSortOrderId},
                     {"fields", {SortField(spec.time_field_id), SortField(spec.id_field_id)}}};
  return spec;
}

nlohmann::ordered_json PartitionFieldsJson(const TableSpec& spec) {
  nlohmann::ordered_json fields = nlohmann::ordered_json::array();
  for (const PartitionField& f : spec.partition) {
    fields.push_back({{"name", f.name},
                      {"transform", f.transform},
                      {"source-id", f.source_id},
                      {"field-id", f.field_id}});
  }
  return fields;
}

nlohmann::ordered_json PartitionSpecJson(const TableSpec& spec) {
  return {{"spec-id", 0}, {"fields", PartitionFieldsJson(spec)}};
}

}  // namespace sinkd::iceberg
