// Reading manifests and manifest lists back (manifest.h): by field-id where the spec gives one
// (so a writer's own field names do not matter), by name for the record fields Iceberg names.
#include <cstring>
#include <iterator>
#include <optional>
#include <nlohmann/json.hpp>
#include <type_traits>

#include "iceberg/manifest.h"

namespace sinkd::iceberg {

namespace {

Status Bad(std::string_view what) {
  return Status::Reject("iceberg: manifest: " + std::string(what));
}
Status BadList(std::string_view what) {
  return Status::Reject("iceberg: manifest list: " + std::string(what));
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

// Reading a record straight from its bytes, walking the file's own schema (the fields of a
// record in the writer's order, unions, int or long): the pieces both readers below share.
// `bad` makes the Reject of the file kind being read.
class SchemaWalker {
 protected:
  SchemaWalker(const avro::Schema& schema, Status (*bad)(std::string_view))
      : schema_(schema), bad_(bad) {}

  Status Bad(std::string_view what) const { return bad_(what); }

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

  const avro::Schema& schema_;
  Status (*bad_)(std::string_view);
};

// A manifest entry is read straight from its bytes, walking the file's own schema: a generic
// Value of every statistic of every column (about 600 values an entry of 40 columns) was most of
// what reading a manifest cost, and a merged manifest holds up to 4,096 entries. Fields are
// matched by name as Iceberg names them; fields sinkd does not keep are skipped.
class EntryReader : SchemaWalker {
 public:
  EntryReader(const avro::Schema& schema, const TableSpec& spec)
      : SchemaWalker(schema, iceberg::Bad), spec_(spec), ids_(PartitionIds(schema.json())) {}

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
    if (slots_node_ != node) {
      slots_.assign(n.fields.size(), kAbsent);
      for (size_t k = 0; k < n.fields.size(); ++k) {
        for (size_t i = 0; i < spec_.partition.size() && slots_[k] == kAbsent; ++i) {
          for (const auto& [id, name] : ids_) {
            if (id == spec_.partition[i].field_id && name == n.fields[k].name) slots_[k] = i;
          }
        }
      }
      slots_node_ = node;
    }
    for (size_t k = 0; k < n.fields.size(); ++k) {
      const avro::Node::Field& f = n.fields[k];
      const size_t slot = slots_[k];
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

  const TableSpec& spec_;
  const std::vector<std::pair<int32_t, std::string>> ids_;  // the partition struct's, by name
  // The spec's partition field (its index) each field of the partition struct `slots_node_` is,
  // kAbsent for one not in the spec: derived once per file, on its first entry.
  size_t slots_node_ = kAbsent;
  std::vector<size_t> slots_;
};

// A manifest list's entry, read as EntryReader reads a manifest's: the manifest_file fields by
// name in the writer's order, those sinkd does not keep (content, key_metadata, another writer's
// own) skipped. The file counts may be absent (0); the rest is required.
class ListEntryReader : SchemaWalker {
 public:
  explicit ListEntryReader(const avro::Schema& schema) : SchemaWalker(schema, BadList) {}

  Status Read(avro::DatumReader& in, ManifestFile& m) {
    const avro::Node& root = schema_.root();
    if (root.type != avro::Type::kRecord) return Bad("an entry that is not a record");
    std::optional<std::string_view> path;
    std::optional<int64_t> length, spec_id, sequence, min_sequence, snapshot;
    // The counts sinkd keeps; another type than int or long reads as 0.
    const auto count = [&](size_t node, auto& to) -> Status {
      SINKD_ASSIGN_OR_RETURN(const std::optional<int64_t> v, OptionalLong(in, node, nullptr));
      to = static_cast<std::remove_reference_t<decltype(to)>>(v.value_or(0));
      return Status::OK();
    };
    for (const avro::Node::Field& f : root.fields) {
      const std::string& name = f.name;
      if (name == "manifest_path") {
        SINKD_ASSIGN_OR_RETURN(path, OptionalBytes(in, f.node, "manifest_path"));
      } else if (name == "manifest_length") {
        SINKD_ASSIGN_OR_RETURN(length, OptionalLong(in, f.node, "manifest_length"));
      } else if (name == "partition_spec_id") {
        SINKD_ASSIGN_OR_RETURN(spec_id, OptionalLong(in, f.node, "partition_spec_id"));
      } else if (name == "sequence_number") {
        SINKD_ASSIGN_OR_RETURN(sequence, OptionalLong(in, f.node, "sequence_number"));
      } else if (name == "min_sequence_number") {
        SINKD_ASSIGN_OR_RETURN(min_sequence, OptionalLong(in, f.node, "min_sequence_number"));
      } else if (name == "added_snapshot_id") {
        SINKD_ASSIGN_OR_RETURN(snapshot, OptionalLong(in, f.node, "added_snapshot_id"));
      } else if (name == "added_files_count") {
        SINKD_RETURN_IF_ERROR(count(f.node, m.added_files));
      } else if (name == "existing_files_count") {
        SINKD_RETURN_IF_ERROR(count(f.node, m.existing_files));
      } else if (name == "deleted_files_count") {
        SINKD_RETURN_IF_ERROR(count(f.node, m.deleted_files));
      } else if (name == "added_rows_count") {
        SINKD_RETURN_IF_ERROR(count(f.node, m.added_rows));
      } else if (name == "existing_rows_count") {
        SINKD_RETURN_IF_ERROR(count(f.node, m.existing_rows));
      } else if (name == "deleted_rows_count") {
        SINKD_RETURN_IF_ERROR(count(f.node, m.deleted_rows));
      } else if (name == "partitions") {
        SINKD_RETURN_IF_ERROR(Summaries(in, f.node, m.partitions));
      } else {
        SINKD_RETURN_IF_ERROR(in.Skip(schema_, f.node));
      }
    }
    if (!path) return Bad("no manifest_path");
    if (!length) return Bad("no manifest_length");
    if (!spec_id) return Bad("no partition_spec_id");
    if (!sequence) return Bad("no sequence_number");
    if (!min_sequence) return Bad("no min_sequence_number");
    if (!snapshot) return Bad("no added_snapshot_id");
    m.path = std::string(*path);
    m.length = static_cast<uint64_t>(*length);
    m.spec_id = static_cast<int32_t>(*spec_id);
    m.sequence_number = *sequence;
    m.min_sequence_number = *min_sequence;
    m.added_snapshot_id = *snapshot;
    return Status::OK();
  }

 private:
  // The partition summaries: a field of another type than sinkd writes reads as absent (false, no
  // bound), as Iceberg's own readers take a summary only as a hint for pruning.
  Status Summaries(avro::DatumReader& in, size_t node, std::vector<FieldSummary>& out) {
    SINKD_ASSIGN_OR_RETURN(const size_t present, Present(in, node));
    if (present == kAbsent) return Status::OK();
    const avro::Node& array = schema_.nodes()[present];
    if (array.type != avro::Type::kArray) {
      SINKD_RETURN_IF_ERROR(in.Skip(schema_, present));
      return Bad("partitions is not a list");
    }
    const avro::Node& summary = schema_.nodes()[array.items];
    if (summary.type != avro::Type::kRecord) return Bad("a partition summary that is not a struct");
    for (;;) {
      SINKD_ASSIGN_OR_RETURN(const int64_t count, in.ReadBlockCount(summary));
      if (count == 0) return Status::OK();
      for (int64_t i = 0; i < count; ++i) {
        FieldSummary s;
        for (const avro::Node::Field& f : summary.fields) {
          if (f.name == "contains_null") {
            SINKD_ASSIGN_OR_RETURN(const size_t b, Present(in, f.node));
            if (b == kAbsent) continue;
            // One boolean: the generic read builds no more than that value.
            SINKD_ASSIGN_OR_RETURN(const avro::Value v, in.Read(schema_, b));
            s.contains_null = v.kind() == avro::Value::Kind::kBoolean && v.boolean();
          } else if (f.name == "lower_bound" || f.name == "upper_bound") {
            SINKD_ASSIGN_OR_RETURN(const size_t b, Present(in, f.node));
            if (b == kAbsent) continue;
            const avro::Type type = schema_.nodes()[b].type;
            if (type != avro::Type::kBytes && type != avro::Type::kString) {
              SINKD_RETURN_IF_ERROR(in.Skip(schema_, b));
              continue;
            }
            SINKD_ASSIGN_OR_RETURN(const std::string_view v,
                                   in.ReadBytes(type == avro::Type::kString));
            (f.name == "lower_bound" ? s.lower : s.upper) = std::string(v);
          } else {
            SINKD_RETURN_IF_ERROR(in.Skip(schema_, f.node));
          }
        }
        out.push_back(std::move(s));
      }
    }
  }
};

}  // namespace

Result<std::vector<ManifestEntry>> ReadManifest(std::string_view bytes, const TableSpec& spec,
                                                WorkPool* pool) {
  const avro::ReadLimits limits;
  SINKD_ASSIGN_OR_RETURN(const avro::ContainerBlocks read,
                         avro::ReadContainerBlocks(bytes, limits, pool));
  const std::string* content = read.header.Find("content");
  if (content != nullptr && *content != "data") return Bad("content \"" + *content + "\"");
  // One reader per thread of the loop (a reader is one thread's); each block's entries and
  // values apart, joined in file order. Every block may build up to the file's limit of values;
  // their sum is held to it once all are read.
  const size_t slots = pool != nullptr ? pool->threads() : 1;
  std::vector<std::optional<EntryReader>> readers(slots);
  std::vector<std::vector<ManifestEntry>> entries(read.blocks.size());
  std::vector<Status> statuses(read.blocks.size());
  std::vector<uint64_t> values(read.blocks.size(), 0);
  const auto decode = [&](size_t b, size_t slot) {
    if (!readers[slot]) readers[slot].emplace(read.header.schema, spec);
    entries[b].reserve(static_cast<size_t>(read.blocks[b].count));
    statuses[b] = avro::ReadBlockRecords(
        read.blocks[b], read.header, limits.max_values,
        [&](avro::DatumReader& in, const avro::ContainerFile&) {
          ManifestEntry e;
          SINKD_RETURN_IF_ERROR(readers[slot]->Read(in, e));
          entries[b].push_back(std::move(e));
          return Status::OK();
        },
        &values[b]);
  };
  WorkPool::ParallelFor(pool, read.blocks.size(), decode);
  uint64_t all_values = 0;
  size_t count = 0;
  for (size_t b = 0; b < read.blocks.size(); ++b) {
    SINKD_RETURN_IF_ERROR(statuses[b]);
    all_values += values[b];
    count += entries[b].size();
  }
  if (all_values > limits.max_values) return Bad("more values than a manifest may build");
  std::vector<ManifestEntry> out;
  out.reserve(count);
  for (std::vector<ManifestEntry>& block : entries) {
    std::move(block.begin(), block.end(), std::back_inserter(out));
  }
  return out;
}

Result<std::vector<ManifestFile>> ReadManifestList(std::string_view bytes) {
  std::vector<ManifestFile> out;
  std::optional<ListEntryReader> reader;
  SINKD_RETURN_IF_ERROR(
      avro::ReadContainerEach(bytes, [&](avro::DatumReader& in, const avro::ContainerFile& header) {
        if (!reader) reader.emplace(header.schema);
        ManifestFile m;
        SINKD_RETURN_IF_ERROR(reader->Read(in, m));
        out.push_back(std::move(m));
        return Status::OK();
      }).status());
  return out;
}

}  // namespace sinkd::iceberg
