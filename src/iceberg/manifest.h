// Manifests and the manifest list: the Avro files (src/avro) that name a snapshot's data files,
// with the v2 schemas of the Iceberg specification ("Manifests", "Manifest Lists"): every field
// with its field-id, optional fields as ["null", T] unions, int-keyed maps as arrays of key/value
// records with logicalType "map", the partition struct typed by the spec (day as a date int,
// identity columns as strings), and the header keys readers need (schema, partition-spec,
// partition-spec-id, format-version, content; the list's snapshot-id, parent-snapshot-id,
// sequence-number).
// Sequence numbers: an ADDED entry carries none and inherits the manifest's, which the list
// gives (so a manifest survives a commit retry unchanged, only the list is rewritten); EXISTING
// and DELETED entries carry theirs.
// Codec: deflate by default (as Java writes manifests), or none.
// Threads: pure functions. Never touches a file, a socket or the clock.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "avro/container.h"
#include "base/result.h"
#include "base/work_pool.h"
#include "iceberg/data_file.h"
#include "iceberg/table_spec.h"

namespace sinkd::iceberg {

// Frozen: the values reach manifests.
enum class EntryStatus : int32_t { kExisting = 0, kAdded = 1, kDeleted = 2 };

struct ManifestEntry {
  EntryStatus status = EntryStatus::kAdded;
  std::optional<int64_t> snapshot_id;           // empty: inherited (ADDED in this snapshot)
  std::optional<int64_t> sequence_number;       // empty only for ADDED
  std::optional<int64_t> file_sequence_number;  // empty only for ADDED
  DataFile file;
};

// An entry to write whose data file is borrowed from another entry (it must outlive the write):
// a replace rewrites every entry of the manifests holding its inputs with a new status or
// snapshot id, files unchanged, and copying each DataFile (its statistics) cost a compaction
// pass 7-22 ms per 4,096 entries.
struct BorrowedEntry {
  EntryStatus status = EntryStatus::kAdded;
  std::optional<int64_t> snapshot_id, sequence_number, file_sequence_number;
  const DataFile* file = nullptr;
};

// Partition summaries of a manifest, one per partition field, as the list carries them.
struct FieldSummary {
  bool contains_null = false;
  std::optional<std::string> lower;  // single-value bytes in the partition field's type
  std::optional<std::string> upper;
  bool operator==(const FieldSummary&) const = default;
};

// One manifest as the manifest list names it.
struct ManifestFile {
  std::string path;
  uint64_t length = 0;
  int32_t spec_id = 0;
  int64_t sequence_number = 0;      // of the snapshot that added the manifest
  int64_t min_sequence_number = 0;  // lowest data sequence number of its live entries
  int64_t added_snapshot_id = 0;
  int32_t added_files = 0, existing_files = 0, deleted_files = 0;
  int64_t added_rows = 0, existing_rows = 0, deleted_rows = 0;
  std::vector<FieldSummary> partitions;
  bool operator==(const ManifestFile&) const = default;
};

struct Manifest {
  std::string bytes;  // the Avro file
  ManifestFile file;  // what the list records for it (length = bytes.size())
};

// The zlib level of a deflated manifest or manifest list. Level 1, not zlib's 6: a compaction's
// replace rewrites every manifest holding one of its inputs, and a table register's manifest holds
// a whole lake's Parts, so a pass over it deflated megabytes per merge (39% of a pass compacting
// 2,925 registered Parts at 6; its table time fell from 5.6-6.5 s to 3.8-4.0 s at 1).
inline constexpr int kManifestDeflateLevel = 1;

// Writes the manifest stored at `path`, new in snapshot `snapshot_id` with sequence number
// `sequence_number`. Refuse when an entry breaks the sequence-number rules above or its partition
// tuple does not match the spec; then nothing is returned.
// With `pool`, the Avro blocks are deflated on it (the same bytes).
Result<Manifest> WriteManifest(const TableSpec& spec, const std::string& path, int64_t snapshot_id,
                               int64_t sequence_number, const std::vector<ManifestEntry>& entries,
                               avro::Codec codec = avro::Codec::kDeflate);
Result<Manifest> WriteManifest(const TableSpec& spec, const std::string& path, int64_t snapshot_id,
                               int64_t sequence_number, const std::vector<BorrowedEntry>& entries,
                               avro::Codec codec = avro::Codec::kDeflate,
                               WorkPool* pool = nullptr);

// Writes a snapshot's manifest list (header: snapshot-id, parent-snapshot-id when there is one,
// sequence-number, format-version).
Result<std::string> WriteManifestList(const std::vector<ManifestFile>& manifests,
                                      int64_t snapshot_id, std::optional<int64_t> parent_id,
                                      int64_t sequence_number,
                                      avro::Codec codec = avro::Codec::kDeflate);

// Reads a manifest's entries (written by sinkd or another writer of the v2 schema), matching the
// partition struct to `spec` by field id. Sequence numbers and snapshot ids are returned as
// stored: an empty one is inherited from the manifest's list entry (ManifestFile), which the
// caller applies. Returns Reject, naming the file's problem, for corrupt Avro (avro/container.h),
// a missing required field, a partition field of the spec absent from the struct, a content
// other than data.
// With `pool`, the Avro blocks are inflated and decoded on it, each block's entries on its own
// (the same entries, in file order).
Result<std::vector<ManifestEntry>> ReadManifest(std::string_view bytes, const TableSpec& spec,
                                                WorkPool* pool = nullptr);

// Reads a manifest list. Reject as ReadManifest.
Result<std::vector<ManifestFile>> ReadManifestList(std::string_view bytes);

// The single-value serialization of a day (4-byte little-endian int, Spec Appendix D).
std::string DayBytes(int32_t day);

}  // namespace sinkd::iceberg
