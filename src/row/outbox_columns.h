// The outbox lakes' columns (the `lake` sinks' tables, sinks/lake_sink.h): ONE ordered list per
// lake, as for the ledger (ledger_columns.h), read by the Parquet schema, the README and DuckDB
// alike. `type` (events) is a partition column: in the object key and, since schema version 2,
// inside every Part too. `date` (the UTC calendar date of `time`) is derived and lives in the key
// only.
// Append new columns at the end, never reorder, and bump the schema version.
// Threads: constexpr data, immutable.
#pragma once

#include <array>

#include "row/column_table.h"

namespace sinkd::row {

inline constexpr std::array<ColumnSpec, 9> kOutboxEventColumnList = {{
    {"event_id", ColumnType::kString, false, WireShape::kNone, 0, 0,
     "ComputeEvent.id (evt_…), the producer's: two outbox rows may share one"},
    {"type", ColumnType::kString, true, WireShape::kNone, 0, 0,
     "event type (reservation.placed, …); also a partition column (`type=` in the key)"},
    {"tenant", ColumnType::kString, false, WireShape::kNone, 0, 0, "ComputeEvent.tenantId"},
    {"subject", ColumnType::kString, false, WireShape::kNone, 0, 0,
     "ComputeEvent.subject, e.g. reservation/rsv_…"},
    {"time", ColumnType::kTimestamp, false, WireShape::kNone, 0, 0,
     "ComputeEvent.time, UTC, microseconds"},
    {"sequence", ColumnType::kString, false, WireShape::kNone, 0, 0,
     "<txid>:<seq>, the outbox position: the deduplication key"},
    {"txid", ColumnType::kInt64, false, WireShape::kNone, 0, 0,
     "outbox.txid (xid8; below 2^63 in any real cluster)"},
    {"seq", ColumnType::kInt64, false, WireShape::kNone, 0, 0, "outbox.seq"},
    {"data_json", ColumnType::kString, false, WireShape::kNone, 0, 0,
     "ComputeEvent.data as JSON text, null when absent"},
}};

// 2: `type` is inside the file too (version 1 Parts have it in the key only).
inline constexpr int kOutboxEventSchemaVersion = 2;
// Copies are told by the outbox position (`sequence`, "<txid>:<seq>"), what a redelivery
// repeats; event_id is the producer's, and two outbox rows may carry one.
static_assert(kOutboxEventColumnList[5].name == "sequence" &&
              kOutboxEventColumnList[5].type == ColumnType::kString);
inline constexpr ColumnTable kOutboxEventColumns{
    "outbox_events", kOutboxEventColumnList, /*time_column=*/4, /*id_column=*/0,
    kOutboxEventSchemaVersion, /*copy_column=*/5};

inline constexpr std::array<ColumnSpec, 9> kOutboxAuditColumnList = {{
    {"event_id", ColumnType::kString, false, WireShape::kNone, 0, 0,
     "audit_events.id, the producer's: may be empty or repeated"},
    {"tenant", ColumnType::kString, false, WireShape::kNone, 0, 0, "audit_events.tenant_id"},
    {"time", ColumnType::kTimestamp, false, WireShape::kNone, 0, 0,
     "audit_events.time, UTC, microseconds"},
    {"action", ColumnType::kString, false, WireShape::kNone, 0, 0, "audit_events.action"},
    {"resource_type", ColumnType::kString, false, WireShape::kNone, 0, 0,
     "audit_events.resource_type"},
    {"resource_id", ColumnType::kString, false, WireShape::kNone, 0, 0,
     "audit_events.resource_id"},
    {"admission_json", ColumnType::kString, false, WireShape::kNone, 0, 0,
     "audit_events.admission as JSON text, null when NULL"},
    {"details_json", ColumnType::kString, false, WireShape::kNone, 0, 0,
     "audit_events.details as JSON text, null when NULL"},
    {"sequence", ColumnType::kString, false, WireShape::kNone, 0, 0,
     "<txid>:<seq>, the audit_events position: the deduplication key"},
}};

inline constexpr int kOutboxAuditSchemaVersion = 1;
// audit_events.id may be empty or repeated: copies are told by the position (`sequence`) alone.
static_assert(kOutboxAuditColumnList[8].name == "sequence" &&
              kOutboxAuditColumnList[8].type == ColumnType::kString);
inline constexpr ColumnTable kOutboxAuditColumns{
    "outbox_audit", kOutboxAuditColumnList, /*time_column=*/2, /*id_column=*/0,
    kOutboxAuditSchemaVersion, /*copy_column=*/8};

}  // namespace sinkd::row
