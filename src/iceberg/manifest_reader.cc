// Reading manifests and manifest lists back (manifest.h): by field-id where the spec gives one
// (so a writer's own field names do not matter), by name for the record fields Iceberg names.
#include <cstring>
#include <nlohmann/json.hpp>

#include "iceberg/manifest.h"

namespace sinkd::iceberg {

namespace {

Status Bad(std::string_view what) {
  return Status::Reject("iceberg: manifest: " + std::string(what));
}

// The record field named `name`; Reject when it is missing or null and `required`.
Result<const avro::Value*> Get(const avro::Value& record, const char* name, bool required) {
  const avro::Value* v = record.Find(name);
  if (v == nullptr || v->is_null()) {
    if (required) return Bad(std::string("no ") + name);
    return static_cast<const avro::Value*>(nullptr);
  }
  return v;
}

Result<int64_t> Long(const avro::Value& record, const char* name) {
  SINKD_ASSIGN_OR_RETURN(const avro::Value* v, Get(record, name, true));
  if (v->kind() != avro::Value::Kind::kLong) return Bad(std::string(name) + " is not a number");
  return v->long_value();
}

std::optional<int64_t> OptionalLong(const avro::Value& record, const char* name) {
  const avro::Value* v = record.Find(name);
  if (v == nullptr || v->kind() != avro::Value::Kind::kLong) return std::nullopt;
  return v->long_value();
}

Result<std::string> String(const avro::Value& record, const char* name) {
  SINKD_ASSIGN_OR_RETURN(const avro::Value* v, Get(record, name, true));
  if (v->kind() != avro::Value::Kind::kString) return Bad(std::string(name) + " is not a string");
  return v->string();
}

// The entries of an int-keyed map (an array of key/value records), each handed to `apply`.
template <typename Apply>
Status EachPair(const avro::Value& record, const char* name, avro::Value::Kind kind, Apply apply) {
  const avro::Value* map = record.Find(name);
  if (map == nullptr || map->is_null()) return Status::OK();
  if (map->kind() != avro::Value::Kind::kArray) return Bad(std::string(name) + " is not a map");
  for (const avro::Value& pair : map->array().items) {
    const avro::Value* key = pair.Find("key");
    const avro::Value* value = pair.Find("value");
    if (key == nullptr || value == nullptr || key->kind() != avro::Value::Kind::kLong ||
        value->kind() != kind) {
      return Bad(std::string(name) + " holds a pair other than an int key and its value");
    }
    apply(static_cast<int32_t>(key->long_value()), *value);
  }
  return Status::OK();
}

// The metrics of column `id`, added when new. Every map of an entry lists its columns in the same
// order (sinkd's writer and Java's), so the column after the one found last (`cursor`) is tried
// first: a linear search per pair was a tenth of reading a manifest of 40 columns.
ColumnMetrics& Column(DataFile& file, int32_t id, size_t& cursor) {
  if (cursor >= file.columns.size() || file.columns[cursor].field_id != id) {
    cursor = 0;
    while (cursor < file.columns.size() && file.columns[cursor].field_id != id) ++cursor;
    if (cursor == file.columns.size()) file.columns.push_back(ColumnMetrics{id, 0, 0, {}, {}, {}});
  }
  return file.columns[cursor++];
}

// The partition struct's field ids, by field name, from the Avro schema text.
std::vector<std::pair<int32_t, std::string>> PartitionIds(const std::string& schema_json) {
  std::vector<std::pair<int32_t, std::string>> out;
  const auto j = nlohmann::json::parse(schema_json, nullptr, false);
  if (!j.is_object() || !j.contains("fields")) return out;
  for (const auto& f : j["fields"]) {
    if (f.value("name", "") != "data_file" || !f["type"].is_object()) continue;
    for (const auto& d : f["type"].value("fields", nlohmann::json::array())) {
      if (d.value("name", "") != "partition" || !d["type"].is_object()) continue;
      for (const auto& p : d["type"].value("fields", nlohmann::json::array())) {
        if (p.contains("field-id") && p["field-id"].is_number_integer()) {
          out.emplace_back(p["field-id"].get<int32_t>(), p.value("name", ""));
        }
      }
    }
  }
  return out;
}

Status ReadPartition(const avro::Value& partition, const TableSpec& spec,
                     const std::vector<std::pair<int32_t, std::string>>& ids, DataFile& file) {
  for (size_t i = 0; i < spec.partition.size(); ++i) {
    const PartitionField& field = spec.partition[i];
    std::string name;
    for (const auto& [id, n] : ids) {
      if (id == field.field_id) name = n;
    }
    const avro::Value* v = name.empty() ? nullptr : partition.Find(name);
    if (v == nullptr || v->is_null()) {
      return Bad("no value for partition field " + std::to_string(field.field_id));
    }
    if (i == 0) {
      if (v->kind() != avro::Value::Kind::kLong) return Bad("a day that is not a number");
      file.day = static_cast<int32_t>(v->long_value());
    } else {
      if (v->kind() != avro::Value::Kind::kString) return Bad("an identity value not a string");
      file.values.push_back(v->string());
    }
  }
  return Status::OK();
}

Result<DataFile> ReadDataFile(const avro::Value& d, const TableSpec& spec,
                              const std::vector<std::pair<int32_t, std::string>>& ids) {
  DataFile file;
  SINKD_ASSIGN_OR_RETURN(const int64_t content, Long(d, "content"));
  if (content != 0) return Bad("a delete file (content " + std::to_string(content) + ")");
  SINKD_ASSIGN_OR_RETURN(file.path, String(d, "file_path"));
  SINKD_ASSIGN_OR_RETURN(const int64_t records, Long(d, "record_count"));
  SINKD_ASSIGN_OR_RETURN(const int64_t size, Long(d, "file_size_in_bytes"));
  file.records = static_cast<uint64_t>(records);
  file.file_size = static_cast<uint64_t>(size);
  SINKD_ASSIGN_OR_RETURN(const avro::Value* partition, Get(d, "partition", true));
  SINKD_RETURN_IF_ERROR(ReadPartition(*partition, spec, ids, file));
  const auto count = [](const avro::Value& v) { return static_cast<uint64_t>(v.long_value()); };
  size_t cursor = 0;  // Column's: where the previous pair's column was
  SINKD_RETURN_IF_ERROR(EachPair(
      d, "column_sizes", avro::Value::Kind::kLong,
      [&](int32_t id, const avro::Value& v) { Column(file, id, cursor).bytes = count(v); }));
  SINKD_RETURN_IF_ERROR(EachPair(
      d, "value_counts", avro::Value::Kind::kLong,
      [&](int32_t id, const avro::Value& v) { Column(file, id, cursor).values = count(v); }));
  SINKD_RETURN_IF_ERROR(EachPair(
      d, "null_value_counts", avro::Value::Kind::kLong,
      [&](int32_t id, const avro::Value& v) { Column(file, id, cursor).nulls = count(v); }));
  SINKD_RETURN_IF_ERROR(EachPair(
      d, "lower_bounds", avro::Value::Kind::kString,
      [&](int32_t id, const avro::Value& v) { Column(file, id, cursor).lower = v.string(); }));
  SINKD_RETURN_IF_ERROR(EachPair(
      d, "upper_bounds", avro::Value::Kind::kString,
      [&](int32_t id, const avro::Value& v) { Column(file, id, cursor).upper = v.string(); }));
  if (const avro::Value* offsets = d.Find("split_offsets"); offsets && !offsets->is_null()) {
    if (offsets->kind() != avro::Value::Kind::kArray) return Bad("split_offsets is not a list");
    for (const avro::Value& o : offsets->array().items) {
      if (o.kind() != avro::Value::Kind::kLong) return Bad("a split offset is not a number");
      file.split_offsets.push_back(static_cast<uint64_t>(o.long_value()));
    }
  }
  return file;
}

}  // namespace

Result<std::vector<ManifestEntry>> ReadManifest(std::string_view bytes, const TableSpec& spec) {
  SINKD_ASSIGN_OR_RETURN(avro::ContainerFile file, avro::ReadContainer(bytes));
  const std::string* content = file.Find("content");
  if (content != nullptr && *content != "data") return Bad("content \"" + *content + "\"");
  const auto ids = PartitionIds(file.schema.json());
  std::vector<ManifestEntry> out;
  for (const avro::Value& record : file.records) {
    ManifestEntry e;
    SINKD_ASSIGN_OR_RETURN(const int64_t status, Long(record, "status"));
    if (status < 0 || status > 2) return Bad("status " + std::to_string(status));
    e.status = static_cast<EntryStatus>(status);
    e.snapshot_id = OptionalLong(record, "snapshot_id");
    e.sequence_number = OptionalLong(record, "sequence_number");
    e.file_sequence_number = OptionalLong(record, "file_sequence_number");
    SINKD_ASSIGN_OR_RETURN(const avro::Value* d, Get(record, "data_file", true));
    SINKD_ASSIGN_OR_RETURN(e.file, ReadDataFile(*d, spec, ids));
    out.push_back(std::move(e));
  }
  return out;
}

Result<std::vector<ManifestFile>> ReadManifestList(std::string_view bytes) {
  SINKD_ASSIGN_OR_RETURN(avro::ContainerFile file, avro::ReadContainer(bytes));
  std::vector<ManifestFile> out;
  for (const avro::Value& r : file.records) {
    ManifestFile m;
    SINKD_ASSIGN_OR_RETURN(m.path, String(r, "manifest_path"));
    SINKD_ASSIGN_OR_RETURN(const int64_t length, Long(r, "manifest_length"));
    m.length = static_cast<uint64_t>(length);
    SINKD_ASSIGN_OR_RETURN(const int64_t spec_id, Long(r, "partition_spec_id"));
    m.spec_id = static_cast<int32_t>(spec_id);
    SINKD_ASSIGN_OR_RETURN(m.sequence_number, Long(r, "sequence_number"));
    SINKD_ASSIGN_OR_RETURN(m.min_sequence_number, Long(r, "min_sequence_number"));
    SINKD_ASSIGN_OR_RETURN(m.added_snapshot_id, Long(r, "added_snapshot_id"));
    m.added_files = static_cast<int32_t>(OptionalLong(r, "added_files_count").value_or(0));
    m.existing_files = static_cast<int32_t>(OptionalLong(r, "existing_files_count").value_or(0));
    m.deleted_files = static_cast<int32_t>(OptionalLong(r, "deleted_files_count").value_or(0));
    m.added_rows = OptionalLong(r, "added_rows_count").value_or(0);
    m.existing_rows = OptionalLong(r, "existing_rows_count").value_or(0);
    m.deleted_rows = OptionalLong(r, "deleted_rows_count").value_or(0);
    if (const avro::Value* parts = r.Find("partitions"); parts && !parts->is_null()) {
      if (parts->kind() != avro::Value::Kind::kArray) return Bad("partitions is not a list");
      for (const avro::Value& s : parts->array().items) {
        FieldSummary f;
        const avro::Value* contains_null = s.Find("contains_null");
        f.contains_null = contains_null && contains_null->kind() == avro::Value::Kind::kBoolean &&
                          contains_null->boolean();
        const auto bound = [&](const char* name) -> std::optional<std::string> {
          const avro::Value* v = s.Find(name);
          if (v == nullptr || v->kind() != avro::Value::Kind::kString) return std::nullopt;
          return v->string();
        };
        f.lower = bound("lower_bound");
        f.upper = bound("upper_bound");
        m.partitions.push_back(std::move(f));
      }
    }
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace sinkd::iceberg
