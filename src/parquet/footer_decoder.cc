#include "parquet/footer_decoder.h"

#include <fmt/format.h>

#include <cstring>
#include <unordered_set>

#include "parquet/thrift_compact_reader.h"

namespace sinkd::parquet {
namespace {

// One read covers the footer of every Part sinkd or DuckDB writes (a few KiB) and still costs one
// round trip on S3.
constexpr uint64_t kTailBytes = 64 * 1024;
// sinkd's and DuckDB's footers are a few KiB per row group; a larger one is refused before it is
// read.
constexpr uint32_t kMaxFooterBytes = 64u << 20;

using Kind = ThriftValue::Kind;

// parquet.thrift field ids.
namespace fmd { constexpr int16_t kSchema = 2, kNumRows = 3, kRowGroups = 4, kKeyValue = 5,
                                  kCreatedBy = 6, kEncryption = 8; }
namespace se { constexpr int16_t kType = 1, kRepetition = 3, kName = 4, kNumChildren = 5,
                                 kConverted = 6, kFieldId = 9, kLogical = 10; }
namespace rg { constexpr int16_t kColumns = 1, kNumRows = 3, kCompressed = 6; }
namespace cc { constexpr int16_t kFilePath = 1, kMeta = 3, kCryptoMeta = 8, kEncryptedMeta = 9; }
namespace cm { constexpr int16_t kType = 1, kPath = 3, kCodec = 4, kNumValues = 5,
                                 kCompressed = 7, kDataPage = 9, kDictionaryPage = 11,
                                 kStatistics = 12; }
namespace st { constexpr int16_t kMax = 1, kMin = 2, kNullCount = 3, kMaxValue = 5,
                                 kMinValue = 6; }

const char* TypeName(int64_t t) {
  static const char* const kNames[] = {"BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE",
                                       "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};
  return t >= 0 && t < 8 ? kNames[t] : "an unknown type";
}

const char* ConvertedName(int64_t c) {
  static const char* const kNames[] = {
      "UTF8", "MAP", "MAP_KEY_VALUE", "LIST", "ENUM", "DECIMAL", "DATE", "TIME_MILLIS",
      "TIME_MICROS", "TIMESTAMP_MILLIS", "TIMESTAMP_MICROS", "UINT_8", "UINT_16", "UINT_32",
      "UINT_64", "INT_8", "INT_16", "INT_32", "INT_64", "JSON", "BSON", "INTERVAL"};
  return c >= 0 && c < 22 ? kNames[c] : "an unknown converted type";
}

const char* LogicalName(int16_t member) {
  static const char* const kNames[] = {"?", "STRING", "MAP", "LIST", "ENUM", "DECIMAL", "DATE",
                                       "TIME", "TIMESTAMP", "?", "INTEGER", "UNKNOWN", "JSON",
                                       "BSON", "UUID", "FLOAT16", "VARIANT", "GEOMETRY",
                                       "GEOGRAPHY"};
  return member > 0 && member < 19 ? kNames[member] : "an unknown logical type";
}

class FooterParser {
 public:
  FooterParser(std::string_view name, uint64_t file_size, uint64_t footer_start)
      : name_(name), file_size_(file_size), footer_start_(footer_start) {}

  Status Bad(std::string_view what) const { return Status::Refuse(fmt::format("{}: {}", name_, what)); }

  Result<DecodedFooter> Parse(const ThriftValue& meta) {
    if (meta.Has(fmd::kEncryption)) return Bad("encrypted files are not supported");
    DecodedFooter out;
    Status s = Schema(meta, out.footer.columns);
    if (!s.ok()) return s;
    SINKD_ASSIGN_OR_RETURN(const int64_t rows, Int(meta, fmd::kNumRows, "the file's num_rows"));
    if (rows < 0) return Bad(fmt::format("negative num_rows {}", rows));
    out.footer.rows = static_cast<uint64_t>(rows);
    if (const ThriftValue* groups = meta.Find(fmd::kRowGroups)) {
      if (groups->kind != Kind::kList) return Bad("row_groups is not a list");
      uint64_t sum = 0;
      for (size_t g = 0; g < groups->list.size(); ++g) {
        s = RowGroup(groups->list[g], g, out);
        if (!s.ok()) return s;
        sum += out.footer.row_groups.back().rows;
      }
      if (sum != out.footer.rows) {
        return Bad(fmt::format("the row groups hold {} rows, the footer says {}", sum, rows));
      }
    } else if (rows != 0) {
      return Bad(fmt::format("no row groups for {} rows", rows));
    }
    if (const ThriftValue* kvs = meta.Find(fmd::kKeyValue)) {
      if (kvs->kind != Kind::kList) return Bad("key_value_metadata is not a list");
      for (const ThriftValue& kv : kvs->list) {
        SINKD_ASSIGN_OR_RETURN(std::string key, Bin(kv, 1, "a metadata key"));
        std::string value;
        if (kv.Has(2)) {
          SINKD_ASSIGN_OR_RETURN(value, Bin(kv, 2, "a metadata value"));
        }
        out.footer.metadata.emplace_back(std::move(key), std::move(value));
      }
    }
    if (meta.Has(fmd::kCreatedBy)) {
      SINKD_ASSIGN_OR_RETURN(out.footer.created_by, Bin(meta, fmd::kCreatedBy, "created_by"));
    }
    return out;
  }

 private:
  Result<int64_t> Int(const ThriftValue& s, int16_t id, std::string_view what) const {
    const ThriftValue* v = s.kind == Kind::kStruct ? s.Find(id) : nullptr;
    if (!v) return Bad(fmt::format("{} is missing", what));
    if (v->kind != Kind::kInt) return Bad(fmt::format("{} is not an integer", what));
    return v->i;
  }
  Result<std::string> Bin(const ThriftValue& s, int16_t id, std::string_view what) const {
    const ThriftValue* v = s.kind == Kind::kStruct ? s.Find(id) : nullptr;
    if (!v) return Bad(fmt::format("{} is missing", what));
    if (v->kind != Kind::kBinary) return Bad(fmt::format("{} is not a string", what));
    return v->bin;
  }

  Status Schema(const ThriftValue& meta, std::vector<ColumnInfo>& columns) {
    const ThriftValue* schema = meta.Find(fmd::kSchema);
    if (!schema || schema->kind != Kind::kList || schema->list.empty()) {
      return Bad("the footer has no schema");
    }
    const ThriftValue& root = schema->list[0];
    if (root.kind != Kind::kStruct) return Bad("the schema root is not a struct");
    for (size_t i = 1; i < schema->list.size(); ++i) {
      const ThriftValue& e = schema->list[i];
      if (e.kind == Kind::kStruct && e.Has(se::kNumChildren)) {
        return Bad(fmt::format("column {}: nested columns are not supported", e.Bin(se::kName)));
      }
    }
    SINKD_ASSIGN_OR_RETURN(const int64_t children, Int(root, se::kNumChildren, "the schema root's num_children"));
    if (children < 0 || static_cast<uint64_t>(children) != schema->list.size() - 1) {
      return Bad(fmt::format("the schema root has {} children, the schema {} leaves", children,
                             schema->list.size() - 1));
    }
    std::unordered_set<std::string> names;
    for (size_t i = 1; i < schema->list.size(); ++i) {
      ColumnInfo column;
      Status s = Leaf(schema->list[i], column);
      if (!s.ok()) return s;
      if (!names.insert(column.name).second) {
        return Bad(fmt::format("column {} appears twice", column.name));
      }
      columns.push_back(std::move(column));
    }
    return Status::OK();
  }

  Status Leaf(const ThriftValue& e, ColumnInfo& column) {
    if (e.kind != Kind::kStruct) return Bad("a schema element is not a struct");
    SINKD_ASSIGN_OR_RETURN(column.name, Bin(e, se::kName, "a schema element's name"));
    const std::string& n = column.name;
    if (e.Has(se::kNumChildren)) {
      return Bad(fmt::format("column {}: nested columns are not supported", n));
    }
    SINKD_ASSIGN_OR_RETURN(const int64_t type, Int(e, se::kType, fmt::format("column {}: the type", n)));
    switch (type) {
      case 0: column.physical = PhysicalType::kBoolean; break;
      case 1: column.physical = PhysicalType::kInt32; break;
      case 2: column.physical = PhysicalType::kInt64; break;
      case 5: column.physical = PhysicalType::kDouble; break;
      case 6: column.physical = PhysicalType::kByteArray; break;
      default:
        return Bad(fmt::format("column {}: physical type {} is not supported", n, TypeName(type)));
    }
    SINKD_ASSIGN_OR_RETURN(const int64_t repetition,
                           Int(e, se::kRepetition, fmt::format("column {}: the repetition", n)));
    if (repetition == 2) return Bad(fmt::format("column {}: REPEATED columns are not supported", n));
    if (repetition != 0 && repetition != 1) {
      return Bad(fmt::format("column {}: unknown repetition {}", n, repetition));
    }
    column.optional = repetition == 1;
    if (e.Has(se::kFieldId)) {
      SINKD_ASSIGN_OR_RETURN(const int64_t id, Int(e, se::kFieldId, fmt::format("column {}: the field id", n)));
      if (id < INT32_MIN || id > INT32_MAX) return Bad(fmt::format("column {}: field id out of range", n));
      column.field_id = static_cast<int32_t>(id);
    }
    // The converted type alone, then the logical type (which wins when both are present: it is the
    // only one that says whether a timestamp is UTC).
    std::optional<Annotation> converted;
    if (e.Has(se::kConverted)) {
      SINKD_ASSIGN_OR_RETURN(const int64_t c, Int(e, se::kConverted, fmt::format("column {}: the converted type", n)));
      if (c == 0 && type == 6) converted = Annotation::kString;
      else if (c == 10 && type == 2) converted = Annotation::kTimestampMicrosUtc;
      else if ((c == 17 && type == 1) || (c == 18 && type == 2)) converted = Annotation::kNone;
      else return Bad(fmt::format("column {}: {} on {} is not supported", n, ConvertedName(c), TypeName(type)));
    }
    column.annotation = converted.value_or(Annotation::kNone);
    if (const ThriftValue* logical = e.Find(se::kLogical)) {
      if (logical->kind != Kind::kStruct || logical->fields->size() != 1) {
        return Bad(fmt::format("column {}: malformed logical type", n));
      }
      const auto& [member, value] = *logical->fields->begin();
      Annotation a;
      if (member == 1 && type == 6) {
        a = Annotation::kString;
      } else if (member == 8 && type == 2) {
        const ThriftValue* utc = value.Find(1);
        const ThriftValue* unit = value.Find(2);
        if (!utc || utc->kind != Kind::kBool || !unit || unit->kind != Kind::kStruct ||
            unit->fields->size() != 1) {
          return Bad(fmt::format("column {}: malformed TIMESTAMP logical type", n));
        }
        if (unit->fields->begin()->first != 2) {
          return Bad(fmt::format("column {}: TIMESTAMP in {} is not supported (MICROS only)", n,
                                 unit->fields->begin()->first == 1 ? "MILLIS" : "NANOS"));
        }
        a = utc->b ? Annotation::kTimestampMicrosUtc : Annotation::kTimestampMicrosNaive;
      } else if (member == 10 && (type == 1 || type == 2)) {
        const ThriftValue* width = value.Find(1);
        const ThriftValue* is_signed = value.Find(2);
        if (!width || width->kind != Kind::kInt || !is_signed || is_signed->kind != Kind::kBool) {
          return Bad(fmt::format("column {}: malformed INTEGER logical type", n));
        }
        if (width->i != (type == 1 ? 32 : 64) || !is_signed->b) {
          return Bad(fmt::format("column {}: INTEGER({}, {}) on {} is not supported", n, width->i,
                                 is_signed->b ? "signed" : "unsigned", TypeName(type)));
        }
        a = Annotation::kNone;
      } else {
        return Bad(fmt::format("column {}: logical type {} on {} is not supported", n,
                               LogicalName(member), TypeName(type)));
      }
      // A converted type that contradicts the logical one is corruption (only the UTC flag may
      // differ: TIMESTAMP_MICROS says nothing about it).
      const bool timestamps = converted == Annotation::kTimestampMicrosUtc &&
                              a == Annotation::kTimestampMicrosNaive;
      if (converted && *converted != a && !timestamps) {
        return Bad(fmt::format("column {}: the converted and logical types disagree", n));
      }
      column.annotation = a;
    }
    return Status::OK();
  }

  Status RowGroup(const ThriftValue& g, size_t index, DecodedFooter& out) {
    if (g.kind != Kind::kStruct) return Bad("a row group is not a struct");
    const std::string where = fmt::format("row group {}", index);
    RowGroupInfo info;
    SINKD_ASSIGN_OR_RETURN(const int64_t rows, Int(g, rg::kNumRows, where + ": num_rows"));
    if (rows < 0) return Bad(fmt::format("{}: negative num_rows {}", where, rows));
    info.rows = static_cast<uint64_t>(rows);
    const ThriftValue* chunks = g.Find(rg::kColumns);
    const size_t width = out.footer.columns.size();
    if (!chunks || chunks->kind != Kind::kList || chunks->list.size() != width) {
      return Bad(fmt::format("{}: {} column chunks for {} columns", where,
                             chunks ? chunks->list.size() : 0, width));
    }
    std::vector<ChunkLocation> locations(width);
    uint64_t compressed = 0;
    for (size_t c = 0; c < width; ++c) {
      Status s = Chunk(chunks->list[c], out.footer.columns[c], where, info.rows,
                       info.columns.emplace_back(), locations[c]);
      if (!s.ok()) return s;
      compressed += info.columns[c].compressed_bytes;
    }
    info.compressed_bytes = compressed;
    if (width > 0) info.offset = locations[0].offset;
    if (g.Has(rg::kCompressed)) {
      SINKD_ASSIGN_OR_RETURN(const int64_t total, Int(g, rg::kCompressed, where + ": total_compressed_size"));
      if (total >= 0) info.compressed_bytes = static_cast<uint64_t>(total);
    }
    out.footer.row_groups.push_back(std::move(info));
    out.chunks.push_back(std::move(locations));
    return Status::OK();
  }

  Status Chunk(const ThriftValue& chunk, const ColumnInfo& column, const std::string& group,
               uint64_t rows, ColumnChunkInfo& info, ChunkLocation& location) {
    const std::string where = fmt::format("{}: column {}", group, column.name);
    if (chunk.kind != Kind::kStruct) return Bad(where + ": the chunk is not a struct");
    if (chunk.Has(cc::kFilePath)) return Bad(where + ": chunks in another file are not supported");
    if (chunk.Has(cc::kCryptoMeta) || chunk.Has(cc::kEncryptedMeta)) {
      return Bad(where + ": encrypted columns are not supported");
    }
    const ThriftValue* meta = chunk.Find(cc::kMeta);
    if (!meta || meta->kind != Kind::kStruct) return Bad(where + ": no column metadata");
    SINKD_ASSIGN_OR_RETURN(const int64_t type, Int(*meta, cm::kType, where + ": type"));
    static const int64_t kTypes[] = {0, 1, 2, 5, 6};
    if (type != kTypes[static_cast<int>(column.physical)]) {
      return Bad(fmt::format("{}: the chunk is {}, the schema says {}", where, TypeName(type),
                             TypeName(kTypes[static_cast<int>(column.physical)])));
    }
    const ThriftValue* path = meta->Find(cm::kPath);
    if (!path || path->kind != Kind::kList || path->list.size() != 1 ||
        path->list[0].kind != Kind::kBinary || path->list[0].bin != column.name) {
      return Bad(where + ": path_in_schema does not name the column");
    }
    SINKD_ASSIGN_OR_RETURN(const int64_t codec, Int(*meta, cm::kCodec, where + ": codec"));
    SINKD_ASSIGN_OR_RETURN(const int64_t values, Int(*meta, cm::kNumValues, where + ": num_values"));
    if (values < 0 || static_cast<uint64_t>(values) != rows) {
      return Bad(fmt::format("{}: {} values in a row group of {} rows", where, values, rows));
    }
    SINKD_ASSIGN_OR_RETURN(const int64_t length, Int(*meta, cm::kCompressed, where + ": total_compressed_size"));
    SINKD_ASSIGN_OR_RETURN(int64_t start, Int(*meta, cm::kDataPage, where + ": data_page_offset"));
    if (meta->Has(cm::kDictionaryPage)) {
      SINKD_ASSIGN_OR_RETURN(const int64_t dictionary, Int(*meta, cm::kDictionaryPage, where + ": dictionary_page_offset"));
      if (dictionary < 0 || dictionary > start) {
        return Bad(fmt::format("{}: dictionary page at {} after the data pages at {}", where,
                               dictionary, start));
      }
      start = dictionary;
    }
    if (start < 4 || length < 0 || static_cast<uint64_t>(start) > footer_start_ ||
        static_cast<uint64_t>(length) > footer_start_ - static_cast<uint64_t>(start)) {
      return Bad(fmt::format("{}: truncated: the chunk at {} of {} bytes is past the data's {} bytes",
                             where, start, length, footer_start_));
    }
    info.values = static_cast<uint64_t>(values);
    info.compressed_bytes = static_cast<uint64_t>(length);
    location = ChunkLocation{static_cast<uint64_t>(start), static_cast<uint64_t>(length),
                             static_cast<int32_t>(codec), static_cast<uint64_t>(values)};
    if (const ThriftValue* stats = meta->Find(cm::kStatistics)) {
      if (stats->kind != Kind::kStruct) return Bad(where + ": statistics are not a struct");
      if (stats->Has(st::kNullCount)) {
        SINKD_ASSIGN_OR_RETURN(const int64_t nulls, Int(*stats, st::kNullCount, where + ": null_count"));
        if (nulls < 0 || nulls > values || (nulls > 0 && !column.optional)) {
          return Bad(fmt::format("{}: null_count {} for {} values", where, nulls, values));
        }
        info.null_count = static_cast<uint64_t>(nulls);
        info.has_null_count = true;
      }
      // The legacy min/max used signed byte order for strings; only the typed ones are bounds.
      const bool legacy = column.physical != PhysicalType::kByteArray;
      const int16_t min_id = stats->Has(st::kMinValue) || !legacy ? st::kMinValue : st::kMin;
      const int16_t max_id = stats->Has(st::kMaxValue) || !legacy ? st::kMaxValue : st::kMax;
      if (stats->Has(min_id)) {
        SINKD_ASSIGN_OR_RETURN(info.min, Bin(*stats, min_id, where + ": min"));
      }
      if (stats->Has(max_id)) {
        SINKD_ASSIGN_OR_RETURN(info.max, Bin(*stats, max_id, where + ": max"));
      }
    }
    (void)file_size_;
    return Status::OK();
  }

  std::string_view name_;
  uint64_t file_size_;
  uint64_t footer_start_;  // first byte of the FileMetaData: every chunk ends at or before it
};

}  // namespace

Result<DecodedFooter> ReadDecodedFooter(const ReadAt& read, uint64_t file_size,
                                        std::string_view name) {
  const auto bad = [&](std::string_view what) {
    return Status::Refuse(fmt::format("{}: {}", name, what));
  };
  if (file_size < 12) {
    return bad(fmt::format("truncated: {} bytes is too short for a Parquet file", file_size));
  }
  const uint64_t tail_size = std::min(file_size, kTailBytes);
  Result<std::string> tail = read(file_size - tail_size, tail_size);
  if (!tail.ok()) return tail.status().WithContext(name);
  if (tail->size() != tail_size) {
    return bad(fmt::format("truncated: read {} of the last {} bytes", tail->size(), tail_size));
  }
  const std::string_view end = std::string_view(*tail).substr(tail_size - 4);
  if (end == "PARE") return bad("encrypted files are not supported");
  if (end != "PAR1") return bad("not a Parquet file (no PAR1 at its end)");
  if (tail_size == file_size && tail->compare(0, 4, "PAR1") != 0) {
    return bad("not a Parquet file (no PAR1 at its start)");
  }
  uint32_t length;
  std::memcpy(&length, tail->data() + tail_size - 8, 4);
  if (length > file_size - 12) {
    return bad(fmt::format("truncated: footer length {} past the file's {} bytes", length, file_size));
  }
  if (length > kMaxFooterBytes) {
    return bad(fmt::format("a footer of {} bytes is more than the {} supported", length, kMaxFooterBytes));
  }
  const uint64_t footer_start = file_size - 8 - length;
  std::string separate;
  std::string_view footer;
  if (length + 8 <= tail_size) {
    footer = std::string_view(*tail).substr(tail_size - 8 - length, length);
  } else {
    Result<std::string> bytes = read(footer_start, length);
    if (!bytes.ok()) return bytes.status().WithContext(name);
    if (bytes->size() != length) {
      return bad(fmt::format("truncated: read {} of the footer's {} bytes", bytes->size(), length));
    }
    separate = std::move(bytes).value();
    footer = separate;
  }
  size_t consumed = 0;
  Result<ThriftValue> meta = DecodeThriftStruct(footer, &consumed);
  if (!meta.ok()) return meta.status().WithContext(fmt::format("{}: footer", name));
  if (consumed != length) {
    return bad(fmt::format("the footer's FileMetaData is {} bytes, its length says {}", consumed, length));
  }
  FooterParser parser(name, file_size, footer_start);
  return parser.Parse(*meta);
}

std::optional<std::string_view> FileFooter::Find(std::string_view key) const {
  for (const KeyValue& kv : metadata) {
    if (kv.first == key) return std::string_view(kv.second);
  }
  return std::nullopt;
}

Result<FileFooter> ReadFooter(const ReadAt& read, uint64_t file_size, std::string_view name) {
  SINKD_ASSIGN_OR_RETURN(DecodedFooter decoded, ReadDecodedFooter(read, file_size, name));
  return std::move(decoded.footer);
}

}  // namespace sinkd::parquet
