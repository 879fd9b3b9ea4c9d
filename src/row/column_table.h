// A ColumnTable is the one ordered list of a lake's columns: name, type, where the value comes from
// and what it means. The Parquet schema, the decoder's field dispatch, `tail`'s key order and the
// README's schema section are all read from it, so they cannot drift apart.
// Threads: tables are constexpr data, immutable, share freely.
// Column order is part of the lake's shape: append new columns at the end, never reorder.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace sinkd::row {

// Value types of lake columns. Frozen: each maps to one Parquet physical/logical type pair.
enum class ColumnType : uint8_t {
  kString,     // BYTE_ARRAY, STRING (UTF-8, validated before it becomes a row)
  kInt32,      // INT32
  kInt64,      // INT64
  kDouble,     // DOUBLE
  kBool,       // BOOLEAN
  kTimestamp,  // INT64 TIMESTAMP(MICROS, isAdjustedToUTC=true): an instant
};

// How a protobuf-sourced column is read from its message. kNone for tables not fed by protobuf.
enum class WireShape : uint8_t {
  kNone,
  kScalar,     // a string, bool, int32, int64 or double field of the message itself
  kTimestamp,  // a google.protobuf.Timestamp field (message-typed, so it has presence)
  kSubField,   // scalar field `wire_subfield` inside the message-typed field `wire_field`
  kMapJson,    // map<string,string> as a compact JSON object, keys sorted, `{}` when empty
  kListJson,   // repeated string as a JSON array in wire order, `[]` when empty
};

struct ColumnSpec {
  std::string_view name;
  ColumnType type;
  // A partition column is also in the object key (`name=<escaped value>/`), so readers prune on
  // it. The file holds it as well: a key segment is shortened past a directory name's 255 bytes,
  // and the exact value must stay in the lake (table/key.h).
  bool partition = false;
  WireShape shape = WireShape::kNone;
  uint32_t wire_field = 0;     // protobuf field number in the source message
  uint32_t wire_subfield = 0;  // for kSubField / kTimestamp: the inner field number (0 otherwise)
  std::string_view doc;        // one line for the README's schema table
};

// A whole table: its columns plus the roles some of them play in a Part.
struct ColumnTable {
  std::string_view name;            // "ledger", "outbox_events", …
  std::span<const ColumnSpec> columns;
  int time_column;                  // the instant rows are sorted by and dated from
  int id_column;                    // the record's id (sorted second, Bloom-filtered)
  int schema_version;               // written into every Part's footer
  // The string column whose value a redelivery repeats and no two records share: rows equal in
  // it are copies of one record, and compaction keeps one of them. -1: id_column. The outbox
  // lakes name their position here: their id is the producer's (audit_events.id is not unique).
  int copy_column = -1;
};

// The column rows are deduplicated on: copy_column, or id_column when the table names none.
constexpr int CopyColumn(const ColumnTable& table) {
  return table.copy_column >= 0 ? table.copy_column : table.id_column;
}

// Index of the column named `name`, or -1.
constexpr int ColumnIndex(const ColumnTable& table, std::string_view name) {
  for (size_t i = 0; i < table.columns.size(); ++i) {
    if (table.columns[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

// "string", "int32", … as the README and `tail --help` print them.
std::string_view ColumnTypeName(ColumnType type);
// The DuckDB type a reader sees: VARCHAR, INTEGER, BIGINT, DOUBLE, BOOLEAN, TIMESTAMP WITH TIME ZONE.
std::string_view DuckDbTypeName(ColumnType type);

}  // namespace sinkd::row
