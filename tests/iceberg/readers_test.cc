// sinkd reads back the table files it will have to re-read when a commit races (the newest
// metadata, the current list, the manifests to carry over): what it wrote, and the same files
// rewritten by python3-avro (another writer's field order in blocks and its deflate), giving
// the same entries; corrupt metadata is refused naming the field.
#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>

#include "iceberg/ledger_table.h"

namespace sinkd::iceberg {
namespace {

std::string Path(const std::string& uri) { return uri.substr(std::string("file://").size()); }

// `uri` as python3-avro reads it and then writes it again (deflate), under `out`, after
// `change` had its way with the dump ({"schema", "metadata", "records"}, bytes as {"hex"}).
std::string RewrittenByPython(const std::string& uri, const std::filesystem::path& out,
                              const std::function<void(nlohmann::json&)>& change = {}) {
  const auto tool = [](const char* name) {
    return (testing::SourceDir() / "tools" / name).string();
  };
  testing::CommandResult read =
      testing::RunCommand({"/usr/bin/python3", tool("avro-dump.py"), Path(uri)});
  EXPECT_EQ(read.exit_code, 0) << read.err;
  nlohmann::json dump = nlohmann::json::parse(read.out, nullptr, false);
  nlohmann::json spec = {{"schema", dump["schema"]},
                         {"codec", "deflate"},
                         {"metadata", nlohmann::json::object()},
                         {"records", dump["records"]}};
  for (const auto& [k, v] : dump["metadata"].items()) {
    if (k.rfind("avro.", 0) != 0) spec["metadata"][k] = v;
  }
  if (change) change(spec);
  testing::CommandResult write =
      testing::RunCommand({"/usr/bin/python3", tool("avro-write.py"), out.string()}, spec.dump());
  EXPECT_EQ(write.exit_code, 0) << write.err;
  return testing::ReadFile(out);
}

// The field `name` of a record schema's "fields".
nlohmann::json& FieldOf(nlohmann::json& record_schema, const std::string& name) {
  for (auto& f : record_schema["fields"]) {
    if (f["name"] == name) return f;
  }
  ADD_FAILURE() << "no field " << name;
  static nlohmann::json none;
  return none;
}

TEST(IcebergReaders, ManifestsAndListsReadBackAsWrittenAndAsPythonAvroRewritesThem) {
  testing::TempDir tmp;
  const LedgerTable t = WriteLedgerTable(tmp.path() / "lake", 2, 200);
  ASSERT_EQ(t.manifests.size(), 2u);
  const TableSpec spec = SpecOf(row::kLedgerColumns);
  size_t first = 0;  // index into t.files of the manifest's first entry
  for (const std::string& uri : t.manifests) {
    const std::string ours = testing::ReadFile(Path(uri));
    const std::string theirs = RewrittenByPython(uri, tmp / "m.avro");
    size_t count = 0;
    for (const std::string* bytes : {&ours, &theirs}) {
      Result<std::vector<ManifestEntry>> entries = ReadManifest(*bytes, spec);
      ASSERT_TRUE(entries.ok()) << entries.status().ToString();
      ASSERT_FALSE(entries->empty());
      for (size_t i = 0; i < entries->size(); ++i) {
        const ManifestEntry& e = (*entries)[i];
        EXPECT_EQ(e.status, EntryStatus::kAdded);
        EXPECT_FALSE(e.sequence_number.has_value()) << "inherited";
        EXPECT_TRUE(e.file == t.files.at(first + i)) << e.file.path;
      }
      count = entries->size();
    }
    first += count;
  }
  EXPECT_EQ(first, t.files.size());

  Result<std::vector<ManifestFile>> ours = ReadManifestList(testing::ReadFile(Path(t.lists[1])));
  Result<std::vector<ManifestFile>> theirs =
      ReadManifestList(RewrittenByPython(t.lists[1], tmp / "l.avro"));
  ASSERT_TRUE(ours.ok()) << ours.status().ToString();
  ASSERT_TRUE(theirs.ok()) << theirs.status().ToString();
  ASSERT_EQ(ours->size(), 2u);
  EXPECT_TRUE(*ours == t.listed) << "every field of every list entry, partition bounds included";
  EXPECT_TRUE(*theirs == t.listed);
  EXPECT_EQ((*ours)[1].path, t.manifests[1]);
  EXPECT_EQ((*ours)[1].sequence_number, 2);
  EXPECT_EQ((*ours)[0].added_rows + (*ours)[1].added_rows, static_cast<int64_t>(t.rows));
}

TEST(IcebergReaders, AManifestWithAnotherWritersFieldOrderAndExtraFieldsReadsAsOurs) {
  // The reader walks the file's own schema: fields in another order, fields it does not know
  // (skipped whatever their type), long where sinkd writes int, give the same entries.
  testing::TempDir tmp;
  const LedgerTable t = WriteLedgerTable(tmp.path() / "lake", 1, 30);
  const TableSpec spec = SpecOf(row::kLedgerColumns);
  const std::string theirs =
      RewrittenByPython(t.manifests[0], tmp / "m.avro", [](nlohmann::json& dump) {
        auto& entry = dump["schema"];
        auto& data_file = FieldOf(entry, "data_file")["type"];
        std::reverse(data_file["fields"].begin(), data_file["fields"].end());
        std::reverse(entry["fields"].begin(), entry["fields"].end());
        FieldOf(data_file, "content")["type"] = "long";
        data_file["fields"].insert(
            data_file["fields"].begin() + 3,
            nlohmann::json{{"name", "x_note"},
                           {"type", nlohmann::json::array({"null", "string"})}});
        entry["fields"].push_back(nlohmann::json{
            {"name", "x_tags"},
            {"type", {{"type", "map"}, {"values", {{"type", "array"}, {"items", "long"}}}}}});
        for (auto& r : dump["records"]) {
          r["data_file"]["x_note"] = "from elsewhere";
          r["x_tags"] = {{"a", {1, 2, 3}}, {"b", nlohmann::json::array()}};
        }
      });
  Result<std::vector<ManifestEntry>> entries = ReadManifest(theirs, spec);
  ASSERT_TRUE(entries.ok()) << entries.status().ToString();
  ASSERT_EQ(entries->size(), t.files.size());
  for (size_t i = 0; i < entries->size(); ++i) {
    EXPECT_TRUE((*entries)[i].file == t.files[i]) << (*entries)[i].file.path;
    EXPECT_EQ((*entries)[i].status, EntryStatus::kAdded);
  }
}

TEST(IcebergReaders, AManifestMissingARequiredFieldOrHoldingDeletesIsRefusedNamingWhy) {
  testing::TempDir tmp;
  const LedgerTable t = WriteLedgerTable(tmp.path() / "lake", 1, 30);
  const TableSpec spec = SpecOf(row::kLedgerColumns);
  int n = 0;
  const auto refused = [&](const std::function<void(nlohmann::json&)>& change,
                           const std::string& named) {
    const std::string bytes =
        RewrittenByPython(t.manifests[0], tmp / ("m" + std::to_string(n++) + ".avro"), change);
    Result<std::vector<ManifestEntry>> r = ReadManifest(bytes, spec);
    ASSERT_FALSE(r.ok()) << named;
    EXPECT_TRUE(r.status().IsReject()) << r.status().ToString();
    EXPECT_NE(r.status().message().find(named), std::string::npos) << r.status().ToString();
  };
  const auto without = [](const char* name) {
    return [name](nlohmann::json& dump) {
      auto& fields = FieldOf(dump["schema"], "data_file")["type"]["fields"];
      for (size_t i = 0; i < fields.size(); ++i) {
        if (fields[i]["name"] == name) fields.erase(i);
      }
      for (auto& r : dump["records"]) r["data_file"].erase(name);
    };
  };
  refused(without("record_count"), "no record_count");
  refused(without("file_path"), "no file_path");
  refused(without("partition"), "no partition");
  refused(
      [](nlohmann::json& dump) {
        for (auto& r : dump["records"]) r["data_file"]["content"] = 2;
      },
      "a delete file (content 2)");
  refused([](nlohmann::json& dump) { dump["metadata"]["content"] = "deletes"; },
          "content \"deletes\"");
  refused(
      [](nlohmann::json& dump) {
        FieldOf(FieldOf(dump["schema"], "data_file")["type"], "file_size_in_bytes")["type"] =
            "string";
        for (auto& r : dump["records"]) r["data_file"]["file_size_in_bytes"] = "big";
      },
      "file_size_in_bytes is not a number");
  refused(
      [](nlohmann::json& dump) {
        auto& partition = FieldOf(FieldOf(dump["schema"], "data_file")["type"], "partition");
        partition["type"]["fields"].erase(1);  // app
        for (auto& r : dump["records"]) r["data_file"]["partition"].erase("app");
      },
      "no value for partition field");
}

TEST(IcebergReaders, AManifestListWithAnotherWritersFieldOrderAndExtraFieldsReadsAsOurs) {
  // As for manifests: the list's fields and the summaries' in another order, fields sinkd does not
  // know (skipped whatever their type), long where sinkd writes int, give the same list.
  testing::TempDir tmp;
  const LedgerTable t = WriteLedgerTable(tmp.path() / "lake", 2, 60);
  const std::string theirs =
      RewrittenByPython(t.lists[1], tmp / "l.avro", [](nlohmann::json& dump) {
        auto& list = dump["schema"];
        auto& summary = FieldOf(list, "partitions")["type"][1]["items"];
        std::reverse(list["fields"].begin(), list["fields"].end());
        std::reverse(summary["fields"].begin(), summary["fields"].end());
        FieldOf(list, "partition_spec_id")["type"] = "long";
        FieldOf(list, "added_files_count")["type"] = "long";
        list["fields"].insert(list["fields"].begin() + 3,
                              nlohmann::json{{"name", "x_note"},
                                             {"type", nlohmann::json::array({"null", "string"})}});
        summary["fields"].insert(
            summary["fields"].begin() + 1,
            nlohmann::json{
                {"name", "x_tags"},
                {"type", {{"type", "map"}, {"values", {{"type", "array"}, {"items", "long"}}}}}});
        for (auto& r : dump["records"]) {
          r["x_note"] = "from elsewhere";
          for (auto& p : r["partitions"])
            p["x_tags"] = {{"a", {1, 2, 3}}, {"b", nlohmann::json::array()}};
        }
      });
  Result<std::vector<ManifestFile>> listed = ReadManifestList(theirs);
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  ASSERT_EQ(listed->size(), 2u);
  EXPECT_TRUE(*listed == t.listed) << "every field, partition bounds included";
}

TEST(IcebergReaders, AManifestListMissingARequiredFieldIsRefusedNamingIt) {
  testing::TempDir tmp;
  const LedgerTable t = WriteLedgerTable(tmp.path() / "lake", 1, 30);
  int n = 0;
  const auto refused = [&](const std::function<void(nlohmann::json&)>& change,
                           const std::string& named) {
    const std::string bytes =
        RewrittenByPython(t.lists[0], tmp / ("l" + std::to_string(n++) + ".avro"), change);
    Result<std::vector<ManifestFile>> r = ReadManifestList(bytes);
    ASSERT_FALSE(r.ok()) << named;
    EXPECT_TRUE(r.status().IsReject()) << r.status().ToString();
    EXPECT_NE(r.status().message().find(named), std::string::npos) << r.status().ToString();
  };
  for (const char* name : {"manifest_path", "manifest_length", "partition_spec_id",
                           "sequence_number", "min_sequence_number", "added_snapshot_id"}) {
    refused(
        [name](nlohmann::json& dump) {
          auto& fields = dump["schema"]["fields"];
          for (size_t i = 0; i < fields.size(); ++i) {
            if (fields[i]["name"] == name) fields.erase(i);
          }
          for (auto& r : dump["records"]) r.erase(name);
        },
        std::string("manifest list: no ") + name);
  }
  refused(
      [](nlohmann::json& dump) {
        FieldOf(dump["schema"], "manifest_length")["type"] = "string";
        for (auto& r : dump["records"]) r["manifest_length"] = "long";
      },
      "manifest_length is not a number");
  refused(
      [](nlohmann::json& dump) {
        FieldOf(dump["schema"], "partitions")["type"] = nlohmann::json::array({"null", "string"});
        for (auto& r : dump["records"]) r["partitions"] = "day";
      },
      "partitions is not a list");
}

TEST(IcebergReaders, MetadataParsesBackToTheSameJsonAndCorruptMetadataIsRefusedNamingTheField) {
  testing::TempDir tmp;
  const LedgerTable t = WriteLedgerTable(tmp.path(), 2, 50);
  const std::string text = testing::ReadFile(t.table / "metadata/v3.metadata.json");
  Result<TableMetadata> m = ParseTableMetadata(text);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(ToJson(*m), text) << "nothing lost or reordered on the way";
  ASSERT_NE(m->Current(), nullptr);
  EXPECT_EQ(m->Current()->sequence_number, 2);
  EXPECT_EQ(m->spec.time_field_id, 2);
  EXPECT_EQ(m->spec.id_field_id, 1);
  EXPECT_EQ(m->spec.partition.size(), 2u);
  EXPECT_TRUE(m->spec.schema == SpecOf(row::kLedgerColumns).schema);
  Result<TableMetadata> empty =
      ParseTableMetadata(testing::ReadFile(t.table / "metadata/v1.metadata.json"));
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_FALSE(empty->current_snapshot_id.has_value()) << "-1 is no snapshot";

  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(text);
  const auto refused = [&](nlohmann::ordered_json changed, const std::string& named) {
    Result<TableMetadata> r = ParseTableMetadata(changed.dump());
    ASSERT_FALSE(r.ok()) << named;
    EXPECT_TRUE(r.status().IsReject()) << r.status().ToString();
    EXPECT_NE(r.status().message().find(named), std::string::npos) << r.status().ToString();
  };
  nlohmann::ordered_json bad = doc;
  bad["format-version"] = 1;
  refused(bad, "format-version 1");
  bad = doc;
  bad.erase("table-uuid");
  refused(bad, "table-uuid");
  bad = doc;
  bad["current-snapshot-id"] = 12345;
  refused(bad, "12345");
  bad = doc;
  bad["snapshots"][0]["summary"]["operation"] = 1;
  refused(bad, "summary");
  bad = doc;
  bad["default-spec-id"] = 7;
  refused(bad, "partition spec 7");
  EXPECT_TRUE(ParseTableMetadata("{").status().IsReject());
}

}  // namespace
}  // namespace sinkd::iceberg
