// PartitionedRows holds a batch's decoded rows split by lake partition — the UTC date of the
// table's time column, then each partition column's value — one RowBatch per partition, each in
// arrival order. A decoder appends every row straight into its partition's batch (it is the
// decoder's row/row_router.h), so each Part is encoded from buffers that hold its rows alone.
// Why: in one batch for every partition a Part's rows are every ~50th row, and the flush copied
// each column's values back together before encoding them, a copy whose loads missed the cache
// (15% of an import's CPU; BENCHMARKS.md, issue 10). The Parts are byte for byte those of the
// same rows in one RowBatch (batch/partitioner.h orders and sorts them the same way).
// Ownership: owns its batches; borrows the table (constexpr data). Threads: one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "row/column_table.h"
#include "row/row_batch.h"
#include "row/row_router.h"

namespace sinkd::batch {

class PartitionedRows final : public row::RowRouter {
 public:
  // REQUIRES: the table's partition columns are strings (as batch/partitioner.h requires).
  explicit PartitionedRows(const row::ColumnTable& table);

  const row::ColumnTable& table() const override { return *table_; }
  row::RowBatch& BatchFor(int64_t time_micros,
                          std::span<const std::string_view> partition_values) override;

  // Appends rows [first, first + count) of `from`, each to its partition's batch, in order.
  // REQUIRES: from.table() is this table and first + count <= from.rows().
  void AppendRows(const row::RowBatch& from, size_t first, size_t count);

  size_t rows() const { return rows_; }
  bool empty() const { return rows_ == 0; }
  // Bytes held by every partition's value buffers (what a batch's byte limit counts).
  size_t bytes() const;

  // The partitions in the order their first row arrived; none is empty once it has a row
  // committed (BatchFor makes one before its row is written).
  size_t partitions() const { return parts_.size(); }
  const row::RowBatch& batch(size_t i) const { return *parts_[i].rows; }
  int64_t day(size_t i) const { return parts_[i].day; }
  std::span<const std::string> values(size_t i) const { return parts_[i].values; }

  // Drops every partition and its rows. The buffers go back to the allocator, which keeps them
  // for the next batch (base/memory.h), rather than staying with a partition key that the next
  // batch may not have.
  void Clear();

 private:
  struct Part {
    int64_t day;
    std::vector<std::string> values;
    std::unique_ptr<row::RowBatch> rows;
  };

  const row::ColumnTable* table_;
  std::vector<int> partition_columns_;
  std::vector<Part> parts_;
  // A partition's key as bytes (day, then each value with its length) -> index into parts_.
  std::unordered_map<std::string, uint32_t> index_;
  std::string key_;       // BatchFor's scratch
  std::string last_key_;  // the key of the last call, and its partition: rows come in runs
  uint32_t last_ = 0;
  bool has_last_ = false;
  size_t rows_ = 0;  // one per BatchFor (each is one row), plus AppendRows' counts
};

}  // namespace sinkd::batch
