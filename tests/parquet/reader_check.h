// Test-side helpers for the Parquet tests: a table the tests own (SampleTable) with the canonical
// text of every value, writing it with PartWriter, and reading a file back with the three
// independent readers (DuckDB, hyparquet, parquet-wasm) into that same canonical text.
// Canonical text (tools/read-parquet.mjs): strings as-is, integers and timestamps (µs) in decimal,
// booleans true/false, doubles compared by value after strtod (bit for bit, any NaN equals NaN).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/result.h"
#include "base/status.h"
#include "parquet/part_writer.h"

namespace sinkd::parquet {

struct ReaderOutput {
  bool ok = false;
  std::string error;
  int64_t num_rows = -1;
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;  // a null is "<NULL>"
};

// prefix + decimal n; spelled out because gcc 12 warns (-Wrestrict, a false positive) on
// "literal" + std::to_string(n).
std::string Numbered(std::string_view prefix, uint64_t n);

// `reader` is "hyparquet" or "parquet-wasm" (through tools/read-parquet.mjs).
ReaderOutput ReadWith(const std::string& reader, const std::filesystem::path& file);

class SampleTable {
 public:
  explicit SampleTable(Schema schema);

  const Schema& schema() const { return schema_; }
  size_t rows() const { return rows_; }

  // Append one value to column `c`; call once per column per row, then EndRow().
  void Bool(size_t c, bool v) { columns_[c].bools.push_back(v ? 1 : 0); Defined(c, 1); }
  void Int32(size_t c, int32_t v) { columns_[c].i32.push_back(v); Defined(c, 1); }
  void Int64(size_t c, int64_t v) { columns_[c].i64.push_back(v); Defined(c, 1); }
  void Double(size_t c, double v) { columns_[c].f64.push_back(v); Defined(c, 1); }
  void String(size_t c, std::string_view v);
  // A NULL in column `c`, whose slot holds `placeholder`'s text parsed as the column's type ("" for
  // strings and booleans: false): the writer must ignore it.
  void Null(size_t c, std::string_view placeholder = "");
  void EndRow() { ++rows_; }

  // TableView::defined is filled only when some column holds a NULL.
  TableView View() const;
  bool IsNull(size_t c, size_t row) const { return columns_[c].defined[row] == 0; }
  // The canonical text of a source value.
  std::string Text(size_t c, size_t row) const;
  std::string_view StringAt(size_t c, size_t row) const;
  double DoubleAt(size_t c, size_t row) const { return columns_[c].f64[row]; }
  // Whether `read` (a reader's canonical text) is the source value.
  bool Matches(size_t c, size_t row, const std::string& read) const;

  // All row indices 0..rows-1.
  std::vector<uint32_t> AllRows() const;

 private:
  void Defined(size_t c, uint8_t d) { columns_[c].defined.push_back(d); }

  struct Column {
    std::vector<uint8_t> defined;  // one per row: 1 = value, 0 = NULL
    bool has_null = false;
    std::vector<uint8_t> bools;
    std::vector<int32_t> i32;
    std::vector<int64_t> i64;
    std::vector<double> f64;
    std::vector<uint32_t> offsets{0};
    std::string bytes;
  };
  Schema schema_;
  std::vector<Column> columns_;
  size_t rows_ = 0;
};

// Reads `file` with DuckDB, each column cast so that DuckDB's text is canonical (timestamps as
// epoch microseconds, doubles through VARCHAR so -0.0 keeps its sign).
ReaderOutput ReadWithDuckDb(const Schema& schema, const std::filesystem::path& file);

// Checks that `read` holds exactly source rows `rows` in order, naming the first difference.
::testing::AssertionResult SameRows(const SampleTable& table, const std::vector<uint32_t>& rows,
                                    const ReaderOutput& read);

// SameRows for DuckDB, hyparquet and parquet-wasm reading `path`, each failure naming the reader.
void ExpectAllReadersAgree(const SampleTable& table, const std::vector<uint32_t>& rows,
                           const std::filesystem::path& path);

// Writes table rows `rows` to `file` with one PartWriter call and Finish(metadata).
Status WriteParquet(const SampleTable& table, const std::vector<uint32_t>& rows,
                    const WriterOptions& options, const std::filesystem::path& file,
                    const std::vector<KeyValue>& metadata = {});
// The same into memory.
Result<std::string> EncodeParquet(const SampleTable& table, const std::vector<uint32_t>& rows,
                                  const WriterOptions& options,
                                  const std::vector<KeyValue>& metadata = {});

// All of `table` in memory; a failed encode fails the test and gives "".
std::string EncodeAll(const SampleTable& table, const WriterOptions& options = {});

// A deterministic table of every supported type: a unique id string (Bloom filter on), a
// low-cardinality string, a unicode/empty/longer string, int32, int64 with extremes, double with
// specials (±0, ±inf, subnormal; NaN only when `with_nan`), bool, and a sorted UTC timestamp that
// starts before 1970.
SampleTable MixedTable(size_t rows, uint64_t seed, bool with_nan = false);

// A table shaped like the ledger lake: a unique UUID event id, a sorted timestamp, zipf-skewed
// low-cardinality strings (tenant, feature, model, outcome), run ids in runs of 50, token counts,
// latency, cost, a small int, a rare flag and a mostly empty error text.
SampleTable LedgerLikeTable(size_t rows, uint64_t seed);

}  // namespace sinkd::parquet
