#include "iceberg/table_metadata.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>
#include <iterator>
#include <type_traits>

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

// The metadata file is written straight into one string rather than through a JSON tree: a
// commit rewrites every snapshot the table keeps, and building, dumping and freeing nlohmann's
// tree of 1,440 snapshots (a table kept at `table expire`'s defaults) was most of a commit's CPU
// (table_bench). The text is exactly what nlohmann's compact dump of the same values gives
// (TableMetadata.ToJsonIsWhatNlohmannsDumpOfItsParseGives), so readers see no difference.
class JsonWriter {
 public:
  explicit JsonWriter(std::string& out) : out_(out) {}

  void Raw(std::string_view text) { out_.append(text); }
  void Int(int64_t n) { fmt::format_to(std::back_inserter(out_), "{}", n); }
  void String(std::string_view s) {
    // Not ASCII: nlohmann's serializer, which checks the UTF-8 as the tree's dump always did
    // (and throws on what is not), rather than a second validator of our own.
    for (const char c : s) {
      if (static_cast<unsigned char>(c) >= 0x80) {
        out_.append(Json(std::string(s)).dump());
        return;
      }
    }
    out_.push_back('"');
    size_t plain = 0;  // the start of a run of bytes that need no escape, appended at once
    for (size_t i = 0; i < s.size(); ++i) {
      const char c = s[i];
      if (static_cast<unsigned char>(c) >= 0x20 && c != '"' && c != '\\') continue;
      out_.append(s.data() + plain, i - plain);
      plain = i + 1;
      switch (c) {
        case '"':
          out_.append("\\\"");
          break;
        case '\\':
          out_.append("\\\\");
          break;
        case '\b':
          out_.append("\\b");
          break;
        case '\f':
          out_.append("\\f");
          break;
        case '\n':
          out_.append("\\n");
          break;
        case '\r':
          out_.append("\\r");
          break;
        case '\t':
          out_.append("\\t");
          break;
        default:
          fmt::format_to(std::back_inserter(out_), "\\u{:04x}", static_cast<unsigned>(c));
      }
    }
    out_.append(s.data() + plain, s.size() - plain);
    out_.push_back('"');
  }
  // "key": — with the comma that separates it from the previous member of its object.
  void Key(std::string_view key, bool first = false) {
    if (!first) out_.push_back(',');
    String(key);
    out_.push_back(':');
  }
  void StringMap(const Summary& pairs) {
    // A repeated key keeps its first place and its last value, as an ordered_json object
    // assigned key by key did.
    out_.push_back('{');
    bool first = true;
    for (size_t i = 0; i < pairs.size(); ++i) {
      bool seen = false;
      for (size_t e = 0; e < i && !seen; ++e) seen = pairs[e].first == pairs[i].first;
      if (seen) continue;
      const std::string* value = &pairs[i].second;
      for (size_t later = i + 1; later < pairs.size(); ++later) {
        if (pairs[later].first == pairs[i].first) value = &pairs[later].second;
      }
      Key(pairs[i].first, first);
      String(*value);
      first = false;
    }
    out_.push_back('}');
  }

 private:
  std::string& out_;
};

void WriteSnapshot(JsonWriter& w, const Snapshot& s) {
  w.Raw("{");
  w.Key("snapshot-id", true);
  w.Int(s.id);
  if (s.parent_id) {
    w.Key("parent-snapshot-id");
    w.Int(*s.parent_id);
  }
  w.Key("sequence-number");
  w.Int(s.sequence_number);
  w.Key("timestamp-ms");
  w.Int(s.timestamp_ms);
  w.Key("manifest-list");
  w.String(s.manifest_list);
  w.Key("summary");
  w.StringMap(s.summary);
  w.Key("schema-id");
  w.Int(s.schema_id);
  w.Raw("}");
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
                  {"schema.name-mapping.default", NameMapping(spec).dump()},
                  // When the table began: orphan removal never takes what is older (maintenance.h).
                  {"sinkd.created-ms", std::to_string(now_ms)}};
  m.spec = std::move(spec);
  return m;
}

Snapshot AppendSnapshot(const TableMetadata& base, int64_t id, int64_t now_ms,
                        std::string manifest_list, const AppendCounts& added,
                        const Summary& extra) {
  return ReplaceSnapshot(base, id, now_ms, std::move(manifest_list), added, {}, extra);
}

Snapshot ReplaceSnapshot(const TableMetadata& base, int64_t id, int64_t now_ms,
                         std::string manifest_list, const AppendCounts& added,
                         const AppendCounts& removed, const Summary& extra) {
  const Snapshot* parent = base.Current();
  Snapshot s;
  s.id = id;
  if (parent != nullptr) s.parent_id = parent->id;
  s.sequence_number = base.last_sequence_number + 1;
  s.timestamp_ms = now_ms;
  s.manifest_list = std::move(manifest_list);
  const auto str = [](uint64_t n) { return std::to_string(n); };
  // A total below what was removed means the parent's totals were not counts (another
  // engine's snapshot): 0 rather than a wrapped number.
  const auto total = [&](const char* key, uint64_t plus, uint64_t minus) {
    const uint64_t had = Total(parent, key) + plus;
    return str(had >= minus ? had - minus : 0);
  };
  const bool replace = removed.files > 0;
  s.summary = {{"operation", replace ? "replace" : "append"},
               {"added-data-files", str(added.files)},
               {"added-records", str(added.records)},
               {"added-files-size", str(added.bytes)}};
  if (replace) {
    s.summary.insert(s.summary.end(), {{"deleted-data-files", str(removed.files)},
                                       {"deleted-records", str(removed.records)},
                                       {"removed-files-size", str(removed.bytes)}});
  }
  s.summary.insert(
      s.summary.end(),
      {{"changed-partition-count", str(std::max(added.partitions, removed.partitions))},
       {"total-records", total("total-records", added.records, removed.records)},
       {"total-files-size", total("total-files-size", added.bytes, removed.bytes)},
       {"total-data-files", total("total-data-files", added.files, removed.files)},
       {"total-delete-files", "0"},
       {"total-position-deletes", "0"},
       {"total-equality-deletes", "0"}});
  s.summary.insert(s.summary.end(), extra.begin(), extra.end());
  return s;
}

TableMetadata WithSnapshot(TableMetadata base, Snapshot snapshot, int64_t now_ms,
                           const std::string& previous_metadata) {
  assert(snapshot.sequence_number > base.last_sequence_number);
  const int64_t base_updated_ms = base.last_updated_ms;
  TableMetadata m = std::move(base);
  m.last_sequence_number = snapshot.sequence_number;
  m.last_updated_ms = now_ms;
  m.current_snapshot_id = snapshot.id;
  m.snapshot_log.push_back({"", snapshot.id, snapshot.timestamp_ms});
  if (!previous_metadata.empty()) {
    m.metadata_log.push_back({previous_metadata, 0, base_updated_ms});
  }
  m.snapshots.push_back(std::move(snapshot));
  return m;
}

std::string ToJson(const TableMetadata& m) {
  std::string out;
  out.reserve(4096 + m.snapshots.size() * 900 + m.metadata_log.size() * 160);
  JsonWriter w(out);
  w.Raw("{");
  w.Key("format-version", true);
  w.Int(2);
  w.Key("table-uuid");
  w.String(m.uuid);
  w.Key("location");
  w.String(m.location);
  w.Key("last-sequence-number");
  w.Int(m.last_sequence_number);
  w.Key("last-updated-ms");
  w.Int(m.last_updated_ms);
  w.Key("last-column-id");
  w.Int(m.spec.last_column_id);
  w.Key("current-schema-id");
  w.Int(0);
  w.Key("schemas");
  w.Raw(Json::array({m.spec.schema}).dump());
  w.Key("default-spec-id");
  w.Int(0);
  w.Key("partition-specs");
  w.Raw(Json::array({PartitionSpecJson(m.spec)}).dump());
  w.Key("last-partition-id");
  w.Int(m.spec.last_partition_id);
  w.Key("default-sort-order-id");
  w.Int(kSortOrderId);
  w.Key("sort-orders");
  w.Raw(Json::array({m.spec.sort_order}).dump());
  w.Key("properties");
  w.StringMap(m.properties);
  // -1 is how v1/v2 writers say "no snapshot"; readers accept it (Spec Appendix F).
  w.Key("current-snapshot-id");
  w.Int(m.current_snapshot_id.value_or(-1));
  w.Key("snapshots");
  w.Raw("[");
  for (size_t i = 0; i < m.snapshots.size(); ++i) {
    if (i > 0) w.Raw(",");
    WriteSnapshot(w, m.snapshots[i]);
  }
  w.Raw("]");
  w.Key("snapshot-log");
  w.Raw("[");
  for (size_t i = 0; i < m.snapshot_log.size(); ++i) {
    if (i > 0) w.Raw(",");
    w.Raw("{");
    w.Key("snapshot-id", true);
    w.Int(m.snapshot_log[i].snapshot_id);
    w.Key("timestamp-ms");
    w.Int(m.snapshot_log[i].timestamp_ms);
    w.Raw("}");
  }
  w.Raw("]");
  w.Key("metadata-log");
  w.Raw("[");
  for (size_t i = 0; i < m.metadata_log.size(); ++i) {
    if (i > 0) w.Raw(",");
    w.Raw("{");
    w.Key("metadata-file", true);
    w.String(m.metadata_log[i].metadata_file);
    w.Key("timestamp-ms");
    w.Int(m.metadata_log[i].timestamp_ms);
    w.Raw("}");
  }
  w.Raw("]");
  w.Key("refs");
  w.Raw("{");
  if (m.current_snapshot_id) {
    w.Key("main", true);
    w.Raw("{");
    w.Key("snapshot-id", true);
    w.Int(*m.current_snapshot_id);
    w.Key("type");
    w.String("branch");
    w.Raw("}");
  }
  w.Raw("}}");
  return out;
}

int64_t SnapshotIdFrom(uint64_t random_bits) {
  const auto id = static_cast<int64_t>(random_bits & 0x7FFF'FFFF'FFFF'FFFFull);
  return id == 0 ? 1 : id;
}

}  // namespace sinkd::iceberg

namespace sinkd::iceberg {

namespace {

using Json = nlohmann::ordered_json;

Status Malformed(const std::string& what) {
  return Status::Reject("iceberg: table metadata: " + what);
}

// The member `key` of `j` when it has the wanted JSON type, else Reject.
template <typename T>
Result<T> Member(const Json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end()) return Malformed(std::string("no \"") + key + "\"");
  if constexpr (std::is_same_v<T, std::string>) {
    if (it->is_string()) return it->template get<std::string>();
  } else {
    if (it->is_number_integer()) return it->template get<T>();
  }
  return Malformed(std::string("\"") + key + "\" has the wrong type");
}

Result<Json> Array(const Json& j, const char* key, bool required) {
  auto it = j.find(key);
  if (it == j.end() && !required) return Json::array();
  if (it == j.end() || !it->is_array()) return Malformed(std::string("no list \"") + key + "\"");
  return *it;
}

Result<Summary> Strings(const Json& j, const char* key) {
  Summary out;
  auto it = j.find(key);
  if (it == j.end()) return out;
  if (!it->is_object()) return Malformed(std::string("\"") + key + "\" is not an object");
  for (const auto& [k, v] : it->items()) {
    if (!v.is_string()) return Malformed(std::string("a value of \"") + key + "\" is not a string");
    out.emplace_back(k, v.get<std::string>());
  }
  return out;
}

// The element of `list` whose `id_key` equals `id`.
Result<Json> ById(const Json& list, const char* id_key, int64_t id, const char* what) {
  for (const auto& e : list) {
    if (e.is_object() && e.contains(id_key) && e[id_key] == id) return e;
  }
  return Malformed(std::string("no ") + what + " " + std::to_string(id));
}

Result<TableSpec> ParseSpec(const Json& j) {
  TableSpec spec;
  SINKD_ASSIGN_OR_RETURN(const int64_t schema_id, Member<int64_t>(j, "current-schema-id"));
  SINKD_ASSIGN_OR_RETURN(const Json schemas, Array(j, "schemas", true));
  SINKD_ASSIGN_OR_RETURN(spec.schema, ById(schemas, "schema-id", schema_id, "schema"));
  SINKD_ASSIGN_OR_RETURN(const int64_t spec_id, Member<int64_t>(j, "default-spec-id"));
  SINKD_ASSIGN_OR_RETURN(const Json specs, Array(j, "partition-specs", true));
  SINKD_ASSIGN_OR_RETURN(const Json partition, ById(specs, "spec-id", spec_id, "partition spec"));
  SINKD_ASSIGN_OR_RETURN(const Json fields, Array(partition, "fields", true));
  for (const auto& f : fields) {
    PartitionField p;
    SINKD_ASSIGN_OR_RETURN(p.source_id, Member<int32_t>(f, "source-id"));
    SINKD_ASSIGN_OR_RETURN(p.field_id, Member<int32_t>(f, "field-id"));
    SINKD_ASSIGN_OR_RETURN(p.name, Member<std::string>(f, "name"));
    SINKD_ASSIGN_OR_RETURN(p.transform, Member<std::string>(f, "transform"));
    spec.partition.push_back(std::move(p));
  }
  SINKD_ASSIGN_OR_RETURN(const int64_t order_id, Member<int64_t>(j, "default-sort-order-id"));
  SINKD_ASSIGN_OR_RETURN(const Json orders, Array(j, "sort-orders", true));
  SINKD_ASSIGN_OR_RETURN(spec.sort_order, ById(orders, "order-id", order_id, "sort order"));
  SINKD_ASSIGN_OR_RETURN(const Json keys, Array(spec.sort_order, "fields", false));
  if (keys.size() >= 2) {
    SINKD_ASSIGN_OR_RETURN(spec.time_field_id, Member<int32_t>(keys[0], "source-id"));
    SINKD_ASSIGN_OR_RETURN(spec.id_field_id, Member<int32_t>(keys[1], "source-id"));
  }
  SINKD_ASSIGN_OR_RETURN(spec.last_column_id, Member<int32_t>(j, "last-column-id"));
  SINKD_ASSIGN_OR_RETURN(spec.last_partition_id, Member<int32_t>(j, "last-partition-id"));
  return spec;
}

Result<Snapshot> ParseSnapshot(const Json& j) {
  Snapshot s;
  SINKD_ASSIGN_OR_RETURN(s.id, Member<int64_t>(j, "snapshot-id"));
  if (j.contains("parent-snapshot-id")) {
    SINKD_ASSIGN_OR_RETURN(s.parent_id, Member<int64_t>(j, "parent-snapshot-id"));
  }
  SINKD_ASSIGN_OR_RETURN(s.sequence_number, Member<int64_t>(j, "sequence-number"));
  SINKD_ASSIGN_OR_RETURN(s.timestamp_ms, Member<int64_t>(j, "timestamp-ms"));
  SINKD_ASSIGN_OR_RETURN(s.manifest_list, Member<std::string>(j, "manifest-list"));
  SINKD_ASSIGN_OR_RETURN(s.summary, Strings(j, "summary"));
  if (j.contains("schema-id")) {
    SINKD_ASSIGN_OR_RETURN(s.schema_id, Member<int32_t>(j, "schema-id"));
  }
  return s;
}

}  // namespace

Result<TableMetadata> ParseTableMetadata(std::string_view json) {
  const Json j = Json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return Malformed("not a JSON object");
  SINKD_ASSIGN_OR_RETURN(const int64_t version, Member<int64_t>(j, "format-version"));
  if (version != 2) return Malformed("format-version " + std::to_string(version) + ", not 2");
  TableMetadata m;
  SINKD_ASSIGN_OR_RETURN(m.uuid, Member<std::string>(j, "table-uuid"));
  SINKD_ASSIGN_OR_RETURN(m.location, Member<std::string>(j, "location"));
  SINKD_ASSIGN_OR_RETURN(m.last_sequence_number, Member<int64_t>(j, "last-sequence-number"));
  SINKD_ASSIGN_OR_RETURN(m.last_updated_ms, Member<int64_t>(j, "last-updated-ms"));
  SINKD_ASSIGN_OR_RETURN(m.spec, ParseSpec(j));
  SINKD_ASSIGN_OR_RETURN(m.properties, Strings(j, "properties"));
  if (j.contains("current-snapshot-id") && !j["current-snapshot-id"].is_null()) {
    SINKD_ASSIGN_OR_RETURN(const int64_t current, Member<int64_t>(j, "current-snapshot-id"));
    if (current != -1) m.current_snapshot_id = current;
  }
  SINKD_ASSIGN_OR_RETURN(const Json snapshots, Array(j, "snapshots", false));
  for (const auto& s : snapshots) {
    SINKD_ASSIGN_OR_RETURN(Snapshot snapshot, ParseSnapshot(s));
    m.snapshots.push_back(std::move(snapshot));
  }
  if (m.current_snapshot_id && m.Current() == nullptr) {
    return Malformed("the current snapshot " + std::to_string(*m.current_snapshot_id) +
                     " is not among the snapshots");
  }
  SINKD_ASSIGN_OR_RETURN(const Json snapshot_log, Array(j, "snapshot-log", false));
  for (const auto& e : snapshot_log) {
    LogEntry entry;
    SINKD_ASSIGN_OR_RETURN(entry.snapshot_id, Member<int64_t>(e, "snapshot-id"));
    SINKD_ASSIGN_OR_RETURN(entry.timestamp_ms, Member<int64_t>(e, "timestamp-ms"));
    m.snapshot_log.push_back(std::move(entry));
  }
  SINKD_ASSIGN_OR_RETURN(const Json metadata_log, Array(j, "metadata-log", false));
  for (const auto& e : metadata_log) {
    LogEntry entry;
    SINKD_ASSIGN_OR_RETURN(entry.metadata_file, Member<std::string>(e, "metadata-file"));
    SINKD_ASSIGN_OR_RETURN(entry.timestamp_ms, Member<int64_t>(e, "timestamp-ms"));
    m.metadata_log.push_back(std::move(entry));
  }
  return m;
}

}  // namespace sinkd::iceberg
