// One check of a lake table, as `sinkd lake verify` runs it: what the lake holds (ScanLake over
// the table's prefix), what it must hold (the durable's acknowledged range and the stream's dead
// letters, or the outbox's delivered rows), and, with a catalog, the Iceberg table kept over its
// Parts (TableCheck). The caller parses flags and prints; this owns the order the steps need:
// the table's metadata is read before the scan, so every file it names has a footer to agree with.
// Threads: one thread at a time. Errors: what stopped the check from looking (a store, a broker
// or a database); what the lake holds wrongly is the result's, never an error.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "base/result.h"
#include "iceberg/files_catalog.h"
#include "jetstream/connection.h"
#include "lake/destination.h"
#include "row/column_table.h"
#include "verify/outbox_rows.h"
#include "verify/table_check.h"
#include "verify/verify.h"

namespace sinkd::verify {

// The stream a drain table comes from, and the durable whose acknowledgements it must hold.
struct StreamExpectation {
  jetstream::ConnectOptions connect;
  std::string origin;   // ledger | audit: the dead letters' subject
  std::string stream;   // GARM_LEDGER | GARM_AUDIT
  std::string durable;  // sink-<origin> unless named
};

// The outbox sink an outbox table is written by: its delivered rows must be in the lake.
struct OutboxExpectation {
  std::string postgres_url;
  OutboxTable table = OutboxTable::kEvents;
  std::string sink_id;
};

struct LakeCheckRequest {
  std::string table;   // its name, for messages
  std::string prefix;  // its first key segment
  VerifyInput input;   // bounds (from, to) and small_part_bytes; the check fills the rest
  std::optional<StreamExpectation> stream;
  std::optional<OutboxExpectation> outbox;
  // With a catalog (borrowed, opened over the same destination), the Iceberg table is checked
  // too; `columns` is the table's column list.
  iceberg::FilesCatalog* catalog = nullptr;
  const row::ColumnTable* columns = nullptr;
  // Objects scanned of the total, as the scan goes.
  std::function<void(uint64_t done, uint64_t total)> progress;
};

struct LakeCheckResult {
  VerifyReport report;                   // the lake as its Parts' footers show it
  std::optional<TableReport> table;      // with a catalog
  bool ok() const { return report.ok() && (!table || table->ok()); }
  // One line naming what is wrong ("2 gaps, 1 missing Part, …"); "" when ok().
  std::string Problems() const;
};

Result<LakeCheckResult> CheckLake(lake::Destination& destination, LakeCheckRequest request);

}  // namespace sinkd::verify
