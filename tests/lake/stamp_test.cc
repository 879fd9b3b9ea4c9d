// Flush stamps: every Part's footer names the flush it came from and every sequence that flush
// acknowledged, read back by DuckDB (a reader that shares nothing with the writer).
#include "lake/stamp.h"

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "lake/dir_destination.h"
#include "lake/lake_writer.h"
#include "support/ledger_rows.h"
#include "support/support.h"
#include "table/footer.h"

namespace sinkd::lake {
namespace {

namespace fs = std::filesystem;

TEST(FlushStamp, RangesMergeNeighboursAndRepeatsAndNameThemShortly) {
  EXPECT_EQ(ToRanges({5, 1, 2, 2, 3, 9, 8, 11}),
            (std::vector<SequenceRange>{{1, 3}, {5, 5}, {8, 9}, {11, 11}}));
  EXPECT_EQ(FormatRanges(ToRanges({5, 1, 2, 3, 9, 8})), "1-3,5,8-9");
  EXPECT_TRUE(ToRanges({}).empty());
}

TEST(FlushStamp, WhatIsWrittenParsesBackToTheSameFields) {
  FlushStamp s;
  s.instance = "box-1";
  s.source = "outbox:lake";
  s.scope = "outbox";
  s.first = 4;
  s.last = 90;
  s.first_txid = 700;
  s.last_txid = 702;
  s.acked = {{4, 10}, {12, 90}};
  s.parts = 3;
  s.rows = 80;
  s.n = 2;
  s.key = "outbox/date=2026-01-01/type=a/part-box-1-4-90-2.parquet";
  s.part_rows = 7;
  auto back = ParseStamps(StampsJson(s));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->size(), 1u);
  EXPECT_EQ(StampJson((*back)[0]), StampJson(s));
  EXPECT_EQ((*back)[0].last_txid, 702u);
}

TEST(FlushStamp, AStampThatIsNotOneIsRefusedNamingTheField) {
  auto bad = ParseStamps(R"([{"instance":"a","source":"s","scope":"stream","first":1}])");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("last"), std::string::npos) << bad.status().message();
  EXPECT_FALSE(ParseStamps("{}").ok());
  EXPECT_FALSE(ParseStamps("not json").ok());
}

// Every Part of a flush carries the flush (instance, source, range, every acknowledged sequence,
// how many Parts and rows it wrote) and itself (its n, its key, its rows), so a missing Part can
// be told from the ones that are there.
TEST(FlushStamp, EveryPartOfAFlushNamesTheFlushAndItselfInItsFooter) {
  testing::TempDir tmp;
  auto dest = DirDestination::Make(tmp.path().string());
  ASSERT_TRUE(dest.ok());
  ASSERT_TRUE((*dest)->Ensure().ok());
  LakeWriterOptions options;
  options.key_prefix = "ledger";
  options.instance = "box-5";
  row::RowBuffer rows = testing::GeneratedLedgerRows(21, 8);
  Provenance provenance{"GARM_LEDGER", 3, 12};
  provenance.acknowledged = {{3, 7}, {9, 12}};  // 8 went to another flush
  auto report = LakeWriter(**dest, options).Flush(rows, provenance);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  ASSERT_GE(report->parts.size(), 2u) << "the premise: a flush of several Parts";

  const auto values =
      testing::FooterValues((tmp / "ledger/**/*.parquet").string(), std::string(table::kStampsKey));
  ASSERT_EQ(values.size(), report->parts.size());
  const auto counted = testing::DuckDb(
      "SELECT filename, count(*) FROM read_parquet(" +
      testing::SqlQuote((tmp / "ledger/**/*.parquet").string()) + ", filename=true) GROUP BY ALL");
  ASSERT_TRUE(counted.ok) << counted.error;
  std::map<std::string, std::string> rows_in;
  for (const auto& row : counted.rows) rows_in[row[0]] = row[1];
  std::set<uint64_t> ns;
  uint64_t rows_seen = 0;
  for (const auto& [file, value] : values) {
    const nlohmann::json stamps = nlohmann::json::parse(value);
    ASSERT_TRUE(stamps.is_array());
    ASSERT_EQ(stamps.size(), 1u) << "one element for a Part a flush wrote";
    const nlohmann::json& s = stamps[0];
    EXPECT_EQ(s["instance"], "box-5");
    EXPECT_EQ(s["source"], "GARM_LEDGER");
    EXPECT_EQ(s["scope"], "stream");
    EXPECT_EQ(s["first"], 3);
    EXPECT_EQ(s["last"], 12);
    EXPECT_EQ(s["acked"], nlohmann::json::parse("[[3,7],[9,12]]"));
    EXPECT_EQ(s["parts"], report->parts.size());
    EXPECT_EQ(s["rows"], rows.rows());
    EXPECT_EQ(fs::path(file), tmp / s["key"].get<std::string>()) << "the Part's own key";
    ns.insert(s["n"].get<uint64_t>());
    EXPECT_EQ(std::to_string(s["part_rows"].get<uint64_t>()), rows_in[file]);
    rows_seen += s["part_rows"].get<uint64_t>();
  }
  EXPECT_EQ(ns.size(), report->parts.size()) << "n counts the flush's Parts, each once";
  EXPECT_EQ(*ns.rbegin(), report->parts.size() - 1);
  EXPECT_EQ(rows_seen, rows.rows());
}

// A Part placed under an alternative (its key held other bytes) keeps the key the flush meant:
// its bytes do not depend on where it landed, so a redelivery still finds them in place.
TEST(FlushStamp, APartUnderAnAlternativeNamesThePlainKeyAndIsFoundInPlaceAgain) {
  testing::TempDir tmp;
  auto dest = DirDestination::Make(tmp.path().string());
  ASSERT_TRUE(dest.ok());
  ASSERT_TRUE((*dest)->Ensure().ok());
  LakeWriterOptions options;
  options.key_prefix = "ledger";
  options.instance = "box-6";
  LakeWriter writer(**dest, options);
  row::RowBuffer first = testing::GeneratedLedgerRows(31, 2);
  ASSERT_TRUE(writer.Flush(first, {"GARM_LEDGER", 1, 2}).ok());
  row::RowBuffer other = testing::GeneratedLedgerRows(32, 2);
  auto moved = writer.Flush(other, {"GARM_LEDGER", 1, 2});
  ASSERT_TRUE(moved.ok()) << moved.status().ToString();
  const PartReport& part = moved->parts[0];
  ASSERT_NE(part.key.find("part-box-6.1-"), std::string::npos) << part.key;
  const auto values =
      testing::FooterValues((tmp / part.key).string(), std::string(table::kStampsKey));
  ASSERT_EQ(values.size(), 1u);
  auto stamps = ParseStamps(values[0].second);
  ASSERT_TRUE(stamps.ok()) << stamps.status().ToString();
  std::string plain = part.key;
  plain.replace(plain.find("box-6.1-"), 8, "box-6-");
  EXPECT_EQ((*stamps)[0].key, plain);
  auto again = writer.Flush(other, {"GARM_LEDGER", 1, 2});
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->parts[0].found_in_place);
  EXPECT_EQ(again->parts[0].key, part.key);
}

}  // namespace
}  // namespace sinkd::lake
