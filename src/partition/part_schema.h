// The bridge from a ColumnTable to the Parquet writer: the columns of a Part's file (every column
// of the table, the partition ones included: their key segment may be shortened, the file keeps
// the exact value), with their Parquet types and field ids, and a zero-copy TableView of a
// RowBuffer in that same order. `date` is in no table: `time` gives it.
// Threads: pure functions; a view borrows the batch and is valid until the batch changes.
#pragma once

#include "parquet/schema.h"
#include "parquet/table_view.h"
#include "row/row_buffer.h"

namespace sinkd::partition {

// One Parquet field per column, in table order. Field ids are the column's 1-based position in the
// table, stable because columns are only ever appended. The table's id column carries a Bloom
// filter, so a point lookup on it skips row groups.
parquet::Schema FileSchema(const row::ColumnTable& table);

// The batch's columns, in FileSchema order.
parquet::TableView FileView(const row::RowBuffer& batch);

}  // namespace sinkd::partition
