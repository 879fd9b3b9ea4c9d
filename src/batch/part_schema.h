// The bridge from a ColumnTable to the Parquet writer: which columns go into a Part's file (all but
// the partition columns, which live in the key), with which Parquet types and field ids, and a
// zero-copy TableView of a RowBatch in that same order.
// Threads: pure functions; a view borrows the batch and is valid until the batch changes.
#pragma once

#include "parquet/schema.h"
#include "parquet/table_view.h"
#include "row/row_batch.h"

namespace sinkd::batch {

// One Parquet field per non-partition column, in table order. Field ids are the column's 1-based
// position in the table, stable because columns are only ever appended. The table's id column
// carries a Bloom filter, so a point lookup on it skips row groups.
parquet::Schema FileSchema(const row::ColumnTable& table);

// The batch's non-partition columns, in FileSchema order.
parquet::TableView FileView(const row::RowBatch& batch);

}  // namespace sinkd::batch
