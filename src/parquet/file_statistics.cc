#include "parquet/file_statistics.h"

#include <cstring>

#include "parquet/part_reader.h"

namespace sinkd::parquet {

namespace {

template <typename T>
T Load(const std::string& bytes) {
  T v{};
  std::memcpy(&v, bytes.data(), sizeof v);
  return v;
}

// a < b in the column's TYPE_ORDER. REQUIRES: both are well-formed PLAIN values of `type`.
bool Less(Type type, const std::string& a, const std::string& b) {
  switch (type) {
    case Type::kInt32:
      return Load<int32_t>(a) < Load<int32_t>(b);
    case Type::kInt64:
      return Load<int64_t>(a) < Load<int64_t>(b);
    case Type::kDouble:
      return Load<double>(a) < Load<double>(b);
    case Type::kBoolean:
    case Type::kByteArray:
      return a < b;  // unsigned bytes, as string compares
  }
  return false;
}

size_t Width(Type type) {
  switch (type) {
    case Type::kInt32:
      return 4;
    case Type::kInt64:
    case Type::kDouble:
      return 8;
    case Type::kBoolean:
      return 1;
    case Type::kByteArray:
      return 0;
  }
  return 0;
}

// Combines one chunk's bound into the file's: a file bound exists only if every chunk has one.
void Merge(Type type, const std::optional<std::string>& chunk, bool first, bool want_min,
           std::optional<std::string>& file) {
  const size_t width = Width(type);
  if (!chunk || (width != 0 && chunk->size() != width)) {
    file.reset();
    return;
  }
  if (first) {
    file = chunk;
    return;
  }
  if (!file) return;
  if (want_min ? Less(type, *chunk, *file) : Less(type, *file, *chunk)) file = chunk;
}

}  // namespace

FileStatistics Summarize(const FileMetaData& footer) {
  FileStatistics out;
  out.rows = static_cast<uint64_t>(footer.num_rows);
  for (size_t i = 1; i < footer.schema.size(); ++i) {  // [0] is the root
    ColumnSummary c;
    c.field_id = footer.schema[i].field_id.value_or(-1);
    c.type = footer.schema[i].type.value_or(Type::kBoolean);
    c.nulls = 0;
    out.columns.push_back(c);
  }
  bool first = true;
  for (const RowGroup& group : footer.row_groups) {
    if (group.file_offset)
      out.row_group_offsets.push_back(static_cast<uint64_t>(*group.file_offset));
    for (size_t c = 0; c < group.columns.size() && c < out.columns.size(); ++c) {
      const ColumnMetaData& m = group.columns[c].meta_data;
      ColumnSummary& s = out.columns[c];
      s.bytes += static_cast<uint64_t>(m.total_compressed_size);
      s.values += static_cast<uint64_t>(m.num_values);
      const std::optional<Statistics>& stats = m.statistics;
      if (stats && stats->null_count && s.nulls) {
        *s.nulls += static_cast<uint64_t>(*stats->null_count);
      } else {
        s.nulls.reset();
      }
      const std::optional<std::string> none;
      Merge(s.type, stats ? stats->min_value : none, first, true, s.min);
      Merge(s.type, stats ? stats->max_value : none, first, false, s.max);
    }
    first = false;
  }
  return out;
}

FileStatistics Summarize(const FileFooter& read) {
  static constexpr Type kTypes[] = {Type::kBoolean, Type::kInt32, Type::kInt64, Type::kDouble,
                                    Type::kByteArray};  // by PhysicalType
  FileMetaData footer;
  footer.num_rows = static_cast<int64_t>(read.rows);
  footer.schema.emplace_back();  // the root
  for (const ColumnInfo& c : read.columns) {
    SchemaElement e;
    e.type = kTypes[static_cast<size_t>(c.physical)];
    e.name = c.name;
    if (c.field_id >= 0) e.field_id = c.field_id;
    footer.schema.push_back(std::move(e));
  }
  for (const RowGroupInfo& g : read.row_groups) {
    RowGroup group;
    group.num_rows = static_cast<int64_t>(g.rows);
    group.file_offset = static_cast<int64_t>(g.offset);
    for (const ColumnChunkInfo& c : g.columns) {
      ColumnChunk chunk;
      chunk.meta_data.total_compressed_size = static_cast<int64_t>(c.compressed_bytes);
      chunk.meta_data.num_values = static_cast<int64_t>(c.values);
      Statistics stats;
      if (c.has_null_count) stats.null_count = static_cast<int64_t>(c.null_count);
      stats.min_value = c.min;
      stats.max_value = c.max;
      chunk.meta_data.statistics = std::move(stats);
      group.columns.push_back(std::move(chunk));
    }
    footer.row_groups.push_back(std::move(group));
  }
  return Summarize(footer);
}

}  // namespace sinkd::parquet
