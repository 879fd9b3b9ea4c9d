// RowRouter picks the RowBatch each decoded row goes to, from the row's instant and the values of
// its table's partition columns, so that a decoder writes a row straight into the buffers of its
// lake partition (batch/partitioned_rows.h). Why: with one batch for every partition, a Part's
// rows are every ~50th row of the batch, and the flush gathered each column's values back into
// Part order before encoding them — a copy whose loads miss the cache (BENCHMARKS.md, issue 10).
// Threads: one thread at a time.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "row/column_table.h"
#include "row/row_batch.h"

namespace sinkd::row {

class RowRouter {
 public:
  virtual ~RowRouter() = default;

  // The table every routed row is a row of.
  virtual const ColumnTable& table() const = 0;

  // The batch a row of instant `time_micros` (the table's time column) with `partition_values`
  // (one per partition column, in table order; views valid for this call only) is appended to.
  // The caller appends the row and commits it before the next call.
  virtual RowBatch& BatchFor(int64_t time_micros,
                             std::span<const std::string_view> partition_values) = 0;
};

}  // namespace sinkd::row
