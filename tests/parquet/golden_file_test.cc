// The complete minimal file of parquet-format.md §2.6, rebuilt from the metadata structs: if the
// serialiser drifts from the spec by one byte, this is where it shows, before any reader runs.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "parquet/metadata_serializer.h"
#include "reader_check.h"
#include "support/support.h"

namespace sinkd::parquet {
namespace {

std::string Le32(int32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); }

std::vector<uint8_t> MinimalFile() {
  ByteBuffer file;
  file.Append(std::string_view("PAR1"));
  PageHeader page;
  page.type = PageType::kDataPage;
  page.uncompressed_page_size = 12;
  page.compressed_page_size = 12;
  page.data_page_header = DataPageHeader{3, Encoding::kPlain, Encoding::kRle, Encoding::kRle};
  SerializePageHeader(page, file);
  for (int32_t v : {1, 2, 3}) file.Append(Le32(v));

  FileMetaData m;
  m.schema = {SchemaElement{.name = "schema", .num_children = 1},
              SchemaElement{.type = Type::kInt32, .repetition = Repetition::kRequired,
                            .name = "a"}};
  m.num_rows = 3;
  ColumnChunk chunk;
  chunk.meta_data.type = Type::kInt32;
  chunk.meta_data.encodings = {Encoding::kPlain, Encoding::kRle};
  chunk.meta_data.path_in_schema = {"a"};
  chunk.meta_data.codec = Codec::kUncompressed;
  chunk.meta_data.num_values = 3;
  chunk.meta_data.total_uncompressed_size = 29;
  chunk.meta_data.total_compressed_size = 29;
  chunk.meta_data.data_page_offset = 4;
  chunk.meta_data.statistics = Statistics{.max = Le32(3), .min = Le32(1), .null_count = 0,
                                          .max_value = Le32(3), .min_value = Le32(1)};
  chunk.meta_data.encoding_stats = {{PageType::kDataPage, Encoding::kPlain, 1}};
  RowGroup group;
  group.columns = {chunk};
  group.total_byte_size = 29;
  group.num_rows = 3;
  group.file_offset = 4;
  group.total_compressed_size = 29;
  group.ordinal = 0;
  m.row_groups = {group};
  m.created_by = "demo version 0.1.0 (build 0)";
  ByteBuffer footer;
  SerializeFileMetaData(m, footer);
  file.Append(footer.span());
  file.AppendU32(static_cast<uint32_t>(footer.size()));
  file.Append(std::string_view("PAR1"));
  return {file.data(), file.data() + file.size()};
}

const std::vector<uint8_t> kGolden = {
    0x50, 0x41, 0x52, 0x31, 0x15, 0x00, 0x15, 0x18, 0x15, 0x18, 0x2C, 0x15, 0x06, 0x15, 0x00,
    0x15, 0x06, 0x15, 0x06, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x03,
    0x00, 0x00, 0x00, 0x15, 0x02, 0x19, 0x2C, 0x48, 0x06, 0x73, 0x63, 0x68, 0x65, 0x6D, 0x61,
    0x15, 0x02, 0x00, 0x15, 0x02, 0x25, 0x00, 0x18, 0x01, 0x61, 0x00, 0x16, 0x06, 0x19, 0x1C,
    0x19, 0x1C, 0x26, 0x00, 0x1C, 0x15, 0x02, 0x19, 0x25, 0x00, 0x06, 0x19, 0x18, 0x01, 0x61,
    0x15, 0x00, 0x16, 0x06, 0x16, 0x3A, 0x16, 0x3A, 0x26, 0x08, 0x3C, 0x18, 0x04, 0x03, 0x00,
    0x00, 0x00, 0x18, 0x04, 0x01, 0x00, 0x00, 0x00, 0x16, 0x00, 0x28, 0x04, 0x03, 0x00, 0x00,
    0x00, 0x18, 0x04, 0x01, 0x00, 0x00, 0x00, 0x00, 0x19, 0x1C, 0x15, 0x00, 0x15, 0x00, 0x15,
    0x02, 0x00, 0x00, 0x00, 0x16, 0x3A, 0x16, 0x06, 0x26, 0x08, 0x16, 0x3A, 0x14, 0x00, 0x00,
    0x28, 0x1C, 0x64, 0x65, 0x6D, 0x6F, 0x20, 0x76, 0x65, 0x72, 0x73, 0x69, 0x6F, 0x6E, 0x20,
    0x30, 0x2E, 0x31, 0x2E, 0x30, 0x20, 0x28, 0x62, 0x75, 0x69, 0x6C, 0x64, 0x20, 0x30, 0x29,
    0x19, 0x1C, 0x1C, 0x00, 0x00, 0x00, 0x8A, 0x00, 0x00, 0x00, 0x50, 0x41, 0x52, 0x31};

// Every byte of the spec's 179-byte file: thrift framing, field order, stats and column orders.
TEST(GoldenFile, TheMinimalFileIsReproducedByteForByte) {
  ASSERT_EQ(kGolden.size(), 179u) << "premise: the transcribed golden file is complete";
  EXPECT_EQ(MinimalFile(), kGolden);
}

// The golden bytes were only checked by decoding them again; three real readers must agree.
TEST(GoldenFile, TheMinimalFileIsReadByDuckDbHyparquetAndParquetWasm) {
  testing::TempDir dir;
  const auto path = dir / "golden.parquet";
  testing::WriteFile(path, std::string(kGolden.begin(), kGolden.end()));
  const testing::QueryResult q =
      testing::DuckDb("SELECT a FROM read_parquet(" + testing::SqlQuote(path.string()) + ")");
  ASSERT_TRUE(q.ok) << q.error;
  EXPECT_EQ(q.rows, (std::vector<std::vector<std::string>>{{"1"}, {"2"}, {"3"}}));
  for (const char* reader : {"hyparquet", "parquet-wasm"}) {
    const ReaderOutput out = ReadWith(reader, path);
    ASSERT_TRUE(out.ok) << reader << ": " << out.error;
    EXPECT_EQ(out.rows, (std::vector<std::vector<std::string>>{{"1"}, {"2"}, {"3"}})) << reader;
  }
}

// KeyValue("k", "v") from §2.6, inside a footer.
TEST(GoldenFile, AKeyValueEntryMatchesTheGoldenBytes) {
  FileMetaData m;
  m.schema = {SchemaElement{.name = "schema", .num_children = 0}};
  m.key_value_metadata = {{"k", "v"}};
  ByteBuffer out;
  SerializeFileMetaData(m, out);
  const std::vector<uint8_t> kv = {0x18, 0x01, 0x6B, 0x18, 0x01, 0x76, 0x00};
  const std::vector<uint8_t> all(out.data(), out.data() + out.size());
  EXPECT_NE(std::search(all.begin(), all.end(), kv.begin(), kv.end()), all.end());
}

}  // namespace
}  // namespace sinkd::parquet
