// RowBatch holds decoded rows column by column, in the shape the Parquet writer reads: one typed
// buffer per column of a ColumnTable. Decoders append whole rows; nothing is ever updated in place.
// Ownership: owns its buffers; borrows the ColumnTable (constexpr data, lives forever).
// Threads: one thread at a time.
// Strings are stored back to back in one byte buffer per column with uint32 offsets, so a batch is a
// handful of large allocations rather than one per value (250,000 rows × 40 columns would otherwise
// be ten million small strings).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "row/column_table.h"

namespace sinkd::row {

struct StringBuffer {
  std::string bytes;
  std::vector<uint32_t> offsets{0};  // value i is bytes[offsets[i], offsets[i+1])

  size_t size() const { return offsets.size() - 1; }
  std::string_view at(size_t i) const {
    return std::string_view(bytes.data() + offsets[i], offsets[i + 1] - offsets[i]);
  }
  void push_back(std::string_view value) {
    bytes.append(value);
    offsets.push_back(static_cast<uint32_t>(bytes.size()));
  }
};

struct ColumnBuffer {
  ColumnType type;
  StringBuffer strings;        // kString
  std::vector<int64_t> int64s;  // kInt64, kTimestamp (microseconds since the Unix epoch, UTC)
  std::vector<int32_t> int32s;  // kInt32
  std::vector<double> doubles;  // kDouble
  std::vector<uint8_t> bools;   // kBool, 0 or 1
};

class RowBatch {
 public:
  explicit RowBatch(const ColumnTable& table);

  const ColumnTable& table() const { return *table_; }
  size_t rows() const { return rows_; }
  bool empty() const { return rows_ == 0; }
  // Bytes held by the value buffers: what a byte limit on a batch counts.
  size_t bytes() const;

  ColumnBuffer& column(int index) { return columns_[index]; }
  const ColumnBuffer& column(int index) const { return columns_[index]; }

  // Called once after a row's value has been appended to every column.
  // REQUIRES: every column holds rows()+1 values.
  void CommitRow();

  // Drops every row; keeps the allocations for the next batch.
  void Clear();
  // Reserves room for `rows` more rows in the fixed-width columns.
  void Reserve(size_t rows);

  // The instant of row i in microseconds (the table's time column).
  int64_t TimeMicros(size_t row) const { return columns_[table_->time_column].int64s[row]; }
  std::string_view Id(size_t row) const { return columns_[table_->id_column].strings.at(row); }

 private:
  const ColumnTable* table_;
  std::vector<ColumnBuffer> columns_;
  size_t rows_ = 0;
};

}  // namespace sinkd::row
