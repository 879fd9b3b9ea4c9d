// PartReader on the writer's OPTIONAL columns (design.md §2): NULL rows come back as NULL in every
// type and encoding, whatever placeholder the writer was given, and every defined value as written.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "parquet/part_reader.h"
#include "reader_check.h"

namespace sinkd::parquet {
namespace {

SampleTable OptionalReaderTable(size_t rows, uint64_t seed) {
  SampleTable t({
      {"id", PhysicalType::kInt64, Annotation::kNone, 1, false, false},
      {"name", PhysicalType::kByteArray, Annotation::kString, 2, true, true},
      {"tenant", PhysicalType::kByteArray, Annotation::kString, 3, false, true},
      {"count", PhysicalType::kInt32, Annotation::kNone, 4, false, true},
      {"cost", PhysicalType::kDouble, Annotation::kNone, 5, false, true},
      {"flag", PhysicalType::kBoolean, Annotation::kNone, 6, false, true},
      {"ts", PhysicalType::kInt64, Annotation::kTimestampMicrosUtc, 7, false, true},
      {"never_null", PhysicalType::kInt64, Annotation::kNone, 8, false, true},
      {"always_null", PhysicalType::kByteArray, Annotation::kString, 9, false, true},
  });
  std::mt19937_64 rng(seed);
  const char* tenants[] = {"acme", "globex", "initech"};
  for (size_t r = 0; r < rows; ++r) {
    const auto null = [&] { return rng() % 3 == 0; };
    t.Int64(0, static_cast<int64_t>(r));
    null() ? t.Null(1, "placeholder") : t.String(1, Numbered("name-", r));
    null() ? t.Null(2, "placeholder") : t.String(2, tenants[rng() % 3]);
    null() ? t.Null(3, "-77") : t.Int32(3, static_cast<int32_t>(rng() % 100));
    null() ? t.Null(4, "1e300") : t.Double(4, static_cast<double>(rng() % 1000) / 8.0);
    null() ? t.Null(5, "true") : t.Bool(5, rng() % 2 == 0);
    null() ? t.Null(6, "-77") : t.Int64(6, 1'700'000'000'000'000 + static_cast<int64_t>(r));
    t.Int64(7, static_cast<int64_t>(rng() % 7));
    t.Null(8, "placeholder");
    t.EndRow();
  }
  return t;
}

std::string OptionalText(const ColumnValues& v, size_t row) {
  if (!v.defined.empty() && !v.defined[row]) return "<NULL>";
  switch (v.physical) {
    case PhysicalType::kBoolean: return v.bools[row] ? "true" : "false";
    case PhysicalType::kInt32: return std::to_string(v.int32s[row]);
    case PhysicalType::kInt64: return std::to_string(v.int64s[row]);
    case PhysicalType::kDouble: {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.17g", v.doubles[row]);
      return buf;
    }
    case PhysicalType::kByteArray:
      return v.bytes.substr(v.offsets[row], v.offsets[row + 1] - v.offsets[row]);
  }
  return "";
}

void ExpectOptionalReadBack(const SampleTable& t, const WriterOptions& options) {
  const std::string bytes = EncodeAll(t, options);
  const ReadAt read = [&bytes](uint64_t offset, uint64_t length) -> Result<std::string> {
    return bytes.substr(offset, length);
  };
  auto reader = PartReader::Open(read, bytes.size(), "optional.parquet");
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  const FileFooter& footer = (*reader)->footer();
  for (size_t c = 0; c < t.schema().size(); ++c) {
    EXPECT_EQ(footer.columns[c].optional, t.schema()[c].optional) << t.schema()[c].name;
  }
  size_t row = 0;
  for (size_t g = 0; g < footer.row_groups.size(); ++g) {
    auto values = (*reader)->ReadRowGroup(g);
    ASSERT_TRUE(values.ok()) << values.status().ToString();
    const size_t rows = footer.row_groups[g].rows;
    for (size_t c = 0; c < t.schema().size(); ++c) {
      const ColumnValues& v = (*values)[c];
      ASSERT_EQ(v.size(), rows);
      uint64_t nulls = 0;
      for (size_t r = 0; r < rows; ++r) {
        if (t.IsNull(c, row + r)) {
          ++nulls;
          ASSERT_EQ(OptionalText(v, r), "<NULL>") << t.schema()[c].name << " row " << row + r;
        } else {
          ASSERT_TRUE(t.Matches(c, row + r, OptionalText(v, r)))
              << t.schema()[c].name << " row " << row + r << ": " << OptionalText(v, r);
        }
      }
      EXPECT_EQ(footer.row_groups[g].columns[c].null_count, nulls) << t.schema()[c].name;
      EXPECT_EQ(v.defined.empty(), nulls == 0) << t.schema()[c].name;
    }
    row += rows;
  }
  EXPECT_EQ(row, t.rows());
}

TEST(PartReaderOptional, ReadsTheWritersNullsBackInEveryTypeDictionaryEncoded) {
  WriterOptions options;
  options.row_group_rows = 1000;
  options.page_rows = 128;
  ExpectOptionalReadBack(OptionalReaderTable(3500, 4), options);
}

TEST(PartReaderOptional, ReadsTheWritersNullsBackInEveryTypePlainEncoded) {
  WriterOptions options;
  options.row_group_rows = 1000;
  options.dictionary_bytes_limit = 1;
  ExpectOptionalReadBack(OptionalReaderTable(2500, 5), options);
}

}  // namespace
}  // namespace sinkd::parquet
