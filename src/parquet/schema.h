// The schema of one Parquet file as the writer needs it: an ordered list of flat leaf columns,
// each REQUIRED or OPTIONAL (nullable: definition levels 0/1, no repetition). Generic: nothing here knows about ledgers, events or NATS.
// Threads: plain values, immutable once built.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sinkd::parquet {

// Frozen: these are what reach the file (mapped to parquet.thrift's Type values by the writer).
enum class PhysicalType : uint8_t { kBoolean, kInt32, kInt64, kDouble, kByteArray };

// Frozen: the logical annotation written next to the physical type.
enum class Annotation : uint8_t {
  kNone,
  kString,              // BYTE_ARRAY + converted_type UTF8 + LogicalType STRING
  kTimestampMicrosUtc,  // INT64 + TIMESTAMP_MICROS + LogicalType TIMESTAMP(isAdjustedToUTC, MICROS)
  // INT64 + TIMESTAMP(MICROS, isAdjustedToUTC=false): only read (DuckDB's TIMESTAMP, the Go sink's
  // lake); the writer refuses it and writes UTC.
  kTimestampMicrosNaive,
};

struct Field {
  std::string name;
  PhysicalType physical = PhysicalType::kByteArray;
  Annotation annotation = Annotation::kNone;
  int32_t field_id = -1;      // SchemaElement.field_id for Iceberg-style mapping; <0 writes none
  bool bloom_filter = false;  // write a split-block Bloom filter for this column
  bool optional = false;      // OPTIONAL (may hold NULLs, TableView::defined) vs REQUIRED
};

using Schema = std::vector<Field>;

}  // namespace sinkd::parquet
