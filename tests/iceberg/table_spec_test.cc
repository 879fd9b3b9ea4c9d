// The Iceberg schema, partition spec and sort order come from the one column table: readers
// select Parquet columns by field id, so the schema's ids must be exactly the ids the Parquet
// writer puts into every Part.
#include "iceberg/table_spec.h"

#include <gtest/gtest.h>

#include "partition/part_schema.h"
#include "iceberg/table_metadata.h"
#include "row/ledger_columns.h"

namespace sinkd::iceberg {
namespace {

TEST(TableSpec, TheSchemasFieldIdsAreThePartsParquetFieldIdsAndTimeIsTimestamptz) {
  const TableSpec spec = SpecOf(row::kLedgerColumns);
  const parquet::Schema parquet = partition::FileSchema(row::kLedgerColumns);
  const auto& fields = spec.schema["fields"];
  ASSERT_EQ(fields.size(), parquet.size());
  for (size_t i = 0; i < parquet.size(); ++i) {
    EXPECT_EQ(fields[i]["id"], parquet[i].field_id) << parquet[i].name;
    EXPECT_EQ(fields[i]["name"], parquet[i].name);
    const bool key = parquet[i].name == "time" || parquet[i].name == "event_id";
    EXPECT_EQ(fields[i]["required"], key)
        << parquet[i].name << ": only the sort keys are in every Part ever written";
  }
  EXPECT_EQ(fields[1]["type"], "timestamptz");
  EXPECT_EQ(fields[14]["type"], "boolean");
  EXPECT_EQ(fields[15]["type"], "long");
  EXPECT_EQ(fields[19]["type"], "double");
  EXPECT_EQ(fields[32]["type"], "int");
  EXPECT_EQ(spec.last_column_id, 40);
}

TEST(TableSpec, ThePartitionSpecIsTheDayOfTimeAsDateThenEachPartitionColumn) {
  const TableSpec spec = SpecOf(row::kLedgerColumns);
  EXPECT_EQ(PartitionSpecJson(spec).dump(),
            R"({"spec-id":0,"fields":[)"
            R"({"name":"date","transform":"day","source-id":2,"field-id":1000},)"
            R"({"name":"app","transform":"identity","source-id":4,"field-id":1001}]})");
  EXPECT_EQ(spec.last_partition_id, 1001);
  EXPECT_EQ(
      spec.sort_order.dump(),
      R"({"order-id":1,"fields":[)"
      R"({"transform":"identity","source-id":2,"direction":"asc","null-order":"nulls-first"},)"
      R"({"transform":"identity","source-id":1,"direction":"asc","null-order":"nulls-first"}]})");
  // A table with another partition column (the outbox events' `type`) and none at all.
  constexpr row::ColumnSpec kColumns[] = {{"event_id", row::ColumnType::kString},
                                          {"type", row::ColumnType::kString, true},
                                          {"time", row::ColumnType::kTimestamp}};
  const TableSpec events = SpecOf(row::ColumnTable{"events", kColumns, 2, 0, 1});
  ASSERT_EQ(events.partition.size(), 2u);
  EXPECT_EQ(events.partition[0].source_id, 3);
  EXPECT_EQ(events.partition[1].name, "type");
  EXPECT_EQ(events.partition[1].source_id, 2);
  constexpr row::ColumnSpec kPlain[] = {{"event_id", row::ColumnType::kString},
                                        {"time", row::ColumnType::kTimestamp}};
  EXPECT_EQ(SpecOf(row::ColumnTable{"audit", kPlain, 1, 0, 1}).partition.size(), 1u);
}

TEST(TableMetadata, AppendsChainTheirTotalsSequenceNumbersAndLogs) {
  TableMetadata m = NewTable(SpecOf(row::kLedgerColumns), "u", "file:///t", 100);
  EXPECT_EQ(m.Current(), nullptr);
  const auto json0 = nlohmann::json::parse(ToJson(m));
  EXPECT_EQ(json0["current-snapshot-id"], -1);
  EXPECT_TRUE(json0["refs"].empty());
  m = WithSnapshot(m, AppendSnapshot(m, 11, 200, "file:///t/metadata/a.avro", {2, 30, 4000, 2}, {}),
                   200, "file:///t/metadata/v1.metadata.json");
  m = WithSnapshot(m,
                   AppendSnapshot(m, 12, 300, "file:///t/metadata/b.avro", {1, 5, 600, 1},
                                  {{"sinkd.source", "GARM_LEDGER"}}),
                   300, "file:///t/metadata/v2.metadata.json");
  const auto json = nlohmann::json::parse(ToJson(m));
  EXPECT_EQ(json["format-version"], 2);
  EXPECT_EQ(json["last-sequence-number"], 2);
  EXPECT_EQ(json["current-snapshot-id"], 12);
  EXPECT_EQ(json["refs"]["main"]["snapshot-id"], 12);
  EXPECT_EQ(json["refs"]["main"]["type"], "branch");
  const auto& second = json["snapshots"][1];
  EXPECT_EQ(second["parent-snapshot-id"], 11);
  EXPECT_EQ(second["sequence-number"], 2);
  EXPECT_EQ(second["summary"]["operation"], "append");
  EXPECT_EQ(second["summary"]["added-records"], "5");
  EXPECT_EQ(second["summary"]["total-records"], "35");
  EXPECT_EQ(second["summary"]["total-data-files"], "3");
  EXPECT_EQ(second["summary"]["total-files-size"], "4600");
  EXPECT_EQ(second["summary"]["sinkd.source"], "GARM_LEDGER");
  EXPECT_FALSE(json["snapshots"][0].contains("parent-snapshot-id"));
  EXPECT_EQ(json["snapshot-log"].size(), 2u);
  EXPECT_EQ(json["metadata-log"].size(), 2u);
  EXPECT_EQ(json["metadata-log"][1]["metadata-file"], "file:///t/metadata/v2.metadata.json");
  EXPECT_EQ(json["properties"]["write.parquet.compression-codec"], "zstd");
  const auto mapping =
      nlohmann::json::parse(json["properties"]["schema.name-mapping.default"].get<std::string>());
  EXPECT_EQ(mapping.size(), 40u);
  EXPECT_EQ(mapping[39]["names"][0], "execution_subject");
  EXPECT_GT(SnapshotIdFrom(~0ull), 0);
  EXPECT_EQ(SnapshotIdFrom(0), 1);
}

TEST(TableMetadata, ToJsonIsWhatNlohmannsDumpOfItsParseGives) {
  // ToJson writes the text itself; nlohmann's compact dump of the parsed text is the reference:
  // the same members in the same order, strings escaped alike, a repeated summary key once.
  TableMetadata m = NewTable(SpecOf(row::kLedgerColumns), "u-\"quoted\"", "file:///t/ä", 100);
  const std::string awkward =
      std::string("a\\b\"c\n\t\r\b\f") + '\x01' + '\x1f' + '\x7f' + std::string(1, '\0') + "end";
  // Not ASCII: written by nlohmann's serializer; the ASCII above by ToJson's own escaping.
  const std::string accented = awkward + "é→";
  m.properties.emplace_back("sinkd.awkward", awkward);
  const std::string no_table = ToJson(m);
  EXPECT_EQ(nlohmann::ordered_json::parse(no_table).dump(), no_table);
  for (int64_t i = 1; i <= 3; ++i) {
    Summary extra = {{"sinkd.commit-id", "c" + std::to_string(i)},
                     {"sinkd.positions", awkward},
                     {"sinkd.note", accented}};
    if (i == 2) extra.emplace_back("sinkd.commit-id", "repeated");
    m = WithSnapshot(m,
                     AppendSnapshot(m, 10 + i, 100 * i, "file:///t/metadata/l" + awkward + ".avro",
                                    {1, 2, 3, 1}, extra),
                     100 * i, "file:///t/metadata/v" + std::to_string(i) + ".metadata.json");
  }
  const std::string text = ToJson(m);
  const auto parsed = nlohmann::ordered_json::parse(text);
  EXPECT_EQ(parsed.dump(), text);
  EXPECT_EQ(parsed["snapshots"][1]["summary"]["sinkd.commit-id"], "repeated");
  EXPECT_EQ(parsed["snapshots"][1]["summary"]["sinkd.positions"], awkward);
  EXPECT_EQ(parsed["snapshots"][2]["summary"]["sinkd.note"], accented);
  EXPECT_EQ(parsed["properties"]["sinkd.awkward"], awkward);
  EXPECT_EQ(parsed["location"], "file:///t/ä");
  Result<TableMetadata> back = ParseTableMetadata(text);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(ToJson(*back), text);
}

}  // namespace
}  // namespace sinkd::iceberg
