// TableMetadata is an Iceberg v2 table metadata file (Spec "Table Metadata Fields"): the table's
// identity and location, its schema, partition spec and sort order (TableSpec), properties, its
// snapshots with their log, the log of earlier metadata files, and the `main` branch.
// A snapshot's summary starts with "operation" and carries the standard totals (Snapshots
// summaries below) before any key of the caller's (sinkd's markers).
// Clock and randomness come from the caller: ids, the UUID and every timestamp are arguments.
// Threads: plain values and pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"
#include "iceberg/table_spec.h"

namespace sinkd::iceberg {

using Summary = std::vector<std::pair<std::string, std::string>>;

struct Snapshot {
  int64_t id = 0;                    // positive
  std::optional<int64_t> parent_id;  // none for the first
  int64_t sequence_number = 0;
  int64_t timestamp_ms = 0;
  std::string manifest_list;  // a fully qualified URI
  Summary summary;            // "operation" first; string values only
  int32_t schema_id = 0;

  // The value of summary key `key`, or nullptr.
  const std::string* Find(const std::string& key) const;
};

struct LogEntry {
  std::string metadata_file;  // empty for a snapshot-log entry
  int64_t snapshot_id = 0;    // 0 for a metadata-log entry
  int64_t timestamp_ms = 0;
};

struct TableMetadata {
  std::string uuid;      // fixed at creation
  std::string location;  // base URI of the table, no trailing '/'
  int64_t last_sequence_number = 0;
  int64_t last_updated_ms = 0;
  TableSpec spec;
  Summary properties;
  std::vector<Snapshot> snapshots;
  std::optional<int64_t> current_snapshot_id;
  std::vector<LogEntry> snapshot_log;
  std::vector<LogEntry> metadata_log;

  const Snapshot* Current() const;
};

// A table with no snapshot yet. Properties: Parquet and ZSTD as the write format (what the Parts
// are), and a name mapping (schema.name-mapping.default) so that Parts written without field
// ids (DuckDB's, the Go sink's) still map by column name.
TableMetadata NewTable(TableSpec spec, std::string uuid, std::string location, int64_t now_ms);

// What one append adds, for its summary.
struct AppendCounts {
  uint64_t files = 0;
  uint64_t records = 0;
  uint64_t bytes = 0;
  uint64_t partitions = 0;  // distinct partitions the files are in
};

// The snapshot of an append on top of `base`'s current one: sequence number
// base.last_sequence_number + 1, summary operation=append with added-data-files, added-records,
// added-files-size, changed-partition-count and the totals (total-records, total-files-size,
// total-data-files, total-delete-files, total-position-deletes, total-equality-deletes: the
// parent's plus this append's), then `extra` (sinkd's keys) in order.
Snapshot AppendSnapshot(const TableMetadata& base, int64_t id, int64_t now_ms,
                        std::string manifest_list, const AppendCounts& added, const Summary& extra);

// The snapshot of a replace on top of `base`'s current one (compaction: `removed` files' rows are
// exactly `added`'s): operation=replace with added-*, deleted-data-files, deleted-records,
// removed-files-size, and the totals as the parent's plus `added` minus `removed`; then `extra`.
// With nothing removed it is AppendSnapshot's snapshot.
Snapshot ReplaceSnapshot(const TableMetadata& base, int64_t id, int64_t now_ms,
                         std::string manifest_list, const AppendCounts& added,
                         const AppendCounts& removed, const Summary& extra);

// `base` with `snapshot` added as the current one on main: last-sequence-number, the snapshot log
// and last-updated-ms follow; `previous_metadata` (the file `base` was read from, if any) joins
// the metadata log. REQUIRES: snapshot.sequence_number > base.last_sequence_number.
TableMetadata WithSnapshot(TableMetadata base, Snapshot snapshot, int64_t now_ms,
                           const std::string& previous_metadata = "");

// The metadata file's JSON text (format-version 2, current-snapshot-id -1 when there is none,
// refs.main when there is one).
std::string ToJson(const TableMetadata& metadata);

// Parses a metadata file (format-version 2), as ToJson writes it and as other v2 writers do.
// The TableSpec is rebuilt from the current schema, the default partition spec and the default
// sort order (time and id field ids from its first two fields; 0 when it has fewer). Unknown keys
// are ignored. Returns Reject naming the first missing or mistyped field, or a format version
// other than 2.
Result<TableMetadata> ParseTableMetadata(std::string_view json);

// A positive snapshot id from 64 random bits (the caller's randomness): the sign bit cleared, and
// never 0.
int64_t SnapshotIdFrom(uint64_t random_bits);

}  // namespace sinkd::iceberg
