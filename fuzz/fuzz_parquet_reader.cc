// Fuzz target for parquet::PartReader (compaction reads every Part with it): any bytes are either
// refused (Refuse, never another kind, never a crash) or read into values that are consistent
// with the footer — every column of every row group holds exactly the row group's rows, `defined`
// is empty or one flag per row, string offsets ascend within the bytes.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "parquet/part_reader.h"

namespace {

[[noreturn]] void Fail(const char* what, std::string_view detail) {
  std::fprintf(stderr, "fuzz_parquet_reader: %s: %.*s\n", what, static_cast<int>(detail.size()),
               detail.data());
  std::abort();
}

void CheckValues(const sinkd::parquet::ColumnValues& v, uint64_t rows) {
  using sinkd::parquet::PhysicalType;
  if (v.size() != rows) Fail("a column's size is not the row group's rows", "");
  if (!v.defined.empty() && v.defined.size() != rows) Fail("defined is not one flag per row", "");
  for (const uint8_t d : v.defined) {
    if (d > 1) Fail("a defined flag is not 0 or 1", "");
  }
  if (v.physical == PhysicalType::kByteArray) {
    if (v.offsets.empty() || v.offsets[0] != 0 || v.offsets.back() != v.bytes.size()) {
      Fail("string offsets do not span the bytes", "");
    }
    for (size_t i = 1; i < v.offsets.size(); ++i) {
      if (v.offsets[i] < v.offsets[i - 1]) Fail("string offsets descend", "");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string file(reinterpret_cast<const char*>(data), size);
  const sinkd::parquet::ReadAt read = [&file](uint64_t offset, uint64_t length)
      -> sinkd::Result<std::string> {
    if (offset > file.size()) return std::string();
    return file.substr(offset, length);
  };
  auto reader = sinkd::parquet::PartReader::Open(read, file.size(), "fuzz.parquet");
  if (!reader.ok()) {
    if (!reader.status().IsRefuse()) Fail("Open: not a Refuse", reader.status().ToString());
    return 0;
  }
  const sinkd::parquet::FileFooter& footer = (*reader)->footer();
  uint64_t rows = 0;
  for (size_t g = 0; g < footer.row_groups.size(); ++g) {
    rows += footer.row_groups[g].rows;
    auto values = (*reader)->ReadRowGroup(g);
    if (!values.ok()) {
      if (!values.status().IsRefuse()) Fail("ReadRowGroup: not a Refuse", values.status().ToString());
      continue;
    }
    if (values->size() != footer.columns.size()) Fail("a row group lacks columns", "");
    for (const auto& v : *values) CheckValues(v, footer.row_groups[g].rows);
  }
  if (rows != footer.rows) Fail("the row groups' rows differ from the footer's", "");
  return 0;
}
