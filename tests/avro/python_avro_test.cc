// sinkd's Avro container writer and reader against an independent implementation, Debian's
// python3-avro: it must read what we write (records, header metadata, and the schema's field-id
// and logicalType attributes, which Iceberg readers map fields by), and we must read what it
// writes, with both codecs and with many blocks.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "avro/container.h"
#include "avro/json_value.h"
#include "avro/sample_schema.h"
#include "support/support.h"

namespace sinkd::avro {
namespace {

using testing::RunCommand;
using testing::SourceDir;
using testing::TempDir;

nlohmann::json PythonDump(const std::filesystem::path& file) {
  testing::CommandResult r = RunCommand(
      {"/usr/bin/python3", (SourceDir() / "tools/avro-dump.py").string(), file.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out, nullptr, false);
}

// The field-id of every field of every record in a parsed schema, by "record.field".
void FieldIds(const nlohmann::json& schema, std::map<std::string, int>& out) {
  if (schema.is_array()) {
    for (const auto& branch : schema) FieldIds(branch, out);
    return;
  }
  if (!schema.is_object()) return;
  if (schema.value("type", "") == "record") {
    for (const auto& f : schema["fields"]) {
      if (f.contains("field-id"))
        out[schema["name"].get<std::string>() + "." + f["name"].get<std::string>()] = f["field-id"];
      FieldIds(f["type"], out);
    }
  }
  if (schema.contains("items")) FieldIds(schema["items"], out);
  if (schema.contains("values")) FieldIds(schema["values"], out);
  if (schema.contains("element-id")) out["element-id"] = schema["element-id"];
}

TEST(PythonAvro, ReadsWhatWeWriteWithFieldIdsLogicalTypesAndHeaderMetadata) {
  TempDir dir;
  Result<Schema> schema = Schema::Parse(kSampleSchema);
  ASSERT_TRUE(schema.ok());
  std::map<std::string, int> want_ids;
  FieldIds(nlohmann::json::parse(kSampleSchema), want_ids);
  ASSERT_EQ(want_ids.size(), 14u) << "premise: the sample carries field and element ids";
  for (Codec codec : {Codec::kNull, Codec::kDeflate}) {
    WriterOptions options;
    options.codec = codec;
    options.block_bytes = 500;  // several blocks
    options.sync = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    ContainerWriter writer(*schema, {{"format-version", "2"}, {"partition-spec", "[]"}}, options);
    nlohmann::json want = nlohmann::json::array();
    for (int i = 0; i < 40; ++i) {
      ASSERT_TRUE(writer.Append(SampleRecord(i)).ok());
      want.push_back(ToJson(*schema, SampleRecord(i)));
    }
    Result<std::string> bytes = writer.Finish();
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    testing::WriteFile(dir / "sample.avro", *bytes);

    const nlohmann::json got = PythonDump(dir / "sample.avro");
    ASSERT_FALSE(got.is_discarded());
    EXPECT_EQ(got["codec"], codec == Codec::kNull ? "null" : "deflate");
    EXPECT_EQ(got["metadata"]["format-version"], "2");
    EXPECT_EQ(got["metadata"]["partition-spec"], "[]");
    std::map<std::string, int> ids;
    FieldIds(got["schema"], ids);
    EXPECT_EQ(ids, want_ids) << "python3-avro must see every field-id and element-id";
    const auto& ts = got["schema"]["fields"][2]["type"]["fields"][2]["type"];
    EXPECT_EQ(ts["logicalType"], "timestamp-micros") << ts.dump();
    EXPECT_EQ(ts["adjust-to-utc"], true) << ts.dump();
    EXPECT_EQ(got["records"], want);
  }
}

TEST(PythonAvro, WeReadWhatPythonAvroWritesWithBothCodecsAndManyBlocks) {
  TempDir dir;
  Result<Schema> schema = Schema::Parse(kSampleSchema);
  ASSERT_TRUE(schema.ok());
  nlohmann::json records = nlohmann::json::array();
  for (int i = 0; i < 60; ++i) records.push_back(ToJson(*schema, SampleRecord(i)));
  for (const char* codec : {"null", "deflate"}) {
    nlohmann::json spec = {{"schema", nlohmann::json::parse(kSampleSchema)},
                           {"codec", codec},
                           {"metadata", {{"snapshot-id", "42"}}},
                           {"records", records},
                           {"block_records", 7}};
    testing::CommandResult w =
        RunCommand({"/usr/bin/python3", (SourceDir() / "tools/avro-write.py").string(),
                    (dir / "py.avro").string()},
                   spec.dump());
    ASSERT_EQ(w.exit_code, 0) << w.err;
    Result<ContainerFile> file = ReadContainer(testing::ReadFile(dir / "py.avro"));
    ASSERT_TRUE(file.ok()) << codec << ": " << file.status().ToString();
    EXPECT_EQ(file->codec, codec);
    ASSERT_NE(file->Find("snapshot-id"), nullptr);
    EXPECT_EQ(*file->Find("snapshot-id"), "42");
    ASSERT_EQ(file->records.size(), 60u);
    for (size_t i = 0; i < 60; ++i) {
      EXPECT_EQ(ToJson(file->schema, file->records[i]), records[i]) << codec << " record " << i;
    }
    std::string text = testing::ReadFile(dir / "py.avro");
    size_t blocks = 0;
    for (size_t at = text.find(std::string(file->sync.begin(), file->sync.end()));
         at != std::string::npos;
         at = text.find(std::string(file->sync.begin(), file->sync.end()), at + 1)) {
      ++blocks;
    }
    EXPECT_GT(blocks, 3u) << "premise: python3-avro wrote several blocks";
  }
}

}  // namespace
}  // namespace sinkd::avro
