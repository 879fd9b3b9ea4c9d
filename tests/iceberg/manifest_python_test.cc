// Manifests and manifest lists as python3-avro (Debian; no code shared with sinkd) reads them:
// the spec's field ids on every field, the header keys, and entries whose numbers are the
// Parts' own (sizes on disk, rows and bounds as DuckDB reads the files) — taken from the writer's
// statistics, never from reading a Part.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "base/sha256.h"
#include "iceberg/ledger_table.h"

namespace sinkd::iceberg {
namespace {

nlohmann::json PythonRead(const std::string& uri) {
  testing::CommandResult r = testing::RunCommand(
      {"/usr/bin/python3", (testing::SourceDir() / "tools/avro-dump.py").string(),
       uri.substr(std::string("file://").size())});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out, nullptr, false);
}

// Every field-id and element-id of a parsed Avro schema, by field name path.
void Ids(const nlohmann::json& schema, const std::string& path, std::map<std::string, int>& out) {
  if (schema.is_array()) {
    for (const auto& b : schema) Ids(b, path, out);
    return;
  }
  if (!schema.is_object()) return;
  if (schema.contains("element-id")) out[path + "[]"] = schema["element-id"];
  if (schema.contains("items")) Ids(schema["items"], path + "[]", out);
  if (schema.value("type", "") != "record") return;
  for (const auto& f : schema["fields"]) {
    const std::string name = path + "." + f["name"].get<std::string>();
    if (f.contains("field-id")) out[name] = f["field-id"];
    Ids(f["type"], name, out);
  }
}

std::string Hex(const std::string& bytes) { return HexEncode(bytes); }

TEST(IcebergManifest, PythonAvroReadsTheSpecsFieldIdsAndThePartsOwnNumbers) {
  testing::TempDir tmp;
  const LedgerTable t = WriteLedgerTable(tmp.path(), 1, 300);
  ASSERT_EQ(t.manifests.size(), 1u);
  ASSERT_GE(t.parts.size(), 6u) << "premise: three apps over two days";
  const nlohmann::json m = PythonRead(t.manifests[0]);
  ASSERT_FALSE(m.is_discarded());
  EXPECT_EQ(m["codec"], "deflate");
  EXPECT_EQ(m["metadata"]["format-version"], "2");
  EXPECT_EQ(m["metadata"]["content"], "data");
  EXPECT_EQ(m["metadata"]["partition-spec-id"], "0");
  EXPECT_EQ(
      nlohmann::json::parse(m["metadata"]["partition-spec"].get<std::string>())[0]["field-id"],
      1000);
  EXPECT_EQ(nlohmann::json::parse(m["metadata"]["schema"].get<std::string>())["fields"].size(),
            40u);

  std::map<std::string, int> ids;
  Ids(m["schema"], "", ids);
  const std::map<std::string, int> want = {{".status", 0},
                                           {".snapshot_id", 1},
                                           {".sequence_number", 3},
                                           {".file_sequence_number", 4},
                                           {".data_file", 2},
                                           {".data_file.content", 134},
                                           {".data_file.file_path", 100},
                                           {".data_file.file_format", 101},
                                           {".data_file.partition", 102},
                                           {".data_file.partition.date", 1000},
                                           {".data_file.partition.app", 1001},
                                           {".data_file.record_count", 103},
                                           {".data_file.file_size_in_bytes", 104},
                                           {".data_file.column_sizes", 108},
                                           {".data_file.column_sizes[].key", 117},
                                           {".data_file.column_sizes[].value", 118},
                                           {".data_file.value_counts", 109},
                                           {".data_file.value_counts[].key", 119},
                                           {".data_file.value_counts[].value", 120},
                                           {".data_file.null_value_counts", 110},
                                           {".data_file.null_value_counts[].key", 121},
                                           {".data_file.null_value_counts[].value", 122},
                                           {".data_file.lower_bounds", 125},
                                           {".data_file.lower_bounds[].key", 126},
                                           {".data_file.lower_bounds[].value", 127},
                                           {".data_file.upper_bounds", 128},
                                           {".data_file.upper_bounds[].key", 129},
                                           {".data_file.upper_bounds[].value", 130},
                                           {".data_file.key_metadata", 131},
                                           {".data_file.split_offsets", 132},
                                           {".data_file.split_offsets[]", 133},
                                           {".data_file.sort_order_id", 140}};
  EXPECT_EQ(ids, want);

  ASSERT_EQ(m["records"].size(), t.parts.size());
  for (size_t i = 0; i < t.parts.size(); ++i) {
    const auto& e = m["records"][i];
    const auto& f = e["data_file"];
    const std::string path = (t.lake / t.parts[i].key).string();
    EXPECT_EQ(e["status"], 1);
    EXPECT_TRUE(e["snapshot_id"].is_null()) << "inherited from the list";
    EXPECT_TRUE(e["sequence_number"].is_null()) << "inherited from the list";
    EXPECT_EQ(f["file_path"], "file://" + path);
    EXPECT_EQ(f["file_format"], "PARQUET");
    EXPECT_EQ(f["file_size_in_bytes"], std::filesystem::file_size(path)) << path;
    const testing::QueryResult duck = testing::DuckDb(
        "SELECT count(*), any_value(app), (epoch_us(min(time)) // 86400000000)::INT, "
        "epoch_us(min(time)), epoch_us(max(time)) FROM read_parquet(" +
        testing::SqlQuote(path) + ", hive_partitioning=false)");
    ASSERT_TRUE(duck.ok) << duck.error;
    EXPECT_EQ(f["record_count"].dump(), duck.rows[0][0]);
    EXPECT_EQ(f["partition"]["app"], duck.rows[0][1]);
    EXPECT_EQ(f["partition"]["date"].dump(), duck.rows[0][2]) << "days since 1970-01-01";
    ASSERT_EQ(f["column_sizes"].size(), 40u);
    ASSERT_EQ(f["value_counts"].size(), 40u);
    EXPECT_EQ(f["value_counts"][1]["value"].dump(), duck.rows[0][0]);
    EXPECT_EQ(f["null_value_counts"][39]["value"], 0);
    const auto time_bound = [](const nlohmann::json& bounds) {
      for (const auto& b : bounds) {
        if (b["key"] == 2) return b["value"]["hex"].get<std::string>();
      }
      return std::string("none");
    };
    const auto little_endian = [](const std::string& decimal) {
      const int64_t v = std::stoll(decimal);
      return Hex(std::string(reinterpret_cast<const char*>(&v), 8));
    };
    EXPECT_EQ(time_bound(f["lower_bounds"]), little_endian(duck.rows[0][3]));
    EXPECT_EQ(time_bound(f["upper_bounds"]), little_endian(duck.rows[0][4]));
    EXPECT_EQ(f["sort_order_id"], 1);
    EXPECT_EQ(f["split_offsets"][0], 4) << "the first row group starts after PAR1";
  }
}

TEST(IcebergManifest, PythonAvroReadsTheListWithItsCountsSequenceNumbersAndPartitionBounds) {
  testing::TempDir tmp;
  const LedgerTable t = WriteLedgerTable(tmp.path(), 2, 200);
  ASSERT_EQ(t.lists.size(), 2u);
  const nlohmann::json first = PythonRead(t.lists[0]);
  EXPECT_EQ(first["codec"], "deflate");
  EXPECT_EQ(first["records"].size(), 1u);
  EXPECT_FALSE(first["metadata"].contains("parent-snapshot-id"));
  const nlohmann::json list = PythonRead(t.lists[1]);
  ASSERT_FALSE(list.is_discarded());
  EXPECT_EQ(list["codec"], "deflate");
  EXPECT_EQ(list["metadata"]["sequence-number"], "2");
  EXPECT_EQ(list["metadata"]["format-version"], "2");
  EXPECT_EQ(list["metadata"]["parent-snapshot-id"], first["metadata"]["snapshot-id"]);
  std::map<std::string, int> ids;
  Ids(list["schema"], "", ids);
  EXPECT_EQ(ids[".manifest_path"], 500);
  EXPECT_EQ(ids[".partitions"], 507);
  EXPECT_EQ(ids[".partitions[]"], 508);
  EXPECT_EQ(ids[".partitions[].lower_bound"], 510);
  EXPECT_EQ(ids[".key_metadata"], 519);
  ASSERT_EQ(list["records"].size(), 2u);
  uint64_t rows = 0;
  for (size_t i = 0; i < 2; ++i) {
    const auto& r = list["records"][i];
    EXPECT_EQ(r["manifest_path"], t.manifests[i]);
    EXPECT_EQ(r["manifest_length"],
              std::filesystem::file_size(t.manifests[i].substr(std::string("file://").size())));
    EXPECT_EQ(r["sequence_number"], i + 1) << "a manifest keeps the number of its snapshot";
    EXPECT_EQ(r["min_sequence_number"], i + 1);
    EXPECT_EQ(r["added_files_count"], 6);
    rows += r["added_rows_count"].get<uint64_t>();
    ASSERT_EQ(r["partitions"].size(), 2u);
    EXPECT_FALSE(r["partitions"][0]["contains_null"]);
    EXPECT_EQ(r["partitions"][1]["lower_bound"]["hex"], Hex("billing"));
    EXPECT_EQ(r["partitions"][1]["upper_bound"]["hex"], Hex("search"));
  }
  EXPECT_EQ(rows, t.rows);
  const int32_t first_day = t.files[0].day;
  EXPECT_EQ(list["records"][0]["partitions"][0]["lower_bound"]["hex"], Hex(DayBytes(first_day)));
  EXPECT_EQ(list["records"][0]["partitions"][0]["upper_bound"]["hex"],
            Hex(DayBytes(first_day + 1)));
}

}  // namespace
}  // namespace sinkd::iceberg
