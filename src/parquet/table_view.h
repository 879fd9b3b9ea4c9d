// TableView borrows columnar data for the writer: one typed, contiguous array per schema field.
// Nothing is copied; the arrays must outlive every PartWriter call that reads them.
// Threads: a view is read-only; many writers may read one view at once.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <variant>
#include <vector>

namespace sinkd::parquet {

// Strings back to back: value i is bytes[offsets[i], offsets[i+1]). offsets.size() = rows + 1.
struct StringArray {
  std::span<const uint32_t> offsets;
  std::string_view bytes;

  std::string_view at(size_t i) const {
    return bytes.substr(offsets[i], offsets[i + 1] - offsets[i]);
  }
};

// Booleans are one byte each, 0 or 1.
using ColumnArray = std::variant<std::span<const uint8_t>,   // kBoolean
                                 std::span<const int32_t>,   // kInt32
                                 std::span<const int64_t>,   // kInt64
                                 std::span<const double>,    // kDouble
                                 StringArray>;               // kByteArray

struct TableView {
  std::vector<ColumnArray> columns;  // one per schema field, in schema order
  size_t rows = 0;                   // every array holds this many values
  // Which values are NULL: empty (no NULL anywhere), or one span per column. An empty span means
  // every value of that column is defined; otherwise it holds `rows` bytes, 1 = value, 0 = NULL.
  // Arrays keep one slot per row either way: a NULL's slot holds a placeholder the writer
  // ignores. Only OPTIONAL fields may have a 0.
  std::vector<std::span<const uint8_t>> defined;
};

}  // namespace sinkd::parquet
