// A table is what sinkd keeps in a lake under one name: its columns (row/), its partition spec
// (the UTC day of its time column as `date`, then each partition column as it is), where its
// objects live (its key prefix: the table's name unless configured otherwise), the names of its
// objects (table/key.h) and the footer keys of its Parts (table/footer.h). Tables() is every
// table sinkd writes; the commands that take a table by name (compact, lake verify) look it up
// there.
// Threads: constant data and pure functions.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "row/column_table.h"

namespace sinkd::table {

// Who writes a table.
enum class Writer {
  kStream,  // a drain of a JetStream stream, or `import` of its recorded messages
  kOutbox,  // an outbox `lake` sink (sinks/lake_sink.h)
};

struct TableSpec {
  std::string_view name;  // "ledger", "audit", "outbox_events", "outbox_audit"; the default prefix
  const row::ColumnTable* columns;
  Writer writer;
};

// ledger, audit, outbox_events, outbox_audit, in that order.
std::span<const TableSpec> Tables();
// nullptr when no table is called `name`.
const TableSpec* FindTable(std::string_view name);
// The names of Tables(), in order; those written by `writer`.
std::vector<std::string> TableNames();
std::vector<std::string> TableNames(Writer writer);

// How one partition value of a row is derived from its columns.
enum class Transform {
  kDay,       // the UTC calendar date (YYYY-MM-DD) of a timestamp column
  kIdentity,  // the column's value itself
};

struct PartitionField {
  std::string_view name;  // the key segment's name: "date", then the column's ("app", "type")
  int source_column;      // index into the table's columns
  Transform transform;
};

// `date` (the day of the time column), then every partition column, in table order: the key
// segments of a Part in their order, and what partition::PartitionRows groups rows by.
std::vector<PartitionField> PartitionSpec(const row::ColumnTable& columns);

}  // namespace sinkd::table
