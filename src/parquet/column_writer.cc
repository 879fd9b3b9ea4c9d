#include "parquet/column_writer.h"

#include <algorithm>

namespace sinkd::parquet {
namespace {

using Factory = std::unique_ptr<ColumnWriter> (*)(const Field&, const WriterOptions&);

// Indexed by PhysicalType.
constexpr Factory kFactories[] = {
    MakeBooleanColumnWriter,     // kBoolean
    MakeFixedWidthColumnWriter,  // kInt32
    MakeFixedWidthColumnWriter,  // kInt64
    MakeFixedWidthColumnWriter,  // kDouble
    MakeByteArrayColumnWriter,   // kByteArray
};
static_assert(std::size(kFactories) == static_cast<size_t>(PhysicalType::kByteArray) + 1);

}  // namespace

std::unique_ptr<ColumnWriter> MakeColumnWriter(const Field& field, const WriterOptions& options) {
  return kFactories[static_cast<size_t>(field.physical)](field, options);
}

size_t RowsPerPage(const WriterOptions& options, size_t value_bits) {
  const size_t by_bytes = options.page_bytes * 8 / std::max<size_t>(value_bits, 1);
  return std::max<size_t>(1, std::min(options.page_rows, by_bytes));
}

// Measured with zstd 3 on one row group of 122,880 rows (size dictionary-encoded / size PLAIN).
// Values drawn at random from a pool, so repeats are scattered:
//   distinct = 0.43 × rows: strings 0.60, int64 0.80;  0.17 × rows: strings 0.37, int64 0.57.
// Values that sit in one run each (ids or timestamps after a sort, each repeated k times):
//   k = 2: strings 1.17, int64 2.95;  k = 4: 1.36, 4.27;  k = 10: 0.93, 1.59.
// zstd codes a scattered repeat in PLAIN as a fresh match (across pages, as fresh literals) where
// the dictionary pays a few bits; an adjacent repeat costs zstd almost nothing, while the indices
// become an incrementing sequence that bit-packs poorly. Over 35 columns of such shapes (byte limit
// lifted) this rule came within 5% of the better choice per column (15.4 MB against 14.7 MB);
// DuckDB's rows/5 cap came within 32% (19.4 MB).
constexpr size_t kMaxDistinctShare = 2;    // at most rows / 2 distinct values
constexpr size_t kScatteredRunsPerValue = 2;  // fewer runs than 2 per value = clustered
constexpr size_t kShortRun = 8;            // shorter runs do not become RLE runs

size_t MaxDictionaryEntries(size_t rows) { return rows / kMaxDistinctShare; }

bool DictionaryPays(size_t rows, size_t distinct, size_t runs) {
  const bool clustered = runs < kScatteredRunsPerValue * distinct;
  const bool short_runs = runs * kShortRun > rows;
  return !(clustered && short_runs);
}

}  // namespace sinkd::parquet
