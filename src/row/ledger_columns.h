// The ledger lake's columns: every field of garm.ledger.v1.Event, in the order of the Go reference's
// row.Columns (so existing ordinals never move), with execution_subject (field 71) as the last one.
// `app` is a partition column: in the object key and, since schema version 2, inside every Part as
// well (the key may hold a shortened form). `date` (the UTC calendar date of `time`) is derived and
// lives in the key only. See README "Schema" and CHANGELOG for the decisions.
// Threads: constexpr data, immutable.
#pragma once

#include <array>

#include "row/column_table.h"

namespace sinkd::row {

inline constexpr std::array<ColumnSpec, 40> kLedgerColumnList = {{
    {"event_id", ColumnType::kString, false, WireShape::kScalar, 1, 0,
     "idempotency and deduplication key, assigned when the event is created"},
    {"time", ColumnType::kTimestamp, false, WireShape::kTimestamp, 2, 0,
     "when the event happened, UTC, microseconds (nanoseconds are truncated)"},
    {"tenant", ColumnType::kString, false, WireShape::kScalar, 10, 0, "tenant"},
    {"app", ColumnType::kString, true, WireShape::kScalar, 11, 0,
     "application; also a partition column (`app=` in the key, shortened past 255 bytes)"},
    {"feature", ColumnType::kString, false, WireShape::kScalar, 12, 0, "feature"},
    {"run_id", ColumnType::kString, false, WireShape::kScalar, 13, 0, "run id"},
    {"correlation_id", ColumnType::kString, false, WireShape::kScalar, 14, 0, "correlation id"},
    {"causation_id", ColumnType::kString, false, WireShape::kScalar, 15, 0, "causation id"},
    {"budget_id", ColumnType::kString, false, WireShape::kScalar, 16, 0, "budget id"},
    {"tags_json", ColumnType::kString, false, WireShape::kMapJson, 17, 0,
     "tags as a compact JSON object, keys sorted, {} when empty"},
    {"prompt_name", ColumnType::kString, false, WireShape::kScalar, 20, 0,
     "prompt name; raw for message-path calls"},
    {"prompt_hash", ColumnType::kString, false, WireShape::kScalar, 21, 0, "prompt hash"},
    {"alias", ColumnType::kString, false, WireShape::kScalar, 22, 0, "model alias asked for"},
    {"resolved_model", ColumnType::kString, false, WireShape::kScalar, 23, 0,
     "model the alias resolved to"},
    {"model_overridden", ColumnType::kBool, false, WireShape::kScalar, 24, 0,
     "whether policy overrode the model"},
    {"input_tokens", ColumnType::kInt64, false, WireShape::kSubField, 30, 1, "usage.input_tokens"},
    {"output_tokens", ColumnType::kInt64, false, WireShape::kSubField, 30, 2,
     "usage.output_tokens"},
    {"cached_tokens", ColumnType::kInt64, false, WireShape::kSubField, 30, 3,
     "usage.cached_tokens"},
    {"reasoning_tokens", ColumnType::kInt64, false, WireShape::kSubField, 30, 4,
     "usage.reasoning_tokens"},
    {"cost_usd", ColumnType::kDouble, false, WireShape::kScalar, 31, 0, "cost in US dollars"},
    {"cost_source", ColumnType::kString, false, WireShape::kScalar, 32, 0,
     "computed, or empty"},
    {"latency_ms", ColumnType::kInt64, false, WireShape::kScalar, 33, 0, "latency, milliseconds"},
    {"provider_request_id", ColumnType::kString, false, WireShape::kScalar, 40, 0,
     "the provider's request id"},
    {"fallback_used", ColumnType::kBool, false, WireShape::kScalar, 41, 0,
     "whether a fallback model answered"},
    {"outcome", ColumnType::kString, false, WireShape::kScalar, 42, 0,
     "ok, error, interrupted, denied, intent (intent only on audit)"},
    {"error_kind", ColumnType::kString, false, WireShape::kScalar, 43, 0, "error kind"},
    {"policy_mode", ColumnType::kString, false, WireShape::kScalar, 50, 0, "policy mode"},
    {"policy_violations", ColumnType::kString, false, WireShape::kListJson, 51, 0,
     "policy violations as a JSON array in wire order, [] when empty"},
    {"tool", ColumnType::kString, false, WireShape::kScalar, 60, 0, "tool"},
    {"principal_subject", ColumnType::kString, false, WireShape::kScalar, 61, 0,
     "principal subject"},
    {"principal_actor", ColumnType::kString, false, WireShape::kScalar, 62, 0, "principal actor"},
    {"principal_kind", ColumnType::kString, false, WireShape::kScalar, 63, 0,
     "principal kind, e.g. PRINCIPAL_KIND_AGENT"},
    {"chain_depth", ColumnType::kInt32, false, WireShape::kScalar, 64, 0, "delegation depth"},
    {"clearance_effective", ColumnType::kString, false, WireShape::kScalar, 65, 0,
     "effective clearance, e.g. CLEARANCE_INTERNAL"},
    {"compartments_effective", ColumnType::kString, false, WireShape::kListJson, 66, 0,
     "effective compartments as a JSON array in wire order, [] when empty"},
    {"redaction_plan", ColumnType::kString, false, WireShape::kScalar, 67, 0, "redaction plan"},
    {"redaction_count", ColumnType::kInt32, false, WireShape::kScalar, 68, 0, "redactions made"},
    {"disclosed_count", ColumnType::kInt32, false, WireShape::kScalar, 69, 0, "disclosures made"},
    {"error_detail", ColumnType::kString, false, WireShape::kScalar, 70, 0,
     "free-text error detail; the one column that may carry unsanitised text"},
    {"execution_subject", ColumnType::kString, false, WireShape::kScalar, 71, 0,
     "exec.sub of the caller's token; '' = a direct call; NULL in parts written before it existed"},
}};

// Bumped whenever the shape of a Part changes; written into every Part's footer.
// 2: `app` is inside the file too (version 1 Parts have it in the key only).
inline constexpr int kLedgerSchemaVersion = 2;

inline constexpr ColumnTable kLedgerColumns{
    "ledger", kLedgerColumnList, /*time_column=*/1, /*id_column=*/0, kLedgerSchemaVersion};

}  // namespace sinkd::row
