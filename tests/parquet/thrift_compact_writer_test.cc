#include "parquet/thrift_compact_writer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "parquet/metadata_serializer.h"

#include "bytes.h"

namespace sinkd::parquet {
namespace {

// A wrong varint or zigzag breaks every size and offset in the footer.
TEST(CompactWriter, VarintsAndZigzagsMatchTheSpecExamples) {
  ByteBuffer out;
  CompactWriter w(out);
  w.Varint(50399);
  EXPECT_EQ(Bytes(out), (std::vector<uint8_t>{0xDF, 0x89, 0x03}));
  const std::vector<std::pair<int64_t, std::vector<uint8_t>>> zigzags = {
      {0, {0x00}}, {-1, {0x01}}, {1, {0x02}}, {300, {0xD8, 0x04}}};
  for (const auto& [value, expected] : zigzags) {
    out.Clear();
    w.ZigzagVarint(value);
    EXPECT_EQ(Bytes(out), expected) << "zigzag of " << value;
  }
  out.Clear();
  w.ZigzagVarint(INT64_MIN);  // the extreme must neither overflow nor lose its top bit
  EXPECT_EQ(out.size(), 10u);
  EXPECT_EQ(out.data()[9], 0x01);
}

// A field id gap over 15 needs the long form; a short form there would shift every later field.
TEST(CompactWriter, AFieldIdGapAboveFifteenUsesTheLongForm) {
  ByteBuffer out;
  CompactWriter w(out);
  w.BeginStruct();
  w.I32Field(2, 1);
  w.I32Field(20, 1);
  w.EndStruct();
  EXPECT_EQ(Bytes(out), (std::vector<uint8_t>{0x25, 0x02, 0x05, 0x28, 0x02, 0x00}));
}

// Booleans live in the type nibble; a value byte after them would desynchronise readers.
TEST(CompactWriter, BooleansAreCarriedInTheTypeNibble) {
  ByteBuffer out;
  CompactWriter w(out);
  w.BeginStruct();
  w.BoolField(1, true);
  w.I32Field(6, 0);
  w.BoolField(7, false);
  w.EndStruct();
  EXPECT_EQ(Bytes(out), (std::vector<uint8_t>{0x11, 0x55, 0x00, 0x12, 0x00}));
}

// Lists of 15 or more elements switch header form; 41 schema elements is exactly the sinkd case.
TEST(CompactWriter, AListOfFortyOneStructsHasTheLongHeader) {
  ByteBuffer out;
  CompactWriter w(out);
  w.BeginStruct();
  w.ListField(2, CompactType::kStruct, 41);
  EXPECT_EQ(Bytes(out), (std::vector<uint8_t>{0x29, 0xF0 | 0x0C, 0x29}));
  out.Clear();
  CompactWriter short_list(out);
  short_list.BeginStruct();
  short_list.ListField(1, CompactType::kI32, 14);
  EXPECT_EQ(Bytes(out), (std::vector<uint8_t>{0x19, 0xE5}));
}

// The golden leaf from parquet-format.md §2.6: converted type and nested logical type together.
TEST(MetadataSerializer, ATimestampLeafMatchesTheGoldenBytes) {
  FileMetaData m;
  m.schema.push_back(SchemaElement{.name = "ts"});
  m.schema.push_back(SchemaElement{.type = Type::kInt64,
                                   .repetition = Repetition::kRequired,
                                   .name = "ts",
                                   .converted_type = ConvertedType::kTimestampMicros,
                                   .logical_type = LogicalKind::kTimestampMicrosUtc});
  ByteBuffer out;
  SerializeFileMetaData(m, out);
  const std::vector<uint8_t> leaf = {0x15, 0x04, 0x25, 0x00, 0x18, 0x02, 0x74, 0x73, 0x25, 0x14,
                                     0x4C, 0x8C, 0x11, 0x1C, 0x2C, 0x00, 0x00, 0x00, 0x00, 0x00};
  const std::vector<uint8_t> all = Bytes(out);
  EXPECT_NE(std::search(all.begin(), all.end(), leaf.begin(), leaf.end()), all.end())
      << "the timestamp leaf's bytes are not in the serialised footer";
}

// Without the STRING logical type and UTF8 converted type, readers see BLOB, not VARCHAR.
TEST(MetadataSerializer, AStringLeafMatchesTheGoldenBytes) {
  FileMetaData m;
  m.schema.push_back(SchemaElement{.name = "s"});
  m.schema.push_back(SchemaElement{.type = Type::kByteArray,
                                   .repetition = Repetition::kRequired,
                                   .name = "name",
                                   .converted_type = ConvertedType::kUtf8,
                                   .logical_type = LogicalKind::kString});
  ByteBuffer out;
  SerializeFileMetaData(m, out);
  const std::vector<uint8_t> leaf = {0x15, 0x0C, 0x25, 0x00, 0x18, 0x04, 0x6E, 0x61, 0x6D,
                                     0x65, 0x25, 0x00, 0x4C, 0x1C, 0x00, 0x00, 0x00};
  const std::vector<uint8_t> all = Bytes(out);
  EXPECT_NE(std::search(all.begin(), all.end(), leaf.begin(), leaf.end()), all.end());
}

// parquet-java wrote exactly these 16 bytes; a different union layout makes Arrow reject the filter.
TEST(MetadataSerializer, ABloomFilterHeaderMatchesParquetJavasBytes) {
  ByteBuffer out;
  SerializeBloomFilterHeader(BloomFilterHeader{1024}, out);
  EXPECT_EQ(Bytes(out), (std::vector<uint8_t>{0x15, 0x80, 0x10, 0x1C, 0x1C, 0x00, 0x00, 0x1C,
                                              0x1C, 0x00, 0x00, 0x1C, 0x1C, 0x00, 0x00, 0x00}));
}

}  // namespace
}  // namespace sinkd::parquet
