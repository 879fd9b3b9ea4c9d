// The Avro object container writer and reader against each other, and the reader against
// corrupt input: a manifest comes from storage, so a damaged one must be refused with a clear
// error, never crash the process or allocate what its counts claim.
#include "avro/container.h"

#include <gtest/gtest.h>

#include "avro/datum.h"
#include "avro/sample_schema.h"

namespace sinkd::avro {
namespace {

WriterOptions Options(Codec codec, size_t block_bytes = 64 * 1024) {
  WriterOptions o;
  o.codec = codec;
  o.block_bytes = block_bytes;
  for (size_t i = 0; i < o.sync.size(); ++i) o.sync[i] = static_cast<uint8_t>(0xA0 + i);
  return o;
}

std::string WriteSample(int records, Codec codec, size_t block_bytes = 64 * 1024) {
  Result<Schema> schema = Schema::Parse(kSampleSchema);
  EXPECT_TRUE(schema.ok()) << schema.status().ToString();
  ContainerWriter writer(*schema, {{"format-version", "2"}, {"content", "data"}},
                         Options(codec, block_bytes));
  for (int i = 0; i < records; ++i) EXPECT_TRUE(writer.Append(SampleRecord(i)).ok()) << i;
  Result<std::string> bytes = writer.Finish();
  EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
  return bytes.ok() ? *bytes : "";
}

TEST(AvroContainer, WhatTheWriterWritesTheReaderReadsBackWithEveryCodecAndBlockSize) {
  for (Codec codec : {Codec::kNull, Codec::kDeflate}) {
    for (size_t block_bytes : {size_t{1}, size_t{300}, size_t{1 << 20}}) {
      const std::string bytes = WriteSample(23, codec, block_bytes);
      Result<ContainerFile> file = ReadContainer(bytes);
      ASSERT_TRUE(file.ok()) << file.status().ToString();
      EXPECT_EQ(file->codec, codec == Codec::kNull ? "null" : "deflate");
      ASSERT_EQ(file->records.size(), 23u);
      for (int i = 0; i < 23; ++i) EXPECT_EQ(file->records[i], SampleRecord(i)) << "record " << i;
      ASSERT_NE(file->Find("format-version"), nullptr);
      EXPECT_EQ(*file->Find("format-version"), "2");
      EXPECT_EQ(*file->Find("content"), "data");
    }
  }
}

TEST(AvroContainer, TheHeaderCarriesTheSchemaTextUnchangedSoFieldIdsReachReaders) {
  // Debian's Avro C drops field-id and logicalType when it writes a schema: Iceberg readers then
  // cannot map a manifest's fields. The header must hold the text as given.
  const std::string bytes = WriteSample(1, Codec::kDeflate);
  Result<ContainerFile> file = ReadContainer(bytes);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  ASSERT_NE(file->Find("avro.schema"), nullptr);
  EXPECT_EQ(*file->Find("avro.schema"), kSampleSchema);
  EXPECT_EQ(file->schema.json(), kSampleSchema);
}

TEST(AvroContainer, AFileWithNoRecordsHasAHeaderAndNoBlock) {
  const std::string bytes = WriteSample(0, Codec::kDeflate);
  Result<ContainerFile> file = ReadContainer(bytes);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_TRUE(file->records.empty());
  EXPECT_EQ(bytes.substr(bytes.size() - 16), std::string(file->sync.begin(), file->sync.end()))
      << "an empty file ends right after the header's sync marker";
}

TEST(AvroContainer, AValueThatDoesNotFitItsSchemaFailsTheWriterNamingWhere) {
  Result<Schema> schema = Schema::Parse(kSampleSchema);
  ASSERT_TRUE(schema.ok());
  const auto refused = [&](Value record, const std::string& where) {
    ContainerWriter writer(*schema, {}, Options(Codec::kNull));
    Status s = writer.Append(record);
    EXPECT_TRUE(s.IsRefuse()) << where << ": " << s.ToString();
    EXPECT_NE(s.message().find(where), std::string::npos) << s.message();
    EXPECT_FALSE(writer.Finish().ok()) << "the first failure sticks: " << where;
  };
  Record r = SampleRecord(1).record();
  Record bad = r;
  bad.fields[0].value = int64_t{1} << 40;  // status is an int
  refused(bad, "record.status");
  bad = r;
  bad.fields.erase(bad.fields.begin());  // a required field left out
  refused(bad, "record.status");
  bad = r;
  bad.fields.push_back({"stauts", 1});
  refused(bad, "stauts");
  bad = r;
  bad.fields[7].value = "OTHER";  // not an enum symbol
  refused(bad, "record.kind");
  bad = r;
  bad.fields[8].value = "abc";  // fixed(4)
  refused(bad, "record.digest");
  bad = r;
  bad.fields[6].value = Map{{{"k", std::string("\xff", 1)}}};  // a string that is not UTF-8
  refused(bad, "record.props[\"k\"]");
  // Deeper: a record inside an array inside a union inside a record.
  bad = SampleRecord(3).record();
  Record data = bad.fields[2].value.record();
  Array bounds = data.fields[4].value.array();
  Record pair = bounds.items[1].record();
  pair.fields[1].value = 7;  // bytes
  bounds.items[1] = pair;
  data.fields[4].value = bounds;
  bad.fields[2].value = data;
  refused(bad, "the long at record.data.bounds[1].value does not fit");
}

TEST(AvroContainer, AnOptionalFieldLeftOutIsWrittenAsNull) {
  Result<Schema> schema = Schema::Parse(kSampleSchema);
  ASSERT_TRUE(schema.ok());
  Record r = SampleRecord(1).record();
  r.fields.erase(r.fields.begin() + 1);  // snapshot_id: ["null", "long"]
  ContainerWriter writer(*schema, {}, Options(Codec::kNull));
  ASSERT_TRUE(writer.Append(r).ok());
  Result<std::string> bytes = writer.Finish();
  ASSERT_TRUE(bytes.ok());
  Result<ContainerFile> file = ReadContainer(*bytes);
  ASSERT_TRUE(file.ok());
  ASSERT_NE(file->records[0].Find("snapshot_id"), nullptr);
  EXPECT_TRUE(file->records[0].Find("snapshot_id")->is_null());
}

TEST(AvroContainer, ReservedHeaderKeysAndBadSchemasAreRefused) {
  Result<Schema> schema = Schema::Parse(kSampleSchema);
  ASSERT_TRUE(schema.ok());
  ContainerWriter writer(*schema, {{"avro.codec", "snappy"}}, Options(Codec::kNull));
  EXPECT_TRUE(writer.status().IsRefuse());
  EXPECT_FALSE(writer.Finish().ok());
  for (const char* bad :
       {"", "{", "\"nope\"", R"({"type":"record","name":"r"})", R"(["int","int"])",
        R"([["null","int"]])", R"({"type":"fixed","name":"f"})",
        R"({"type":"record","name":"r","fields":[{"name":"a","type":"int"},)"
        R"({"name":"a","type":"long"}]})"}) {
    EXPECT_TRUE(Schema::Parse(bad).status().IsReject()) << bad;
  }
  // A record may refer to itself (a linked list): parsed, and its values read back.
  Result<Schema> list =
      Schema::Parse(R"({"type":"record","name":"node","fields":[{"name":"v","type":"long"},)"
                    R"({"name":"next","type":["null","node"]}]})");
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ContainerWriter w(*list, {}, Options(Codec::kDeflate));
  const Value chain = Record{{{"v", 1}, {"next", Record{{{"v", 2}, {"next", Value()}}}}}};
  ASSERT_TRUE(w.Append(chain).ok());
  Result<std::string> bytes = w.Finish();
  ASSERT_TRUE(bytes.ok());
  Result<ContainerFile> file = ReadContainer(*bytes);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  EXPECT_EQ(file->records.at(0), chain);
}

TEST(AvroContainer, EveryTruncationAndEveryFlippedByteIsReadOrRefusedNeverCrashes) {
  for (Codec codec : {Codec::kNull, Codec::kDeflate}) {
    const std::string bytes = WriteSample(6, codec, 200);
    ASSERT_TRUE(ReadContainer(bytes).ok());
    for (size_t n = 0; n < bytes.size(); ++n) {
      Result<ContainerFile> file = ReadContainer(bytes.substr(0, n));
      // A cut exactly between blocks is a valid shorter file; anywhere else it is refused.
      if (file.ok()) {
        EXPECT_LT(file->records.size(), 6u) << "cut at " << n;
      } else {
        EXPECT_TRUE(file.status().IsReject()) << file.status().ToString();
      }
    }
    for (size_t n = 0; n < bytes.size(); ++n) {
      for (uint8_t flip : {0x01, 0x80, 0xFF}) {
        std::string damaged = bytes;
        damaged[n] = static_cast<char>(damaged[n] ^ flip);
        Result<ContainerFile> file = ReadContainer(damaged);
        if (!file.ok()) {
          EXPECT_TRUE(file.status().IsReject()) << file.status().ToString();
        }
      }
    }
  }
}

// The header and one block, written by hand: a record count, a byte size, records.
std::string HandMade(const std::string& schema, const std::string& codec, const std::string& block,
                     int64_t count) {
  const std::string sync(16, 'S');
  std::string out("Obj\x01", 4);
  AppendLong(2, out);
  for (const std::string& s :
       {std::string("avro.schema"), schema, std::string("avro.codec"), codec}) {
    AppendLong(static_cast<int64_t>(s.size()), out);
    out += s;
  }
  AppendLong(0, out);
  out += sync;
  AppendLong(count, out);
  AppendLong(static_cast<int64_t>(block.size()), out);
  out += block;
  out += sync;
  return out;
}

TEST(AvroContainer, CountsAndSizesBeyondTheBytesAreRefusedBeforeAnythingIsAllocated) {
  // A few bytes claiming 2^60 records, items or bytes: the reader must answer at once, without
  // reserving memory for them.
  std::string huge;
  AppendLong(int64_t{1} << 60, huge);
  struct Case {
    std::string schema, block, error;
    int64_t records;
  };
  const Case cases[] = {
      {R"("long")", "\x02", "record count", int64_t{1} << 60},
      {R"({"type":"array","items":"long"})", huge, "item count", 1},
      {R"("string")", huge, "past the end", 1},
      // Zero-width items (nulls) take no bytes, so only the value limit bounds them.
      {R"({"type":"array","items":"null"})", huge, "limit", 1},
  };
  for (const Case& c : cases) {
    Result<ContainerFile> file = ReadContainer(HandMade(c.schema, "null", c.block, c.records));
    ASSERT_FALSE(file.ok()) << c.schema;
    EXPECT_NE(file.status().message().find(c.error), std::string::npos)
        << c.schema << ": " << file.status().ToString();
  }
}

TEST(AvroContainer, ADeflateBlockInflatingPastTheLimitIsRefused) {
  Result<Schema> schema = Schema::Parse(R"("string")");
  ASSERT_TRUE(schema.ok());
  ContainerWriter writer(*schema, {}, Options(Codec::kDeflate));
  ASSERT_TRUE(writer.Append(std::string(4 << 20, 'x')).ok());
  Result<std::string> bytes = writer.Finish();
  ASSERT_TRUE(bytes.ok());
  ASSERT_LT(bytes->size(), 64u * 1024) << "premise: the block compresses well";
  ReadLimits limits;
  limits.max_block_bytes = 1 << 20;
  Result<ContainerFile> file = ReadContainer(*bytes, limits);
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.status().message().find("inflates past"), std::string::npos)
      << file.status().ToString();
  EXPECT_TRUE(ReadContainer(*bytes).ok()) << "the default limit takes it";
}

TEST(AvroContainer, BlocksDeflatedAndInflatedOnAPoolAreTheBytesAndRecordsOfOneThread) {
  Result<Schema> schema = Schema::Parse(kSampleSchema);
  ASSERT_TRUE(schema.ok());
  WorkPool pool(3);
  WriterOptions on_pool = Options(Codec::kDeflate, 300);
  on_pool.pool = &pool;
  ContainerWriter writer(*schema, {{"format-version", "2"}, {"content", "data"}}, on_pool);
  for (int i = 0; i < 200; ++i) ASSERT_TRUE(writer.Append(SampleRecord(i)).ok());
  Result<std::string> bytes = writer.Finish();
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  EXPECT_EQ(*bytes, WriteSample(200, Codec::kDeflate, 300));

  Result<ContainerBlocks> blocks = ReadContainerBlocks(*bytes, ReadLimits{}, &pool);
  ASSERT_TRUE(blocks.ok()) << blocks.status().ToString();
  ASSERT_GT(blocks->blocks.size(), 10u) << "premise: many blocks";
  int next = 0;
  for (const ContainerBlock& block : blocks->blocks) {
    uint64_t values = 0;
    ASSERT_TRUE(ReadBlockRecords(block, blocks->header, 1 << 20,
                                 [&](DatumReader& in, const ContainerFile& header) {
                                   Result<Value> v = in.Read(header.schema,
                                                             header.schema.root_index());
                                   if (!v.ok()) return v.status();
                                   EXPECT_EQ(*v, SampleRecord(next)) << "record " << next;
                                   ++next;
                                   return Status::OK();
                                 },
                                 &values)
                    .ok());
  }
  EXPECT_EQ(next, 200);
}

TEST(AvroContainer, BlocksInflatingPastTheLimitInAllAreRefusedThoughEachFits) {
  Result<Schema> schema = Schema::Parse(R"("string")");
  ASSERT_TRUE(schema.ok());
  ContainerWriter writer(*schema, {}, Options(Codec::kDeflate, 1));
  for (int i = 0; i < 8; ++i) ASSERT_TRUE(writer.Append(std::string(1 << 20, 'x')).ok());
  Result<std::string> bytes = writer.Finish();
  ASSERT_TRUE(bytes.ok());
  ReadLimits limits;
  limits.max_blocks_bytes = 4 << 20;
  WorkPool pool(2);
  Result<ContainerBlocks> blocks = ReadContainerBlocks(*bytes, limits, &pool);
  ASSERT_FALSE(blocks.ok());
  EXPECT_TRUE(blocks.status().IsReject());
  EXPECT_NE(blocks.status().message().find("in all"), std::string::npos)
      << blocks.status().ToString();
  EXPECT_TRUE(ReadContainerBlocks(*bytes).ok()) << "the default limit takes them";
}

TEST(AvroContainer, ABlockNotFollowedByTheSyncMarkerOrWithBytesLeftOverIsRefused) {
  std::string one;
  AppendLong(7, one);
  std::string file = HandMade(R"("long")", "null", one, 1);
  ASSERT_TRUE(ReadContainer(file).ok());
  std::string wrong_sync = file;
  wrong_sync.back() = 'X';
  EXPECT_NE(ReadContainer(wrong_sync).status().message().find("sync marker"), std::string::npos);
  EXPECT_NE(ReadContainer(HandMade(R"("long")", "null", one + one, 1))
                .status()
                .message()
                .find("after its last record"),
            std::string::npos);
  EXPECT_NE(ReadContainer(HandMade(R"("long")", "snappy", one, 1))
                .status()
                .message()
                .find("not supported"),
            std::string::npos);
  EXPECT_NE(ReadContainer("Obj\x02").status().message().find("magic"), std::string::npos);
}

}  // namespace
}  // namespace sinkd::avro
