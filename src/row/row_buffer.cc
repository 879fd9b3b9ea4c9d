#include "row/row_buffer.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <string>

#include "base/short_copy.h"

namespace sinkd::row {

Status CheckBatchMaxBytes(std::string_view what, size_t bytes) {
  if (bytes >= kMinBatchBytes && bytes <= kMaxBatchBytes) return Status::OK();
  return Status::Refuse(std::string(what) + " " + std::to_string(bytes) +
                        ": must be between 1048576 (1 MiB) and 2147483648 (2 GiB), so that no "
                        "column of a batch reaches the 4 GiB its 32-bit offsets address");
}

RowBuffer::RowBuffer(const ColumnTable& table) : table_(&table) {
  columns_.resize(table.columns.size());
  for (size_t i = 0; i < table.columns.size(); ++i) columns_[i].type = table.columns[i].type;
}

size_t RowBuffer::bytes() const {
  size_t total = 0;
  for (const ColumnBuffer& c : columns_) {
    total += c.strings.bytes.size() + c.strings.offsets.size() * sizeof(uint32_t) +
             c.int64s.size() * 8 + c.int32s.size() * 4 + c.doubles.size() * 8 + c.bools.size();
  }
  return total;
}

void RowBuffer::CommitRow() {
  ++rows_;
#ifndef NDEBUG
  for (const ColumnBuffer& c : columns_) {
    size_t n = 0;
    switch (c.type) {
      case ColumnType::kString: n = c.strings.size(); break;
      case ColumnType::kInt32: n = c.int32s.size(); break;
      case ColumnType::kInt64:
      case ColumnType::kTimestamp: n = c.int64s.size(); break;
      case ColumnType::kDouble: n = c.doubles.size(); break;
      case ColumnType::kBool: n = c.bools.size(); break;
    }
    assert(n == rows_ && "every column must hold exactly one value per committed row");
  }
#endif
}

namespace {

template <typename T>
void AppendRange(std::vector<T>& to, const std::vector<T>& from, size_t first, size_t count) {
  to.insert(to.end(), from.begin() + first, from.begin() + first + count);
}

}  // namespace

void RowBuffer::AppendRows(const RowBuffer& from, size_t first, size_t count) {
  assert(from.table_ == table_ && first + count <= from.rows_);
  for (size_t c = 0; c < columns_.size(); ++c) {
    ColumnBuffer& to = columns_[c];
    const ColumnBuffer& source = from.columns_[c];
    switch (to.type) {
      case ColumnType::kString: {
        const uint32_t begin = source.strings.offsets[first];
        const uint32_t end = source.strings.offsets[first + count];
        const size_t base = to.strings.bytes.size();
        to.strings.bytes.append(source.strings.bytes, begin, end - begin);
        // Rebased as push_back computes them, so a column pushed past kMaxColumnBytes reports
        // overflowed() here too and never wraps.
        for (size_t i = first + 1; i <= first + count; ++i) {
          const size_t at = base + (source.strings.offsets[i] - begin);
          to.strings.offsets.push_back(at <= kMaxColumnBytes ? static_cast<uint32_t>(at)
                                                             : static_cast<uint32_t>(kMaxColumnBytes));
        }
        break;
      }
      case ColumnType::kInt32: AppendRange(to.int32s, source.int32s, first, count); break;
      case ColumnType::kInt64:
      case ColumnType::kTimestamp: AppendRange(to.int64s, source.int64s, first, count); break;
      case ColumnType::kDouble: AppendRange(to.doubles, source.doubles, first, count); break;
      case ColumnType::kBool: AppendRange(to.bools, source.bools, first, count); break;
    }
  }
  rows_ += count;
}

namespace {

// Fixed-width values and string offsets are scattered into the scratch, which then changes
// places with the column: copying them back was over a third of the reorder's memory traffic.
// The scratch is first given at least the column's capacity, so the column never comes back with
// less room than it had (the next batch would grow it again: a copy and fresh pages); the
// column's old buffer is the scratch for the next column of the type, all of the same length.
// String bytes are copied back instead: their buffers differ in size from column to column, and
// changing places would leave a small column holding a large one's pages.
template <typename T>
void ScatterValues(std::vector<T>& values, std::span<const uint32_t> position,
                   std::vector<T>& scratch) {
  scratch.reserve(values.capacity());
  scratch.resize(values.size());
  for (size_t r = 0; r < values.size(); ++r) scratch[position[r]] = values[r];
  values.swap(scratch);
}

void ScatterStrings(StringBuffer& strings, std::span<const uint32_t> position,
                    ReorderScratch& scratch) {
  const size_t n = strings.size();
  const uint32_t* offsets = strings.offsets.data();
  // Where each row's bytes start once reordered: the lengths in their new order, summed.
  std::vector<uint32_t>& starts = scratch.offsets;
  starts.reserve(strings.offsets.capacity());
  starts.resize(n + 1);
  for (size_t r = 0; r < n; ++r) starts[position[r] + 1] = offsets[r + 1] - offsets[r];
  starts[0] = 0;
  for (size_t i = 0; i < n; ++i) starts[i + 1] += starts[i];
  const size_t total = starts[n];
  if (total == 0) return;  // every value empty: the offsets are all 0 whatever the order
  if (scratch.bytes_capacity < total) {
    scratch.bytes.reset();  // before the new one: never both at once
    scratch.bytes_capacity = total + total / 4;
    scratch.bytes.reset(new char[scratch.bytes_capacity]);
  }
  char* to = scratch.bytes.get();
  const char* from = strings.bytes.data();
  for (size_t r = 0; r < n; ++r) {
    CopyShort(to + starts[position[r]], from + offsets[r], offsets[r + 1] - offsets[r]);
  }
  std::memcpy(strings.bytes.data(), to, total);
  strings.offsets.swap(starts);
}

}  // namespace

void RowBuffer::ReorderColumn(size_t c, std::span<const uint32_t> position, ReorderScratch& scratch) {
  assert(position.size() == rows_ && "a position for every row");
  ColumnBuffer& column = columns_[c];
  assert(!column.strings.overflowed() && "an overflowed column's offsets no longer add up");
  switch (column.type) {
    case ColumnType::kString: ScatterStrings(column.strings, position, scratch); break;
    case ColumnType::kInt32: ScatterValues(column.int32s, position, scratch.int32s); break;
    case ColumnType::kInt64:
    case ColumnType::kTimestamp: ScatterValues(column.int64s, position, scratch.int64s); break;
    case ColumnType::kDouble: ScatterValues(column.doubles, position, scratch.doubles); break;
    case ColumnType::kBool: ScatterValues(column.bools, position, scratch.bools); break;
  }
}

void RowBuffer::TruncateRows(size_t rows) {
  assert(rows <= rows_);
  for (ColumnBuffer& c : columns_) {
    switch (c.type) {
      case ColumnType::kString: {
        // An offset at the limit may be a capped one: the bytes past it stay, so the column
        // still reports overflowed().
        const uint32_t end = c.strings.offsets[rows];
        if (end < kMaxColumnBytes) c.strings.bytes.resize(end);
        c.strings.offsets.resize(rows + 1);
        break;
      }
      case ColumnType::kInt32: c.int32s.resize(rows); break;
      case ColumnType::kInt64:
      case ColumnType::kTimestamp: c.int64s.resize(rows); break;
      case ColumnType::kDouble: c.doubles.resize(rows); break;
      case ColumnType::kBool: c.bools.resize(rows); break;
    }
  }
  rows_ = rows;
}

void RowBuffer::Clear() { TruncateRows(0); }

void RowBuffer::Reserve(size_t rows) {
  for (ColumnBuffer& c : columns_) {
    switch (c.type) {
      case ColumnType::kString: c.strings.offsets.reserve(c.strings.offsets.size() + rows); break;
      case ColumnType::kInt32: c.int32s.reserve(c.int32s.size() + rows); break;
      case ColumnType::kInt64:
      case ColumnType::kTimestamp: c.int64s.reserve(c.int64s.size() + rows); break;
      case ColumnType::kDouble: c.doubles.reserve(c.doubles.size() + rows); break;
      case ColumnType::kBool: c.bools.reserve(c.bools.size() + rows); break;
    }
  }
}

}  // namespace sinkd::row
