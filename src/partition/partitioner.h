// Partitioning splits a RowBuffer into the rows of each lake partition — the UTC date of the table's
// time column, then each partition column of the table, in table order — and sorts every
// partition's rows by (time, id). Rows are not copied: a Partition lists row indices.
// Why sorted: row-group min/max on `time` then prune, and the same rows always give the same file
// whatever order they arrived in, so a redelivered batch writes byte-identical parts.
// Threads: PartitionRows is a pure function over a const batch; OrderByPartition changes the
// batch it is given (one caller at a time per batch).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/work_pool.h"
#include "row/row_buffer.h"

namespace sinkd::partition {

struct Partition {
  std::string date;                 // YYYY-MM-DD
  std::vector<std::string> values;  // one raw (unescaped) value per partition column, table order
  std::vector<uint32_t> rows;       // indices into the batch, sorted by (time, id)
};

// Every row lands in exactly one Partition. Partitions are ordered by (date, values) bytewise, so
// part numbers follow the order of their keys. REQUIRES: partition columns are strings.
std::vector<Partition> PartitionRows(const row::RowBuffer& batch);

// Reorders `batch` in place so that each partition's rows are one contiguous run, in partition
// order and, within one, in its (time, id) order, and rewrites every partition's `rows` as that
// run. The rows, their partitions and each partition's row order are unchanged, so a Part
// written afterwards has the bytes it would have had before (and PartitionRows of the reordered
// batch gives the same partitions again: a retried flush writes the same Parts). Why: a Part's
// rows are otherwise every ~50th of the batch, and encoding them costs a cache miss a value (a
// flush gathered each Part's values first, 13% of an import's CPU); reordered, every Part reads
// its values in order and the reorder itself reads each column once in order.
// The columns are reordered on `pool` (one column an item), each slot with a column's worth of
// scratch, freed on return: the flush's encode then reuses that memory rather than adding to it
// (kept between flushes it raised a 250,000-row flush's peak RSS by ~28 MiB).
// Returns false, and changes nothing, when a string column has overflowed (its offsets no
// longer add up; the Parquet writer refuses such a batch naming the column).
// REQUIRES: `partitions` is PartitionRows(batch).
bool OrderByPartition(row::RowBuffer& batch, std::vector<Partition>& partitions, WorkPool& pool);

// Indices of the table's partition columns, in table order.
std::vector<int> PartitionColumns(const row::ColumnTable& table);

}  // namespace sinkd::partition
