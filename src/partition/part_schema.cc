#include "partition/part_schema.h"

namespace sinkd::partition {

namespace {

parquet::Field FieldFor(const row::ColumnSpec& spec) {
  parquet::Field field;
  field.name = std::string(spec.name);
  switch (spec.type) {
    case row::ColumnType::kString:
      field.physical = parquet::PhysicalType::kByteArray;
      field.annotation = parquet::Annotation::kString;
      break;
    case row::ColumnType::kInt32: field.physical = parquet::PhysicalType::kInt32; break;
    case row::ColumnType::kInt64: field.physical = parquet::PhysicalType::kInt64; break;
    case row::ColumnType::kDouble: field.physical = parquet::PhysicalType::kDouble; break;
    case row::ColumnType::kBool: field.physical = parquet::PhysicalType::kBoolean; break;
    case row::ColumnType::kTimestamp:
      field.physical = parquet::PhysicalType::kInt64;
      field.annotation = parquet::Annotation::kTimestampMicrosUtc;
      break;
  }
  return field;
}

}  // namespace

parquet::Schema FileSchema(const row::ColumnTable& table) {
  parquet::Schema schema;
  for (size_t i = 0; i < table.columns.size(); ++i) {
    parquet::Field field = FieldFor(table.columns[i]);
    field.field_id = static_cast<int32_t>(i + 1);
    field.bloom_filter = static_cast<int>(i) == table.id_column;
    schema.push_back(std::move(field));
  }
  return schema;
}

parquet::TableView FileView(const row::RowBuffer& batch) {
  parquet::TableView view;
  view.rows = batch.rows();
  const row::ColumnTable& table = batch.table();
  for (size_t i = 0; i < table.columns.size(); ++i) {
    const row::ColumnBuffer& c = batch.column(static_cast<int>(i));
    switch (c.type) {
      case row::ColumnType::kString:
        view.columns.emplace_back(parquet::StringArray{
            std::span<const uint32_t>(c.strings.offsets), std::string_view(c.strings.bytes)});
        break;
      case row::ColumnType::kInt32:
        view.columns.emplace_back(std::span<const int32_t>(c.int32s));
        break;
      case row::ColumnType::kInt64:
      case row::ColumnType::kTimestamp:
        view.columns.emplace_back(std::span<const int64_t>(c.int64s));
        break;
      case row::ColumnType::kDouble:
        view.columns.emplace_back(std::span<const double>(c.doubles));
        break;
      case row::ColumnType::kBool:
        view.columns.emplace_back(std::span<const uint8_t>(c.bools));
        break;
    }
  }
  return view;
}

}  // namespace sinkd::partition
