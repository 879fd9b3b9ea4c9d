// DataFile is one Part as an Iceberg manifest entry describes it: where it is, its partition
// tuple, its size and rows, and per column the statistics Iceberg lists (column sizes, value and
// null counts, lower and upper bounds in the single-value serialization), all taken from the
// Parquet writer's own footer statistics (parquet/file_statistics.h) — never from reading the
// Part.
// Threads: plain values and a pure function.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "iceberg/table_spec.h"
#include "parquet/file_statistics.h"

namespace sinkd::iceberg {

struct ColumnMetrics {
  int32_t field_id = 0;
  uint64_t bytes = 0;                // column_sizes: its chunks, page headers included
  uint64_t values = 0;               // value_counts: NULLs included
  std::optional<uint64_t> nulls;     // null_value_counts
  std::optional<std::string> lower;  // lower_bounds, single-value bytes
  std::optional<std::string> upper;  // upper_bounds
  bool operator==(const ColumnMetrics&) const = default;
};

struct DataFile {
  std::string path;  // a fully qualified URI (file:///…, s3://bucket/…): v2 has no relative ones
  uint64_t file_size = 0;
  uint64_t records = 0;
  // The partition tuple, in spec order: days since 1970-01-01 of the rows' UTC date, then one
  // exact value per identity partition column.
  int32_t day = 0;
  std::vector<std::string> values;
  std::vector<ColumnMetrics> columns;   // every column with a field id, in file order
  std::vector<uint64_t> split_offsets;  // row-group starts, ascending
  bool operator==(const DataFile&) const = default;
};

// The entry of a Part at `path` of `file_size` bytes whose writer produced `statistics`, with the
// exact partition values the rows gave (`values`, one per identity field: the key may hold a
// shortened form). The day comes from the time column's bounds.
// Returns Internal when the statistics cannot describe a Part of this table (no bounds on the
// time column, rows of two days, a value count other than the spec's identity fields): a Part
// sinkd wrote always can.
Result<DataFile> DataFileOf(const TableSpec& spec, std::string path, uint64_t file_size,
                            const std::vector<std::string>& values,
                            const parquet::FileStatistics& statistics);

}  // namespace sinkd::iceberg
