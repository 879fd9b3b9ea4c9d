#include "parquet/file_schema.h"

#include <string>
#include <unordered_set>

namespace sinkd::parquet {

Status ValidateSchema(const Schema& schema) {
  if (schema.empty()) return Status::Refuse("parquet schema: no fields");
  std::unordered_set<std::string> names;
  for (const Field& f : schema) {
    if (f.name.empty()) return Status::Refuse("parquet schema: a field has no name");
    if (!names.insert(f.name).second) {
      return Status::Refuse("parquet schema: field " + f.name + " appears twice");
    }
    if (f.annotation == Annotation::kString && f.physical != PhysicalType::kByteArray) {
      return Status::Refuse("parquet schema: field " + f.name + " is a STRING but not BYTE_ARRAY");
    }
    if (f.annotation == Annotation::kTimestampMicrosUtc && f.physical != PhysicalType::kInt64) {
      return Status::Refuse("parquet schema: field " + f.name + " is a TIMESTAMP but not INT64");
    }
    if (f.annotation == Annotation::kTimestampMicrosNaive) {
      return Status::Refuse("parquet schema: field " + f.name +
                            " is a TIMESTAMP without time zone, which the writer does not write");
    }
    if (f.bloom_filter && f.physical == PhysicalType::kBoolean) {
      return Status::Refuse("parquet schema: field " + f.name +
                            " asks for a Bloom filter on BOOLEAN, which Parquet cannot hash");
    }
  }
  return Status::OK();
}

Type ParquetType(PhysicalType physical) {
  switch (physical) {
    case PhysicalType::kBoolean: return Type::kBoolean;
    case PhysicalType::kInt32: return Type::kInt32;
    case PhysicalType::kInt64: return Type::kInt64;
    case PhysicalType::kDouble: return Type::kDouble;
    case PhysicalType::kByteArray: return Type::kByteArray;
  }
  return Type::kByteArray;
}

std::vector<SchemaElement> SchemaElements(const Schema& schema) {
  std::vector<SchemaElement> elements;
  elements.reserve(schema.size() + 1);
  SchemaElement root;
  // The root's repetition is omitted, as parquet-java and arrow-rs do; Arrow does not check it.
  root.name = "schema";
  root.num_children = static_cast<int32_t>(schema.size());
  elements.push_back(std::move(root));
  for (const Field& f : schema) {
    SchemaElement leaf;
    leaf.type = ParquetType(f.physical);
    leaf.repetition = f.optional ? Repetition::kOptional : Repetition::kRequired;
    leaf.name = f.name;
    // Both the converted type and the logical type: DuckDB reads a converted-only
    // TIMESTAMP_MICROS as a plain TIMESTAMP, Arrow as UTC, so one alone changes types by engine.
    switch (f.annotation) {
      case Annotation::kNone:
        break;
      case Annotation::kString:
        leaf.converted_type = ConvertedType::kUtf8;
        leaf.logical_type = LogicalKind::kString;
        break;
      case Annotation::kTimestampMicrosUtc:
        leaf.converted_type = ConvertedType::kTimestampMicros;
        leaf.logical_type = LogicalKind::kTimestampMicrosUtc;
        break;
      case Annotation::kTimestampMicrosNaive:  // refused by ValidateSchema
        break;
    }
    if (f.field_id >= 0) leaf.field_id = f.field_id;
    elements.push_back(std::move(leaf));
  }
  return elements;
}

}  // namespace sinkd::parquet
