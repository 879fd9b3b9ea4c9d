// DuckDB's COPY options other than the lake's (FORMAT parquet, COMPRESSION zstd, version V1) give
// files PartReader refuses, naming the file, the column and what it lacks — never a wrong row.
// (Files in the lake's shape are compared value by value in tests/lake/part_reader_differential.)
#include <gtest/gtest.h>

#include "parquet/part_reader.h"
#include "support/support.h"

namespace sinkd::parquet {
namespace {

TEST(PartReaderDuckDb, RefusesOtherCodecsAndV2PagesNamingTheColumn) {
  testing::TempDir dir;
  const struct {
    std::vector<std::string> flags;
    const char* says;
  } cases[] = {
      {{"--compression", "snappy"}, "row group 0: column event_id: codec SNAPPY is not supported"},
      {{"--compression", "gzip"}, "row group 0: column event_id: codec GZIP is not supported"},
      // PARQUET_VERSION v2 keeps V1 pages here but switches encodings (DELTA_*, BYTE_STREAM_SPLIT).
      {{"--parquet-version", "v2"},
       "row group 0: column event_id: page 0: encoding DELTA_LENGTH_BYTE_ARRAY is not supported"},
  };
  for (const auto& c : cases) {
    const std::filesystem::path file = dir / "other.parquet";
    std::vector<std::string> argv = {"node", (testing::SourceDir() / "tools/duckdb-ledger-part.mjs").string(),
                                     file.string(), "1000", "3"};
    argv.insert(argv.end(), c.flags.begin(), c.flags.end());
    const auto run = testing::RunCommand(argv);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const std::string bytes = testing::ReadFile(file);
    const ReadAt read = [&bytes](uint64_t offset, uint64_t length) -> Result<std::string> {
      return bytes.substr(offset, length);
    };
    auto reader = PartReader::Open(read, bytes.size(), "lake/other.parquet");
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();  // the footer is fine
    auto values = (*reader)->ReadRowGroup(0);
    ASSERT_FALSE(values.ok()) << c.says;
    EXPECT_TRUE(values.status().IsRefuse());
    EXPECT_EQ(values.status().message(), std::string("lake/other.parquet: ") + c.says);
  }
}

}  // namespace
}  // namespace sinkd::parquet
