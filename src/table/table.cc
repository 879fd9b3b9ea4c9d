#include "table/table.h"

#include <array>

#include "partition/partitioner.h"
#include "row/ledger_columns.h"
#include "row/outbox_columns.h"

namespace sinkd::table {

namespace {

// The ledger and audit streams carry the same garm.ledger.v1.Event, so their tables share columns
// (and sinkd.table = "ledger" in both lakes' footers); only the name and prefix tell them apart.
constexpr std::array<TableSpec, 4> kTables = {{
    {"ledger", &row::kLedgerColumns, Writer::kStream},
    {"audit", &row::kLedgerColumns, Writer::kStream},
    {"outbox_events", &row::kOutboxEventColumns, Writer::kOutbox},
    {"outbox_audit", &row::kOutboxAuditColumns, Writer::kOutbox},
}};

}  // namespace

std::span<const TableSpec> Tables() { return kTables; }

const TableSpec* FindTable(std::string_view name) {
  for (const TableSpec& t : kTables) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

std::vector<std::string> TableNames() {
  std::vector<std::string> names;
  for (const TableSpec& t : kTables) names.emplace_back(t.name);
  return names;
}

std::vector<std::string> TableNames(Writer writer) {
  std::vector<std::string> names;
  for (const TableSpec& t : kTables) {
    if (t.writer == writer) names.emplace_back(t.name);
  }
  return names;
}

std::vector<PartitionField> PartitionSpec(const row::ColumnTable& columns) {
  std::vector<PartitionField> spec = {{"date", columns.time_column, Transform::kDay}};
  for (int c : partition::PartitionColumns(columns)) {
    spec.push_back({columns.columns[c].name, c, Transform::kIdentity});
  }
  return spec;
}

}  // namespace sinkd::table
