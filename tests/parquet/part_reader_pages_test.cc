// PartReader page by page, on handmade one-column files (each page built here byte by byte, so
// that a test can put in what no writer at hand emits): RLE booleans, CRCs, OPTIONAL definition
// levels, and the refusals — an encoding or page kind it does not read, a dictionary index past
// the dictionary, counts that disagree — each naming the file, the column and the feature.
#include <gtest/gtest.h>

#include <cstring>

#include "parquet/byte_buffer.h"
#include "parquet/crc32.h"
#include "parquet/metadata.h"
#include "parquet/metadata_serializer.h"
#include "parquet/part_reader.h"
#include "parquet/rle_bit_packed_encoder.h"
#include "parquet/thrift_compact_writer.h"

namespace sinkd::parquet {
namespace {

struct HandPage {
  int32_t type = 0;             // 0 DATA_PAGE, 2 DICTIONARY_PAGE, 3 DATA_PAGE_V2
  std::string payload;          // uncompressed (the file's codec is UNCOMPRESSED)
  int32_t num_values = 0;
  int32_t encoding = 0;
  int32_t level_encoding = 3;
  bool crc = false;
  bool bad_crc = false;
};

struct HandColumn {
  Type type = Type::kInt32;
  bool optional = false;
  int64_t num_values = 0;
  std::optional<int64_t> null_count;
  std::vector<HandPage> pages;
};

// PAR1, the pages, a footer for one row group of one column "v", the footer length, PAR1.
std::string HandFile(const HandColumn& c) {
  ByteBuffer file;
  file.Append(std::string_view("PAR1"));
  const int64_t start = static_cast<int64_t>(file.size());
  std::optional<int64_t> dictionary_offset;
  int64_t data_offset = -1;
  for (const HandPage& p : c.pages) {
    if (p.type == 2 && !dictionary_offset) dictionary_offset = static_cast<int64_t>(file.size());
    if (p.type != 2 && data_offset < 0) data_offset = static_cast<int64_t>(file.size());
    CompactWriter w(file);
    w.BeginStruct();
    w.I32Field(1, p.type);
    w.I32Field(2, static_cast<int32_t>(p.payload.size()));
    w.I32Field(3, static_cast<int32_t>(p.payload.size()));
    if (p.crc) {
      uint32_t crc = Crc32(reinterpret_cast<const uint8_t*>(p.payload.data()), p.payload.size());
      if (p.bad_crc) crc ^= 1;
      w.I32Field(4, static_cast<int32_t>(crc));
    }
    if (p.type == 0) {
      w.BeginStructField(5);
      w.I32Field(1, p.num_values);
      w.I32Field(2, p.encoding);
      w.I32Field(3, p.level_encoding);
      w.I32Field(4, 3);
      w.EndStruct();
    } else if (p.type == 2) {
      w.BeginStructField(7);
      w.I32Field(1, p.num_values);
      w.I32Field(2, p.encoding);
      w.EndStruct();
    } else if (p.type == 3) {
      w.BeginStructField(8);
      w.I32Field(1, p.num_values);
      w.I32Field(2, 0);
      w.I32Field(3, p.num_values);
      w.I32Field(4, p.encoding);
      w.I32Field(5, 0);
      w.I32Field(6, 0);
      w.EndStruct();
    }
    w.EndStruct();
    file.Append(p.payload);
  }
  if (data_offset < 0) data_offset = static_cast<int64_t>(file.size());
  const int64_t length = static_cast<int64_t>(file.size()) - start;

  FileMetaData meta;
  SchemaElement root;
  root.name = "schema";
  root.num_children = 1;
  SchemaElement leaf;
  leaf.type = c.type;
  leaf.repetition = c.optional ? Repetition::kOptional : Repetition::kRequired;
  leaf.name = "v";
  meta.schema = {root, leaf};
  meta.num_rows = c.num_values;
  RowGroup group;
  group.num_rows = c.num_values;
  ColumnChunk chunk;
  chunk.meta_data.type = c.type;
  chunk.meta_data.encodings = {Encoding::kPlain};
  chunk.meta_data.path_in_schema = {"v"};
  chunk.meta_data.codec = Codec::kUncompressed;
  chunk.meta_data.num_values = c.num_values;
  chunk.meta_data.total_uncompressed_size = length;
  chunk.meta_data.total_compressed_size = length;
  chunk.meta_data.data_page_offset = data_offset;
  chunk.meta_data.dictionary_page_offset = dictionary_offset;
  if (c.null_count) {
    chunk.meta_data.statistics = Statistics{};
    chunk.meta_data.statistics->null_count = *c.null_count;
  }
  group.columns.push_back(chunk);
  meta.row_groups.push_back(group);
  ByteBuffer footer;
  SerializeFileMetaData(meta, footer);
  file.Append(footer.view());
  const uint32_t footer_length = static_cast<uint32_t>(footer.size());
  file.Append(std::string_view(reinterpret_cast<const char*>(&footer_length), 4));
  file.Append(std::string_view("PAR1"));
  return std::string(file.view());
}

Result<ColumnValues> ReadHand(const std::string& bytes) {
  const ReadAt read = [&bytes](uint64_t offset, uint64_t length) -> Result<std::string> {
    return offset > bytes.size() ? std::string() : bytes.substr(offset, length);
  };
  SINKD_ASSIGN_OR_RETURN(std::unique_ptr<PartReader> reader,
                         PartReader::Open(read, bytes.size(), "hand.parquet"));
  SINKD_ASSIGN_OR_RETURN(std::vector<ColumnValues> values, reader->ReadRowGroup(0));
  return std::move(values[0]);
}

std::string Le32(uint32_t v) { return std::string(reinterpret_cast<const char*>(&v), 4); }
std::string Le32s(std::initializer_list<int32_t> values) {
  std::string out;
  for (const int32_t v : values) out += Le32(static_cast<uint32_t>(v));
  return out;
}
// RLE / bit-packed hybrid bytes of `values` at `width`.
std::string Hybrid(std::vector<uint32_t> values, int width) {
  ByteBuffer out;
  EncodeRleBitPacked(values, width, out);
  return std::string(out.view());
}
// V1 definition levels: 4-byte length, then the hybrid at bit width 1.
std::string Levels(std::vector<uint32_t> levels) {
  const std::string h = Hybrid(std::move(levels), 1);
  return Le32(static_cast<uint32_t>(h.size())) + h;
}

::testing::AssertionResult RefusedSaying(const Result<ColumnValues>& r, std::string_view says) {
  if (r.ok()) return ::testing::AssertionFailure() << "read OK";
  if (!r.status().IsRefuse()) return ::testing::AssertionFailure() << r.status().ToString();
  const std::string& m = r.status().message();
  if (m.rfind("hand.parquet: ", 0) != 0 || m.find(says) == std::string::npos) {
    return ::testing::AssertionFailure() << m;
  }
  return ::testing::AssertionSuccess();
}

TEST(PartReaderPages, ReadsRleEncodedBooleans) {
  std::vector<uint32_t> bits;
  for (int i = 0; i < 100; ++i) bits.push_back(i < 40 ? 1 : (i % 3 == 0));
  const std::string h = Hybrid(bits, 1);
  HandColumn c{Type::kBoolean, false, 100, {}, {{0, Le32(static_cast<uint32_t>(h.size())) + h, 100, 3}}};
  Result<ColumnValues> v = ReadHand(HandFile(c));
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  ASSERT_EQ(v->bools.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(v->bools[i], bits[i]) << i;
}

TEST(PartReaderPages, ChecksEveryPagesCrcWhenPresent) {
  HandColumn c{Type::kInt32, false, 3, {}, {{0, Le32s({1, 2, 3}), 3, 0, 3, /*crc=*/true}}};
  Result<ColumnValues> v = ReadHand(HandFile(c));
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(v->int32s, (std::vector<int32_t>{1, 2, 3}));
  c.pages[0].bad_crc = true;
  EXPECT_TRUE(RefusedSaying(ReadHand(HandFile(c)), "column v: page 0: CRC mismatch"));
}

TEST(PartReaderPages, OpensNullSlotsFromDefinitionLevelsInEveryType) {
  const std::vector<uint32_t> levels = {1, 0, 0, 1, 1, 0, 1};
  {
    HandColumn c{Type::kInt64, true, 7, 3, {{0, Levels(levels) + std::string(8, '\x01') + std::string(8, '\x02') +
                                                   std::string(8, '\x03') + std::string(8, '\x04'), 7, 0}}};
    Result<ColumnValues> v = ReadHand(HandFile(c));
    ASSERT_TRUE(v.ok()) << v.status().ToString();
    EXPECT_EQ(v->defined, (std::vector<uint8_t>{1, 0, 0, 1, 1, 0, 1}));
    EXPECT_EQ(v->int64s[0], 0x0101010101010101);
    EXPECT_EQ(v->int64s[1], 0);
    EXPECT_EQ(v->int64s[3], 0x0202020202020202);
    EXPECT_EQ(v->int64s[6], 0x0404040404040404);
  }
  {
    const std::string values = Le32(2) + "ab" + Le32(0) + Le32(3) + "xyz" + Le32(1) + "q";
    HandColumn c{Type::kByteArray, true, 7, 3, {{0, Levels(levels) + values, 7, 0}}};
    Result<ColumnValues> v = ReadHand(HandFile(c));
    ASSERT_TRUE(v.ok()) << v.status().ToString();
    EXPECT_EQ(v->offsets, (std::vector<uint32_t>{0, 2, 2, 2, 2, 5, 5, 6}));
    EXPECT_EQ(v->bytes, "abxyzq");
  }
  {
    // Dictionary indices for the defined slots only.
    const std::string dictionary = Le32s({10, 20, 30});
    const std::string indices = std::string(1, '\x02') + Hybrid({2, 0, 1, 2}, 2);
    HandColumn c{Type::kInt32, true, 7, 3, {{2, dictionary, 3, 0}, {0, Levels(levels) + indices, 7, 8}}};
    Result<ColumnValues> v = ReadHand(HandFile(c));
    ASSERT_TRUE(v.ok()) << v.status().ToString();
    EXPECT_EQ(v->int32s, (std::vector<int32_t>{30, 0, 0, 10, 20, 0, 30}));
  }
  {
    // An OPTIONAL column without a NULL in the chunk has no `defined`.
    HandColumn c{Type::kInt32, true, 2, 0, {{0, Levels({1, 1}) + Le32s({5, 6}), 2, 0}}};
    Result<ColumnValues> v = ReadHand(HandFile(c));
    ASSERT_TRUE(v.ok()) << v.status().ToString();
    EXPECT_TRUE(v->defined.empty());
    EXPECT_EQ(v->int32s, (std::vector<int32_t>{5, 6}));
  }
}

TEST(PartReaderPages, RefusesEncodingsAndPageKindsItDoesNotReadByName) {
  const std::string four = Le32s({1, 2, 3, 4});
  EXPECT_TRUE(RefusedSaying(ReadHand(HandFile({Type::kInt32, false, 4, {}, {{0, four, 4, 5}}})),
                            "column v: page 0: encoding DELTA_BINARY_PACKED is not supported"));
  EXPECT_TRUE(RefusedSaying(ReadHand(HandFile({Type::kDouble, false, 2, {}, {{0, four, 2, 9}}})),
                            "encoding BYTE_STREAM_SPLIT is not supported"));
  EXPECT_TRUE(RefusedSaying(ReadHand(HandFile({Type::kInt32, false, 4, {}, {{3, four, 4, 0}}})),
                            "DATA_PAGE_V2 is not supported"));
  EXPECT_TRUE(RefusedSaying(
      ReadHand(HandFile({Type::kInt32, true, 4, {}, {{0, std::string(1, '\xFF') + four, 4, 0, 4}}})),
      "definition level encoding BIT_PACKED is not supported"));
  EXPECT_TRUE(RefusedSaying(ReadHand(HandFile({Type::kInt32, false, 4, {}, {{0, four, 4, 3}}})),
                            "RLE values are only supported for BOOLEAN"));
}

TEST(PartReaderPages, RefusesADictionaryIndexPastTheDictionary) {
  const std::string indices = std::string(1, '\x02') + Hybrid({0, 1, 3}, 2);
  HandColumn c{Type::kInt32, false, 3, {}, {{2, Le32s({10, 20, 30}), 3, 0}, {0, indices, 3, 8}}};
  EXPECT_TRUE(RefusedSaying(ReadHand(HandFile(c)), "a dictionary index is past the dictionary"));
  HandColumn strings{Type::kByteArray, false, 1, {}, {{2, Le32(1) + "a", 1, 0}, {0, std::string(1, '\x01') + Hybrid({1}, 1), 1, 8}}};
  EXPECT_TRUE(RefusedSaying(ReadHand(HandFile(strings)), "a dictionary index is past the dictionary"));
  HandColumn none{Type::kInt32, false, 1, {}, {{0, std::string(1, '\x01') + Hybrid({0}, 1), 1, 8}}};
  EXPECT_TRUE(RefusedSaying(ReadHand(HandFile(none)), "without a dictionary page"));
}

TEST(PartReaderPages, RefusesCountsThatDisagree) {
  // The page holds fewer values than the chunk, more values than the chunk, fewer bytes than its
  // values, more NULLs than the statistics say, and a NULL in a REQUIRED column's statistics.
  EXPECT_TRUE(RefusedSaying(ReadHand(HandFile({Type::kInt32, false, 5, {}, {{0, Le32s({1, 2, 3, 4}), 4, 0}}})),
                            "truncated: the pages hold 4 of the chunk's 5 values"));
  EXPECT_TRUE(RefusedSaying(ReadHand(HandFile({Type::kInt32, false, 3, {}, {{0, Le32s({1, 2, 3, 4}), 4, 0}}})),
                            "the pages hold more than the chunk's 3 values"));
  EXPECT_TRUE(RefusedSaying(ReadHand(HandFile({Type::kInt32, false, 4, {}, {{0, Le32s({1, 2, 3}), 4, 0}}})),
                            "truncated: fewer PLAIN values than the page says"));
  EXPECT_TRUE(RefusedSaying(
      ReadHand(HandFile({Type::kInt32, true, 3, 0, {{0, Levels({1, 0, 1}) + Le32s({1, 2}), 3, 0}}})),
      "1 NULLs, the statistics say 0"));
  EXPECT_TRUE(RefusedSaying(ReadHand(HandFile({Type::kInt32, false, 1, 1, {{0, Le32s({1}), 1, 0}}})),
                            "null_count 1 for 1 values"));
  EXPECT_TRUE(RefusedSaying(
      ReadHand(HandFile({Type::kInt32, true, 3, {}, {{0, Le32(100) + Hybrid({1, 1, 1}, 1), 3, 0}}})),
      "truncated: definition levels past the page"));
}

TEST(PartReaderPages, RefusesAStringLongerThanItsPage) {
  HandColumn c{Type::kByteArray, false, 1, {}, {{0, Le32(10) + "abc", 1, 0}}};
  EXPECT_TRUE(RefusedSaying(ReadHand(HandFile(c)), "a PLAIN string is longer than the page"));
}

}  // namespace
}  // namespace sinkd::parquet
