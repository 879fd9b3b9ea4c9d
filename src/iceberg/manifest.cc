#include "iceberg/manifest.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

#include "base/sha256.h"
#include "base/utf8.h"

namespace sinkd::iceberg {

namespace {

using Json = nlohmann::ordered_json;

Json Optional(Json type) { return Json::array({"null", std::move(type)}); }

Json AvroField(const std::string& name, Json type, int32_t id) {
  Json f = {{"name", name}, {"type", std::move(type)}};
  if (f["type"].is_array()) f["default"] = nullptr;
  f["field-id"] = id;
  return f;
}

// Iceberg's map with int keys: an array of key/value records (Spec Appendix A).
Json IntKeyedMap(int32_t key_id, int32_t value_id, Json value_type) {
  // Appended rather than `"k" + std::to_string(…)`: gcc 12 warns falsely (-Wrestrict) on that.
  std::string name = "k";
  name.append(std::to_string(key_id)).append("_v").append(std::to_string(value_id));
  return {
      {"type", "array"},
      {"logicalType", "map"},
      {"items",
       {{"type", "record"},
        {"name", name},
        {"fields",
         {AvroField("key", "int", key_id), AvroField("value", std::move(value_type), value_id)}}}}};
}

Json PartitionStruct(const TableSpec& spec) {
  Json fields = Json::array();
  for (const PartitionField& p : spec.partition) {
    Json type =
        p.transform == "day" ? Json{{"type", "int"}, {"logicalType", "date"}} : Json("string");
    fields.push_back(AvroField(p.name, Optional(std::move(type)), p.field_id));
  }
  return {{"type", "record"}, {"name", "r102"}, {"fields", fields}};
}

std::string ManifestSchema(const TableSpec& spec) {
  const Json data_file = {
      {"type", "record"},
      {"name", "r2"},
      {"fields",
       {AvroField("content", "int", 134), AvroField("file_path", "string", 100),
        AvroField("file_format", "string", 101), AvroField("partition", PartitionStruct(spec), 102),
        AvroField("record_count", "long", 103), AvroField("file_size_in_bytes", "long", 104),
        AvroField("column_sizes", Optional(IntKeyedMap(117, 118, "long")), 108),
        AvroField("value_counts", Optional(IntKeyedMap(119, 120, "long")), 109),
        AvroField("null_value_counts", Optional(IntKeyedMap(121, 122, "long")), 110),
        AvroField("lower_bounds", Optional(IntKeyedMap(126, 127, "bytes")), 125),
        AvroField("upper_bounds", Optional(IntKeyedMap(129, 130, "bytes")), 128),
        AvroField("key_metadata", Optional("bytes"), 131),
        AvroField("split_offsets",
                  Optional({{"type", "array"}, {"items", "long"}, {"element-id", 133}}), 132),
        AvroField("sort_order_id", Optional("int"), 140)}}};
  const Json entry = {
      {"type", "record"},
      {"name", "manifest_entry"},
      {"fields",
       {AvroField("status", "int", 0), AvroField("snapshot_id", Optional("long"), 1),
        AvroField("sequence_number", Optional("long"), 3),
        AvroField("file_sequence_number", Optional("long"), 4),
        AvroField("data_file", data_file, 2)}}};
  return entry.dump();
}

std::string ManifestListSchema() {
  const Json summary = {{"type", "record"},
                        {"name", "r508"},
                        {"fields",
                         {AvroField("contains_null", "boolean", 509),
                          AvroField("contains_nan", Optional("boolean"), 518),
                          AvroField("lower_bound", Optional("bytes"), 510),
                          AvroField("upper_bound", Optional("bytes"), 511)}}};
  const Json list = {
      {"type", "record"},
      {"name", "manifest_file"},
      {"fields",
       {AvroField("manifest_path", "string", 500), AvroField("manifest_length", "long", 501),
        AvroField("partition_spec_id", "int", 502), AvroField("content", "int", 517),
        AvroField("sequence_number", "long", 515), AvroField("min_sequence_number", "long", 516),
        AvroField("added_snapshot_id", "long", 503), AvroField("added_files_count", "int", 504),
        AvroField("existing_files_count", "int", 505), AvroField("deleted_files_count", "int", 506),
        AvroField("added_rows_count", "long", 512), AvroField("existing_rows_count", "long", 513),
        AvroField("deleted_rows_count", "long", 514),
        AvroField("partitions",
                  Optional({{"type", "array"}, {"items", summary}, {"element-id", 508}}), 507),
        AvroField("key_metadata", Optional("bytes"), 519)}}};
  return list.dump();
}

// The encoders below write each entry straight into the container's block, field after field in
// the order ManifestSchema and ManifestListSchema give (IcebergManifest.TheDirectWritersBytes…
// holds them to the generic encoder's bytes): building a generic Value of every statistic first
// (about 600 values an entry of 40 columns) was most of what writing a manifest cost.
// Iceberg's optional fields are ["null", T] unions: branch 0 is null, branch 1 the value.
void PutLong(int64_t n, std::string& out) { avro::AppendLong(n, out); }
void PutBytes(std::string_view s, std::string& out) {
  PutLong(static_cast<int64_t>(s.size()), out);
  out += s;
}
void PutNull(std::string& out) { PutLong(0, out); }
void PutValue(std::string& out) { PutLong(1, out); }
void PutOptional(const std::optional<int64_t>& v, std::string& out) {
  if (!v) return PutNull(out);
  PutValue(out);
  PutLong(*v, out);
}
void PutOptional(const std::optional<std::string>& v, std::string& out) {
  if (!v) return PutNull(out);
  PutValue(out);
  PutBytes(*v, out);
}
Status PutString(std::string_view s, const char* what, std::string& out) {
  if (!IsValidUtf8(s)) {
    return Status::Refuse(fmt::format("iceberg: {} is not UTF-8 (hex {})", what, HexEncode(s)));
  }
  PutBytes(s, out);
  return Status::OK();
}

// An optional int-keyed map of a data file's columns (an array of key/value records), given:
// `has(c)` whether column c has the value, `put(c)` that appends it. A column without the value
// is left out of the map.
template <typename Has, typename Put>
void ColumnMap(const DataFile& file, Has has, Put put, std::string& out) {
  PutValue(out);
  int64_t count = 0;
  for (const ColumnMetrics& c : file.columns) count += has(c) ? 1 : 0;
  if (count > 0) PutLong(count, out);
  for (const ColumnMetrics& c : file.columns) {
    if (!has(c)) continue;
    PutLong(c.field_id, out);
    put(c);
  }
  PutLong(0, out);  // the array's end: a block of no items
}

Status EncodeDataFile(const TableSpec& spec, const DataFile& file, std::string& out) {
  PutLong(0, out);  // content: data
  SINKD_RETURN_IF_ERROR(PutString(file.path, "a data file's path", out));
  PutBytes("PARQUET", out);
  PutValue(out);  // the day
  PutLong(file.day, out);
  for (size_t i = 1; i < spec.partition.size(); ++i) {
    PutValue(out);
    SINKD_RETURN_IF_ERROR(PutString(file.values[i - 1], "a partition value", out));
  }
  PutLong(static_cast<int64_t>(file.records), out);
  PutLong(static_cast<int64_t>(file.file_size), out);
  const auto always = [](const ColumnMetrics&) { return true; };
  const auto count = [&](uint64_t n) { PutLong(static_cast<int64_t>(n), out); };
  ColumnMap(
      file, always, [&](const ColumnMetrics& c) { count(c.bytes); }, out);
  ColumnMap(
      file, always, [&](const ColumnMetrics& c) { count(c.values); }, out);
  ColumnMap(
      file, [](const ColumnMetrics& c) { return c.nulls.has_value(); },
      [&](const ColumnMetrics& c) { count(*c.nulls); }, out);
  ColumnMap(
      file, [](const ColumnMetrics& c) { return c.lower.has_value(); },
      [&](const ColumnMetrics& c) { PutBytes(*c.lower, out); }, out);
  ColumnMap(
      file, [](const ColumnMetrics& c) { return c.upper.has_value(); },
      [&](const ColumnMetrics& c) { PutBytes(*c.upper, out); }, out);
  PutNull(out);   // key_metadata
  PutValue(out);  // split_offsets
  if (!file.split_offsets.empty()) PutLong(static_cast<int64_t>(file.split_offsets.size()), out);
  for (uint64_t o : file.split_offsets) PutLong(static_cast<int64_t>(o), out);
  PutLong(0, out);
  PutValue(out);  // sort_order_id
  PutLong(kSortOrderId, out);
  return Status::OK();
}

Status EncodeEntry(const TableSpec& spec, const BorrowedEntry& e, std::string& out) {
  PutLong(static_cast<int32_t>(e.status), out);
  PutOptional(e.snapshot_id, out);
  PutOptional(e.sequence_number, out);
  PutOptional(e.file_sequence_number, out);
  return EncodeDataFile(spec, *e.file, out);
}

Status EncodeListEntry(const ManifestFile& m, std::string& out) {
  SINKD_RETURN_IF_ERROR(PutString(m.path, "a manifest's path", out));
  PutLong(static_cast<int64_t>(m.length), out);
  PutLong(m.spec_id, out);
  PutLong(0, out);  // content: data
  PutLong(m.sequence_number, out);
  PutLong(m.min_sequence_number, out);
  PutLong(m.added_snapshot_id, out);
  PutLong(m.added_files, out);
  PutLong(m.existing_files, out);
  PutLong(m.deleted_files, out);
  PutLong(m.added_rows, out);
  PutLong(m.existing_rows, out);
  PutLong(m.deleted_rows, out);
  PutValue(out);  // partitions
  if (!m.partitions.empty()) PutLong(static_cast<int64_t>(m.partitions.size()), out);
  for (const FieldSummary& s : m.partitions) {
    out.push_back(s.contains_null ? 1 : 0);
    PutNull(out);  // contains_nan
    PutOptional(s.lower, out);
    PutOptional(s.upper, out);
  }
  PutLong(0, out);
  PutNull(out);  // key_metadata
  return Status::OK();
}

// Unique to the file (its path), so the same records give the same bytes.
avro::WriterOptions AvroOptions(const std::string& path, avro::Codec codec,
                                WorkPool* pool = nullptr) {
  avro::WriterOptions o;
  o.codec = codec;
  o.pool = pool;
  o.deflate_level = kManifestDeflateLevel;
  const std::string digest = Sha256(path);
  std::memcpy(o.sync.data(), digest.data(), o.sync.size());
  return o;
}

// A container of `schema_json` holding each of `items` as `encode(item, out)` appends it.
template <typename T, typename Encode>
Result<std::string> Write(const std::string& schema_json, avro::Metadata metadata,
                          const avro::WriterOptions& options, const std::vector<T>& items,
                          Encode encode) {
  SINKD_ASSIGN_OR_RETURN(avro::Schema schema, avro::Schema::Parse(schema_json));
  avro::ContainerWriter writer(std::move(schema), std::move(metadata), options);
  for (const T& item : items) {
    SINKD_RETURN_IF_ERROR(
        writer.AppendEncoded([&](std::string& out) { return encode(item, out); }));
  }
  return writer.Finish();
}

Status CheckEntry(const TableSpec& spec, const BorrowedEntry& e) {
  const bool added = e.status == EntryStatus::kAdded;
  if (!added && (!e.snapshot_id || !e.sequence_number || !e.file_sequence_number)) {
    return Status::Refuse(
        "iceberg: an EXISTING or DELETED entry without its snapshot id and "
        "sequence numbers: " +
        e.file->path);
  }
  if (e.file->values.size() + 1 != spec.partition.size()) {
    return Status::Refuse("iceberg: a partition tuple that does not match the spec: " +
                          e.file->path);
  }
  return Status::OK();
}

// The partition summaries of the entries: day bounds compared as numbers, strings as bytes.
std::vector<FieldSummary> Summaries(const TableSpec& spec,
                                    const std::vector<BorrowedEntry>& entries) {
  std::vector<FieldSummary> out(spec.partition.size());
  if (entries.empty()) return out;
  int32_t lo = entries[0].file->day, hi = lo;
  for (const BorrowedEntry& e : entries) {
    lo = std::min(lo, e.file->day);
    hi = std::max(hi, e.file->day);
  }
  out[0].lower = DayBytes(lo);
  out[0].upper = DayBytes(hi);
  for (size_t i = 1; i < out.size(); ++i) {
    for (const BorrowedEntry& e : entries) {
      const std::string& v = e.file->values[i - 1];
      if (!out[i].lower || v < *out[i].lower) out[i].lower = v;
      if (!out[i].upper || v > *out[i].upper) out[i].upper = v;
    }
  }
  return out;
}

}  // namespace

std::string DayBytes(int32_t day) {
  std::string out(4, '\0');
  std::memcpy(out.data(), &day, 4);  // little-endian host, little-endian format
  return out;
}

Result<Manifest> WriteManifest(const TableSpec& spec, const std::string& path, int64_t snapshot_id,
                               int64_t sequence_number, const std::vector<ManifestEntry>& entries,
                               avro::Codec codec) {
  std::vector<BorrowedEntry> of;
  of.reserve(entries.size());
  for (const ManifestEntry& e : entries) {
    of.push_back(BorrowedEntry{e.status, e.snapshot_id, e.sequence_number, e.file_sequence_number,
                         &e.file});
  }
  return WriteManifest(spec, path, snapshot_id, sequence_number, of, codec);
}

Result<Manifest> WriteManifest(const TableSpec& spec, const std::string& path, int64_t snapshot_id,
                               int64_t sequence_number, const std::vector<BorrowedEntry>& entries,
                               avro::Codec codec, WorkPool* pool) {
  Manifest m;
  m.file.path = path;
  m.file.added_snapshot_id = snapshot_id;
  m.file.sequence_number = sequence_number;
  m.file.min_sequence_number = sequence_number;
  for (const BorrowedEntry& e : entries) {
    SINKD_RETURN_IF_ERROR(CheckEntry(spec, e));
    const auto rows = static_cast<int64_t>(e.file->records);
    switch (e.status) {
      case EntryStatus::kAdded:
        ++m.file.added_files;
        m.file.added_rows += rows;
        break;
      case EntryStatus::kExisting:
        ++m.file.existing_files;
        m.file.existing_rows += rows;
        break;
      case EntryStatus::kDeleted:
        ++m.file.deleted_files;
        m.file.deleted_rows += rows;
        break;
    }
    if (e.status == EntryStatus::kExisting) {
      m.file.min_sequence_number = std::min(m.file.min_sequence_number, *e.sequence_number);
    }
  }
  m.file.partitions = Summaries(spec, entries);
  const avro::Metadata header = {{"schema", spec.schema.dump()},
                                 {"schema-id", "0"},
                                 {"partition-spec", PartitionFieldsJson(spec).dump()},
                                 {"partition-spec-id", "0"},
                                 {"format-version", "2"},
                                 {"content", "data"}};
  SINKD_ASSIGN_OR_RETURN(m.bytes, Write(ManifestSchema(spec), header,
                                        AvroOptions(path, codec, pool), entries,
                                        [&](const BorrowedEntry& e, std::string& out) {
                                          return EncodeEntry(spec, e, out);
                                        }));
  m.file.length = m.bytes.size();
  return m;
}

Result<std::string> WriteManifestList(const std::vector<ManifestFile>& manifests,
                                      int64_t snapshot_id, std::optional<int64_t> parent_id,
                                      int64_t sequence_number, avro::Codec codec) {
  avro::Metadata header = {{"snapshot-id", std::to_string(snapshot_id)}};
  if (parent_id) header.emplace_back("parent-snapshot-id", std::to_string(*parent_id));
  header.emplace_back("sequence-number", std::to_string(sequence_number));
  header.emplace_back("format-version", "2");
  // The list has no path of its own here: its sync marker is derived from the snapshot id.
  return Write(ManifestListSchema(), std::move(header),
               AvroOptions(std::string("snapshot-").append(std::to_string(snapshot_id)), codec),
               manifests, EncodeListEntry);
}

}  // namespace sinkd::iceberg
