// FileStatistics is what a Part's footer says about its columns, gathered over its row groups:
// per column the bytes of its chunks, its value and null counts and its lower and upper bounds.
// Table formats (Iceberg's manifest entries) take these from the writer that has just produced
// the footer, so that no Part is read again to describe it.
// Bounds are PLAIN bytes without a length prefix, ordered per TYPE_ORDER (column_statistics.h) —
// the same bytes as Iceberg's single-value serialization of int, long, double, boolean, string
// and timestamptz. A truncated string bound (inexact) is still a bound: the min a prefix below
// every value, the max a string above every value.
// Threads: plain values and a pure function.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "parquet/metadata.h"

namespace sinkd::parquet {

struct ColumnSummary {
  int32_t field_id = -1;  // the schema element's field id; -1 when it has none
  Type type = Type::kBoolean;
  uint64_t bytes = 0;   // total_compressed_size of its chunks, page headers included
  uint64_t values = 0;  // num_values of its chunks: rows, NULLs included
  // Sum of the chunks' null counts; empty when a chunk has none.
  std::optional<uint64_t> nulls;
  // Over every chunk; empty when a chunk has no bound (all NULL, a NaN, an untruncatable max).
  std::optional<std::string> min;
  std::optional<std::string> max;
};

struct FileStatistics {
  uint64_t rows = 0;
  std::vector<ColumnSummary> columns;       // in schema (leaf) order
  std::vector<uint64_t> row_group_offsets;  // where each row group starts, ascending
};

// Gathers the statistics of `footer` (one the writer built, or one decoded from a file).
FileStatistics Summarize(const FileMetaData& footer);

// The same for a footer read back from a Part (part_reader.h: ReadFooter): what the writer's own
// Summarize gave when it wrote the Part, so that a Part described after the fact (`sinkd table
// register`, `lake verify` of a table) gets the statistics its writer would have recorded. One
// implementation: the read footer is mapped onto FileMetaData's fields and gathered as above.
struct FileFooter;
FileStatistics Summarize(const FileFooter& footer);

}  // namespace sinkd::parquet
