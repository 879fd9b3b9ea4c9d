#include "iceberg/table_metadata.h"

#include <cassert>

namespace sinkd::iceberg {

namespace {

using Json = nlohmann::ordered_json;

uint64_t Total(const Snapshot* parent, const char* key) {
  if (parent == nullptr) return 0;
  const std::string* v = parent->Find(key);
  if (v == nullptr) return 0;
  uint64_t n = 0;
  for (char c : *v) {
    if (c < '0' || c > '9') return 0;  // not a count: start again from this snapshot
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  return n;
}

Json NameMapping(const TableSpec& spec) {
  Json out = Json::array();
  for (const auto& field : spec.schema["fields"]) {
    out.push_back({{"field-id", field["id"]}, {"names", Json::array({field["name"]})}});
  }
  return out;
}

Json StringMap(const Summary& pairs) {
  Json out = Json::object();
  for (const auto& [k, v] : pairs) out[k] = v;
  return out;
}

Json SnapshotJson(const Snapshot& s) {
  Json j = {{"snapshot-id", s.id}};
  if (s.parent_id) j["parent-snapshot-id"] = *s.parent_id;
  j["sequence-number"] = s.sequence_number;
  j["timestamp-ms"] = s.timestamp_ms;
  j["manifest-list"] = s.manifest_list;
  j["summary"] = StringMap(s.summary);
  j["schema-id"] = s.schema_id;
  return j;
}

}  // namespace

const std::string* Snapshot::Find(const std::string& key) const {
  for (const auto& [k, v] : summary) {
    if (k == key) return &v;
  }
  return nullptr;
}

const Snapshot* TableMetadata::Current() const {
  if (!current_snapshot_id) return nullptr;
  for (const Snapshot& s : snapshots) {
    if (s.id == *current_snapshot_id) return &s;
  }
  return nullptr;
}

TableMetadata NewTable(TableSpec spec, std::string uuid, std::string location, int64_t now_ms) {
  TableMetadata m;
  m.uuid = std::move(uuid);
  m.location = std::move(location);
  m.last_updated_ms = now_ms;
  m.properties = {{"write.format.default", "parquet"},
                  {"write.parquet.compression-codec", "zstd"},
                  {"schema.name-mapping.default", NameMapping(spec).dump()}};
  m.spec = std::move(spec);
  return m;
}

Snapshot AppendSnapshot(const TableMetadata& base, int64_t id, int64_t now_ms,
                        std::string manifest_list, const AppendCounts& added,
                        const Summary& extra) {
  const Snapshot* parent = base.Current();
  Snapshot s;
  s.id = id;
  if (parent != nullptr) s.parent_id = parent->id;
  s.sequence_number = base.last_sequence_number + 1;
  s.timestamp_ms = now_ms;
  s.manifest_list = std::move(manifest_list);
  const auto str = [](uint64_t n) { return std::to_string(n); };
  s.summary = {
      {"operation", "append"},
      {"added-data-files", str(added.files)},
      {"added-records", str(added.records)},
      {"added-files-size", str(added.bytes)},
      {"changed-partition-count", str(added.partitions)},
      {"total-records", str(Total(parent, "total-records") + added.records)},
      {"total-files-size", str(Total(parent, "total-files-size") + added.bytes)},
      {"total-data-files", str(Total(parent, "total-data-files") + added.files)},
      {"total-delete-files", "0"},
      {"total-position-deletes", "0"},
      {"total-equality-deletes", "0"},
  };
  s.summary.insert(s.summary.end(), extra.begin(), extra.end());
  return s;
}

TableMetadata WithSnapshot(const TableMetadata& base, Snapshot snapshot, int64_t now_ms,
                           const std::string& previous_metadata) {
  assert(snapshot.sequence_number > base.last_sequence_number);
  TableMetadata m = base;
  m.last_sequence_number = snapshot.sequence_number;
  m.last_updated_ms = now_ms;
  m.current_snapshot_id = snapshot.id;
  m.snapshot_log.push_back({"", snapshot.id, snapshot.timestamp_ms});
  if (!previous_metadata.empty()) {
    m.metadata_log.push_back({previous_metadata, 0, base.last_updated_ms});
  }
  m.snapshots.push_back(std::move(snapshot));
  return m;
}

std::string ToJson(const TableMetadata& m) {
  Json j = {{"format-version", 2},
            {"table-uuid", m.uuid},
            {"location", m.location},
            {"last-sequence-number", m.last_sequence_number},
            {"last-updated-ms", m.last_updated_ms},
            {"last-column-id", m.spec.last_column_id},
            {"current-schema-id", 0},
            {"schemas", Json::array({m.spec.schema})},
            {"default-spec-id", 0},
            {"partition-specs", Json::array({PartitionSpecJson(m.spec)})},
            {"last-partition-id", m.spec.last_partition_id},
            {"default-sort-order-id", kSortOrderId},
            {"sort-orders", Json::array({m.spec.sort_order})},
            {"properties", StringMap(m.properties)},
            // -1 is how v1/v2 writers say "no snapshot"; readers accept it (Spec Appendix F).
            {"current-snapshot-id", m.current_snapshot_id.value_or(-1)}};
  Json snapshots = Json::array();
  for (const Snapshot& s : m.snapshots) snapshots.push_back(SnapshotJson(s));
  j["snapshots"] = snapshots;
  Json snapshot_log = Json::array();
  for (const LogEntry& e : m.snapshot_log) {
    snapshot_log.push_back({{"snapshot-id", e.snapshot_id}, {"timestamp-ms", e.timestamp_ms}});
  }
  j["snapshot-log"] = snapshot_log;
  Json metadata_log = Json::array();
  for (const LogEntry& e : m.metadata_log) {
    metadata_log.push_back({{"metadata-file", e.metadata_file}, {"timestamp-ms", e.timestamp_ms}});
  }
  j["metadata-log"] = metadata_log;
  j["refs"] = Json::object();
  if (m.current_snapshot_id) {
    j["refs"]["main"] = {{"snapshot-id", *m.current_snapshot_id}, {"type", "branch"}};
  }
  return j.dump();
}

int64_t SnapshotIdFrom(uint64_t random_bits) {
  const auto id = static_cast<int64_t>(random_bits & 0x7FFF'FFFF'FFFF'FFFFull);
  return id == 0 ? 1 : id;
}

}  // namespace sinkd::iceberg
