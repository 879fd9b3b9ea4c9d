// TableSpec is a lake table as Iceberg v2 describes it, derived from the ONE column table
// (row/column_table.h), so the Parquet schema and the Iceberg schema cannot drift apart:
//   - schema 0: one field per column, field id = the column's Parquet field id (its 1-based
//     position), `time` columns as timestamptz; required only the time and id columns (every
//     Part ever written has them: they order its rows), every other column optional, because a
//     column appended later is missing from older Parts (execution_subject) and a partition
//     column lived in the key only before schema version 2;
//   - partition spec 0: day(time) named `date` (field id 1000), then identity of each partition
//     column of the table under its own name (1001, …);
//   - sort order 1: time, then id, ascending — the order of the rows in every Part.
// Threads: immutable once built, share freely.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "row/column_table.h"

namespace sinkd::iceberg {

inline constexpr int32_t kFirstPartitionFieldId = 1000;  // Iceberg's convention
inline constexpr int32_t kSortOrderId = 1;

struct PartitionField {
  int32_t source_id = 0;  // the schema field it is computed from
  int32_t field_id = 0;   // its own id: the partition struct's field id in manifests
  std::string name;
  std::string transform;  // "day" or "identity"
};

struct TableSpec {
  std::string name;                       // "ledger", "outbox_events", …
  nlohmann::ordered_json schema;          // the struct JSON, with "schema-id": 0
  std::vector<PartitionField> partition;  // spec 0, day first
  nlohmann::ordered_json sort_order;      // order kSortOrderId
  int32_t time_field_id = 0;
  int32_t id_field_id = 0;
  int32_t last_column_id = 0;
  int32_t last_partition_id = 0;
};

TableSpec SpecOf(const row::ColumnTable& table);

// {"spec-id": 0, "fields": [...]}.
nlohmann::ordered_json PartitionSpecJson(const TableSpec& spec);
// The fields array alone: what a manifest's "partition-spec" header holds.
nlohmann::ordered_json PartitionFieldsJson(const TableSpec& spec);

}  // namespace sinkd::iceberg
