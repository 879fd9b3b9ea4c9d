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

// A manifest entry is read straight from its bytes, walking the file's own schema: a generic
// Value of every statistic of every column (about 600 values an entry of 40 columns) was most of
// what reading a manifest cost, and a merged manifest holds up to 4,096 entries. Fields are
// matched by name as Iceberg names them; fields sinkd does not keep are skipped.
class EntryReader {
 public:
  EntryReader(const avro::Schema& schema, const TableSpec& spec,
              const std::vector<std::pair<int32_t, std::string>>& ids)
      : schema_(schema), spec_(spec), ids_(ids) {}

  Status Read(avro::DatumReader& in, ManifestEntry& e) {
    const avro::Node& root = schema_.root();
    if (root.type != avro::Type::kRecord) return Bad("an entry that is not a record");
    std::optional<int64_t> status;
    bool data_file = false;
    for (const avro::Node::Field& f : root.fields) {
      if (f.name == "status") {
        SINKD_ASSIGN_OR_RETURN(status, OptionalLong(in, f.node, "status"));
      } else if (f.name == "snapshot_id") {
        SINKD_ASSIGN_OR_RETURN(e.snapshot_id, OptionalLong(in, f.node, nullptr));
      } else if (f.name == "sequence_number") {
        SINKD_ASSIGN_OR_RETURN(e.sequence_number, OptionalLong(in, f.node, nullptr));
      } else if (f.name == "file_sequence_number") {
        SINKD_ASSIGN_OR_RETURN(e.file_sequence_number, OptionalLong(in, f.node, nullptr));
      } else if (f.name == "data_file") {
        SINKD_ASSIGN_OR_RETURN(const size_t node, Present(in, f.node));
        if (node != kAbsent) {
          SINKD_RETURN_IF_ERROR(ReadDataFile(in, node, e.file));
          data_file = true;
        }
      } else {
        SINKD_RETURN_IF_ERROR(in.Skip(schema_, f.node));
      }
    }
    if (!status) return Bad("no status");
    if (*status < 0 || *status > 2) return Bad("status " + std::to_string(*status));
    e.status = static_cast<EntryStatus>(*status);
    if (!data_file) return Bad("no data_file");
    return Status::OK();
  }

 private:
  static constexpr size_t kAbsent = SIZE_MAX;

  // The node a value of `node` is read as: a union's branch (kAbsent for its null branch).
  Result<size_t> Present(avro::DatumReader& in, size_t node) {
    const avro::Node& n = schema_.nodes()[node];
    if (n.type != avro::Type::kUnion) return n.type == avro::Type::kNull ? kAbsent : node;
    SINKD_ASSIGN_OR_RETURN(const size_t branch, in.ReadBranch(n));
    const size_t chosen = n.branches[branch];
    return schema_.nodes()[chosen].type == avro::Type::kNull ? kAbsent : chosen;
  }

  // An int or long, or nothing for null. Any other type: Reject naming `name` (nullptr: the value
  // is skipped and reads as nothing, as for an optional field of an unexpected type).
  Result<std::optional<int64_t>> OptionalLong(avro::DatumReader& in, size_t node,
                                              const char* name) {
    SINKD_ASSIGN_OR_RETURN(const size_t present, Present(in, node));
    if (present == kAbsent) return std::optional<int64_t>();
    const avro::Type type = schema_.nodes()[present].type;
    if (type == avro::Type::kInt || type == avro::Type::kLong) {
      SINKD_ASSIGN_OR_RETURN(const int64_t v, in.ReadLong());
      if (type == avro::Type::kInt && (v < INT32_MIN || v > INT32_MAX)) {
        return Status::Reject("avro: corrupt data: an int out of range");
      }
      return std::optional<int64_t>(v);
    }
    SINKD_RETURN_IF_ERROR(in.Skip(schema_, present));
    if (name != nullptr) return Bad(std::string(name) + " is not a number");
    return std::optional<int64_t>();
  }

  Result<int64_t> Long(avro::DatumReader& in, size_t node, const char* name) {
    SINKD_ASSIGN_OR_RETURN(const std::optional<int64_t> v, OptionalLong(in, node, name));
    if (!v) return Bad(std::string("no ") + name);
    return *v;
  }

  // A string or bytes value, or nothing for null; another type is Reject naming `name`.
  Result<std::optional<std::string_view>> OptionalBytes(avro::DatumReader& in, size_t node,
                                                        const char* name) {
    SINKD_ASSIGN_OR_RETURN(const size_t present, Present(in, node));
    if (present == kAbsent) return std::optional<std::string_view>();
    const avro::Type type = schema_.nodes()[present].type;
    if (type == avro::Type::kString || type == avro::Type::kBytes) {
      SINKD_ASSIGN_OR_RETURN(const std::string_view v, in.ReadBytes(type == avro::Type::kString));
      return std::optional<std::string_view>(v);
    }
    SINKD_RETURN_IF_ERROR(in.Skip(schema_, present));
    return Bad(std::string(name) + " is not a string");
  }

  // An int-keyed map (an array of key/value records) of `name`, each pair handed to `apply` as
  // (key, value) with a long value, or bytes when `bytes_values`. Null: no pairs.
  template <typename Apply>
  Status Pairs(avro::DatumReader& in, size_t node, const char* name, bool bytes_values,
               Apply apply) {
    SINKD_ASSIGN_OR_RETURN(const size_t present, Present(in, node));
    if (present == kAbsent) return Status::OK();
    const avro::Node& array = schema_.nodes()[present];
    const auto not_pairs = [&] {
      return Bad(std::string(name) + " holds a pair other than an int key and its value");
    };
    if (array.type != avro::Type::kArray) {
      SINKD_RETURN_IF_ERROR(in.Skip(schema_, present));
      return Bad(std::string(name) + " is not a map");
    }
    const avro::Node& pair = schema_.nodes()[array.items];
    if (pair.type != avro::Type::kRecord) return not_pairs();
    for (;;) {
      SINKD_ASSIGN_OR_RETURN(const int64_t count, in.ReadBlockCount(pair));
      if (count == 0) return Status::OK();
      for (int64_t i = 0; i < count; ++i) {
        std::optional<int64_t> key;
        std::optional<int64_t> number;
        std::optional<std::string_view> text;
        for (const avro::Node::Field& f : pair.fields) {
          const avro::Type type = schema_.nodes()[f.node].type;
          if (f.name == "key" && (type == avro::Type::kInt || type == avro::Type::kLong)) {
            SINKD_ASSIGN_OR_RETURN(key, in.ReadLong());
          } else if (f.name == "value" && !bytes_values &&
                     (type == avro::Type::kInt || type == avro::Type::kLong)) {
            SINKD_ASSIGN_OR_RETURN(number, in.ReadLong());
          } else if (f.name == "value" && bytes_values &&
                     (type == avro::Type::kBytes || type == avro::Type::kString)) {
            SINKD_ASSIGN_OR_RETURN(text, in.ReadBytes(type == avro::Type::kString));
          } else if (f.name == "key" || f.name == "value") {
            return not_pairs();
          } else {
            SINKD_RETURN_IF_ERROR(in.Skip(schema_, f.node));
          }
        }
        if (!key || (bytes_values ? !text : !number)) return not_pairs();
        apply(static_cast<int32_t>(*key), number.value_or(0), text.value_or(std::string_view()));
      }
    }
  }

  // The partition struct, its fields matched to the spec's by field id (`ids_`: the writer's
  // field ids by name).
  Status ReadPartition(avro::DatumReader& in, size_t node, DataFile& file) {
    const avro::Node& n = schema_.nodes()[node];
    if (n.type != avro::Type::kRecord) {
      SINKD_RETURN_IF_ERROR(in.Skip(schema_, node));
      return Bad("a partition that is not a struct");
    }
    std::optional<int64_t> day;
    bool day_not_number = false;
    std::vector<std::optional<std::string>> values(spec_.partition.size());
    std::vector<bool> not_string(spec_.partition.size(), false);
    for (const avro::Node::Field& f : n.fields) {
      size_t slot = kAbsent;
      for (size_t i = 0; i < spec_.partition.size() && slot == kAbsent; ++i) {
        for (const auto& [id, name] : ids_) {
          if (id == spec_.partition[i].field_id && name == f.name) slot = i;
        }
      }
      if (slot == kAbsent) {
        SINKD_RETURN_IF_ERROR(in.Skip(schema_, f.node));
        continue;
      }
      SINKD_ASSIGN_OR_RETURN(const size_t present, Present(in, f.node));
      if (present == kAbsent) continue;
      const avro::Type type = schema_.nodes()[present].type;
      if (slot == 0) {
        if (type == avro::Type::kInt || type == avro::Type::kLong) {
          SINKD_ASSIGN_OR_RETURN(day, in.ReadLong());
        } else {
          SINKD_RETURN_IF_ERROR(in.Skip(schema_, present));
          day_not_number = true;
          day = 0;
        }
      } else if (type == avro::Type::kString || type == avro::Type::kBytes) {
        SINKD_ASSIGN_OR_RETURN(const std::string_view v, in.ReadBytes(type == avro::Type::kString));
        values[slot] = std::string(v);
      } else {
        SINKD_RETURN_IF_ERROR(in.Skip(schema_, present));
        not_string[slot] = true;
        values[slot] = std::string();
      }
    }
    for (size_t i = 0; i < spec_.partition.size(); ++i) {
      const bool there = i == 0 ? day.has_value() : values[i].has_value();
      if (!there) {
        return Bad("no value for partition field " + std::to_string(spec_.partition[i].field_id));
      }
      if (i == 0) {
        if (day_not_number) return Bad("a day that is not a number");
        file.day = static_cast<int32_t>(*day);
      } else {
        if (not_string[i]) return Bad("an identity value not a string");
        file.values.push_back(std::move(*values[i]));
      }
    }
    return Status::OK();
  }

  Status ReadDataFile(avro::DatumReader& in, size_t node, DataFile& file) {
    const avro::Node& n = schema_.nodes()[node];
    if (n.type != avro::Type::kRecord) return Bad("a data_file that is not a record");
    std::optional<int64_t> content, records, size;
    std::optional<std::string_view> path;
    bool partition = false;
    size_t cursor = 0;  // Column's: where the previous pair's column was
    const auto metric = [&](auto set) {
      return [&, set](int32_t id, int64_t number, std::string_view text) {
        set(Column(file, id, cursor), number, text);
      };
    };
    for (const avro::Node::Field& f : n.fields) {
      const std::string& name = f.name;
      if (name == "content") {
        SINKD_ASSIGN_OR_RETURN(content, OptionalLong(in, f.node, "content"));
      } else if (name == "file_path") {
        SINKD_ASSIGN_OR_RETURN(path, OptionalBytes(in, f.node, "file_path"));
      } else if (name == "record_count") {
        SINKD_ASSIGN_OR_RETURN(records, OptionalLong(in, f.node, "record_count"));
      } else if (name == "file_size_in_bytes") {
        SINKD_ASSIGN_OR_RETURN(size, OptionalLong(in, f.node, "file_size_in_bytes"));
      } else if (name == "partition") {
        SINKD_ASSIGN_OR_RETURN(const size_t present, Present(in, f.node));
        if (present != kAbsent) {
          SINKD_RETURN_IF_ERROR(ReadPartition(in, present, file));
          partition = true;
        }
      } else if (name == "column_sizes") {
        SINKD_RETURN_IF_ERROR(Pairs(in, f.node, "column_sizes", false,
                                    metric([](ColumnMetrics& c, int64_t v, std::string_view) {
                                      c.bytes = static_cast<uint64_t>(v);
                                    })));
      } else if (name == "value_counts") {
        SINKD_RETURN_IF_ERROR(Pairs(in, f.node, "value_counts", false,
                                    metric([](ColumnMetrics& c, int64_t v, std::string_view) {
                                      c.values = static_cast<uint64_t>(v);
                                    })));
      } else if (name == "null_value_counts") {
        SINKD_RETURN_IF_ERROR(Pairs(in, f.node, "null_value_counts", false,
                                    metric([](ColumnMetrics& c, int64_t v, std::string_view) {
                                      c.nulls = static_cast<uint64_t>(v);
                                    })));
      } else if (name == "lower_bounds") {
        SINKD_RETURN_IF_ERROR(Pairs(in, f.node, "lower_bounds", true,
                                    metric([](ColumnMetrics& c, int64_t, std::string_view v) {
                                      c.lower = std::string(v);
                                    })));
      } else if (name == "upper_bounds") {
        SINKD_RETURN_IF_ERROR(Pairs(in, f.node, "upper_bounds", true,
                                    metric([](ColumnMetrics& c, int64_t, std::string_view v) {
                                      c.upper = std::string(v);
                                    })));
      } else if (name == "split_offsets") {
        SINKD_RETURN_IF_ERROR(SplitOffsets(in, f.node, file));
      } else {
        SINKD_RETURN_IF_ERROR(in.Skip(schema_, f.node));
      }
    }
    if (!content) return Bad("no content");
    if (*content != 0) return Bad("a delete file (content " + std::to_string(*content) + ")");
    if (!path) return Bad("no file_path");
    if (!records) return Bad("no record_count");
    if (!size) return Bad("no file_size_in_bytes");
    if (!partition) return Bad("no partition");
    file.path = std::string(*path);
    file.records = static_cast<uint64_t>(*records);
    file.file_size = static_cast<uint64_t>(*size);
    return Status::OK();
  }

  Status SplitOffsets(avro::DatumReader& in, size_t node, DataFile& file) {
    SINKD_ASSIGN_OR_RETURN(const size_t present, Present(in, node));
    if (present == kAbsent) return Status::OK();
    const avro::Node& array = schema_.nodes()[present];
    if (array.type != avro::Type::kArray) {
      SINKD_RETURN_IF_ERROR(in.Skip(schema_, present));
      return Bad("split_offsets is not a list");
    }
    const avro::Node& item = schema_.nodes()[array.items];
    if (item.type != avro::Type::kLong && item.type != avro::Type::kInt) {
      return Bad("a split offset is not a number");
    }
    for (;;) {
      SINKD_ASSIGN_OR_RETURN(const int64_t count, in.ReadBlockCount(item));
      if (count == 0) return Status::OK();
      for (int64_t i = 0; i < count; ++i) {
        SINKD_ASSIGN_OR_RETURN(const int64_t offset, in.ReadLong());
        file.split_offsets.push_back(static_cast<uint64_t>(offset));
      }
    }
  }

  const avro::Schema& schema_;
  const TableSpec& spec_;
  const std::vector<std::pair<int32_t, std::string>>& ids_;
};

}  // namespace

Result<std::vector<ManifestEntry>> ReadManifest(std::string_view bytes, const TableSpec& spec) {
  std::vector<ManifestEntry> out;
  std::optional<EntryReader> reader;
  std::vector<std::pair<int32_t, std::string>> ids;
  const auto content_of = [](const avro::ContainerFile& header) {
    const std::string* content = header.Find("content");
    return content != nullptr && *content != "data" ? Bad("content \"" + *content + "\"")
                                                    : Status::OK();
  };
  SINKD_ASSIGN_OR_RETURN(
      const avro::ContainerFile file,
      avro::ReadContainerEach(bytes, [&](avro::DatumReader& in, const avro::ContainerFile& header) {
        if (!reader) {
          SINKD_RETURN_IF_ERROR(content_of(header));
          ids = PartitionIds(header.schema.json());
          reader.emplace(header.schema, spec, ids);
        }
        ManifestEntry e;
        SINKD_RETURN_IF_ERROR(reader->Read(in, e));
        out.push_back(std::move(e));
        return Status::OK();
      }));
  SINKD_RETURN_IF_ERROR(content_of(file));
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
