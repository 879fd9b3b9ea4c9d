// Files written by PartWriter, read back by three independent decoders (DuckDB's C++ reader,
// hyparquet in JavaScript, parquet-wasm = arrow-rs) and compared value by value with the source.
#include <gtest/gtest.h>

#include "reader_check.h"
#include "support/support.h"

namespace sinkd::parquet {
namespace {

using testing::DuckDb;
using testing::SqlQuote;
using testing::TempDir;

// Every type, unicode, empty strings, ±0/±inf, extremes and pre-1970 timestamps, in several row
// groups, read identically by all three readers: the basic promise of the writer.
TEST(PartWriterReaders, EveryTypeReadsBackExactlyInAllThreeReaders) {
  TempDir dir;
  const SampleTable table = MixedTable(5000, 42, /*with_nan=*/true);
  const auto rows = table.AllRows();
  WriterOptions options;
  options.row_group_rows = 2048;
  const auto path = dir / "mixed.parquet";
  ASSERT_TRUE(WriteParquet(table, rows, options, path).ok());
  EXPECT_TRUE(SameRows(table, rows, ReadWithDuckDb(table.schema(), path))) << "DuckDB";
  EXPECT_TRUE(SameRows(table, rows, ReadWith("hyparquet", path))) << "hyparquet";
  EXPECT_TRUE(SameRows(table, rows, ReadWith("parquet-wasm", path))) << "parquet-wasm";
}

}  // namespace
}  // namespace sinkd::parquet
