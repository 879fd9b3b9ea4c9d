// Partitioning splits a RowBatch into the rows of each lake partition — the UTC date of the table's
// time column, then each partition column of the table, in table order — and sorts every
// partition's rows by (time, id). Rows are not copied: a Partition lists row indices.
// Why sorted: row-group min/max on `time` then prune, and the same rows always give the same file
// whatever order they arrived in, so a redelivered batch writes byte-identical parts.
// Threads: pure functions over a const batch.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "row/row_batch.h"

namespace sinkd::batch {

struct Partition {
  std::string date;                 // YYYY-MM-DD
  std::vector<std::string> values;  // one raw (unescaped) value per partition column, table order
  std::vector<uint32_t> rows;       // indices into the batch, sorted by (time, id)
};

// Every row lands in exactly one Partition. Partitions are ordered by (date, values) bytewise, so
// part numbers follow the order of their keys. REQUIRES: partition columns are strings.
std::vector<Partition> PartitionRows(const row::RowBatch& batch);

// Indices of the table's partition columns, in table order.
std::vector<int> PartitionColumns(const row::ColumnTable& table);

}  // namespace sinkd::batch
