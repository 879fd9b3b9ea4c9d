// RowBuffer holds decoded rows column by column, in the shape the Parquet writer reads: one typed
// buffer per column of a ColumnTable. Decoders append whole rows; nothing is ever updated in place.
// Ownership: owns its buffers; borrows the ColumnTable (constexpr data, lives forever).
// Threads: one thread at a time.
// Strings are stored back to back in one byte buffer per column with uint32 offsets, so a batch is a
// handful of large allocations rather than one per value (250,000 rows × 40 columns would otherwise
// be ten million small strings).
// Limits: uint32 offsets address kMaxColumnBytes per string column. Batches close on bytes() at a
// limit of at most kMaxBatchBytes, so no column gets near it; one that is pushed past it anyway
// never wraps: it reports overflowed(), and the Parquet writer refuses it naming the column.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "row/column_table.h"

namespace sinkd::row {

// The most bytes one string column can hold: its offsets are uint32 (4 GiB - 1).
inline constexpr size_t kMaxColumnBytes = UINT32_MAX;

// The largest byte limit a batch may be given: the drain's and import's --batch-max-bytes and a
// lake sink's batch_max_bytes are refused above it. A batch is checked against its limit after
// each add (a drain's fetch: at most 16 MiB of messages, whose strings decode to at most 6 bytes
// per byte, JSON escaping's worst; one import message; one outbox event, at most 1 GB in
// PostgreSQL), and bytes() counts every column, so 2 GiB leaves every column 2 GiB of room for
// that last add.
inline constexpr size_t kMaxBatchBytes = size_t{2} << 30;
inline constexpr size_t kMinBatchBytes = size_t{1} << 20;
// The default byte limit of every batch that has one.
inline constexpr size_t kDefaultBatchBytes = size_t{512} << 20;

// OK when `bytes` is a byte limit a batch may be given (kMinBatchBytes to kMaxBatchBytes), else
// Refuse naming `what` (the flag or option) and the range.
Status CheckBatchMaxBytes(std::string_view what, size_t bytes);

struct StringBuffer {
  std::string bytes;
  std::vector<uint32_t> offsets{0};  // value i is bytes[offsets[i], offsets[i+1])

  size_t size() const { return offsets.size() - 1; }
  std::string_view at(size_t i) const {
    return std::string_view(bytes.data() + offsets[i], offsets[i + 1] - offsets[i]);
  }
  // Past kMaxColumnBytes the bytes are still appended (so bytes.size() tells how far past) but
  // the offset stays at the limit: values beyond it read as empty or cut, never as another row's
  // bytes, and the column reports overflowed().
  void push_back(std::string_view value) {
    bytes.append(value);
    offsets.push_back(bytes.size() <= kMaxColumnBytes ? static_cast<uint32_t>(bytes.size())
                                                      : static_cast<uint32_t>(kMaxColumnBytes));
  }
  bool overflowed() const { return bytes.size() > kMaxColumnBytes; }
};

struct ColumnBuffer {
  ColumnType type;
  StringBuffer strings;        // kString
  std::vector<int64_t> int64s;  // kInt64, kTimestamp (microseconds since the Unix epoch, UTC)
  std::vector<int32_t> int32s;  // kInt32
  std::vector<double> doubles;  // kDouble
  std::vector<uint8_t> bools;   // kBool, 0 or 1
};

// Where ReorderColumn rebuilds a column: one column's worth, reused column after column. The
// string bytes are grown without being zero-filled, since every byte is written before it is read.
struct ReorderScratch {
  std::unique_ptr<char[]> bytes;
  size_t bytes_capacity = 0;
  std::vector<uint32_t> offsets;
  std::vector<int64_t> int64s;
  std::vector<int32_t> int32s;
  std::vector<double> doubles;
  std::vector<uint8_t> bools;
};

class RowBuffer {
 public:
  explicit RowBuffer(const ColumnTable& table);

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

  // Appends rows [first, first + count) of `from`, as if each had been decoded into this batch.
  // REQUIRES: from.table() is this batch's table and first + count <= from.rows().
  void AppendRows(const RowBuffer& from, size_t first, size_t count);

  // Moves column c's row r to position[r], every row at once. `scratch` holds the column while it
  // is rebuilt and is left with its buffers for the next call (reuse it: a column's worth of
  // memory). The batch is consistent again once every column has been reordered with the same
  // `position`; columns are independent, so different columns may be reordered at once (each with
  // its own scratch). Why a scatter: it reads the column once in order and writes it in as many
  // ascending runs as there are destinations, where gathering reads it in the new order, a cache
  // miss a value once the rows of one destination lie far apart. Capacities stay with their
  // columns, so a batch reused after Clear() does not grow its buffers again.
  // REQUIRES: position is a permutation of [0, rows()); column c has not overflowed().
  void ReorderColumn(size_t c, std::span<const uint32_t> position, ReorderScratch& scratch);

  // Drops rows [rows, rows()), keeping the allocations: how a decoder takes back the rows of a
  // message it refuses whole after reading part of it. A column that had overflowed before
  // `rows` still reports overflowed().
  // REQUIRES: rows <= rows().
  void TruncateRows(size_t rows);
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
