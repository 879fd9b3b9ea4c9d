// `sinkd table info`: a table committed with the files catalog (real Parts, three appends each
// recording its flush's stream sequences) is described from its newest metadata, found past a
// stale hint: metadata location, format version, current snapshot, snapshots, data files,
// records, bytes, manifests and committed positions; a lake without a table exits 1.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_help.h"
#include "iceberg/committers.h"
#include "lake/dir_destination.h"

namespace sinkd::testing {
namespace {

TEST(TableInfo, DescribesTheNewestMetadataWithItsTotalsAndCommittedPositions) {
  TempDir tmp;
  const std::string lake = (tmp / "lake").string();
  const std::vector<std::string> info = {"table", "info", "ledger", "--lake-dir", lake};
  CommandResult none = SinkdWithoutServers(info);
  EXPECT_EQ(none.exit_code, 1) << none.err;
  EXPECT_NE(none.err.find("no Iceberg table at file://" + lake + "/ledger"), std::string::npos)
      << none.err;

  auto dir = lake::DirDestination::Make(lake);
  ASSERT_TRUE(dir.ok());
  ASSERT_TRUE((*dir)->Ensure().ok());
  iceberg::FilesCatalog catalog(**dir, (*dir)->Uri(), "ledger",
                                iceberg::SpecOf(row::kLedgerColumns));
  const std::string stream = iceberg::StreamIdentity("GARM_LEDGER", "2026-01-01T00:00:00Z");
  const iceberg::Committed committed = iceberg::CommitFlushes(**dir, catalog, "t", 3, 8, stream);
  ASSERT_EQ(committed.commit_ids.size(), 3u);
  // A committer that died before its hint: info probes past it as a commit would.
  ASSERT_TRUE((*dir)->Replace("ledger/metadata/version-hint.text", "1").ok());
  uint64_t parts = 0, bytes = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(tmp / "lake/ledger")) {
    if (e.path().extension() == ".parquet") {
      ++parts;
      bytes += e.file_size();
    }
  }

  CommandResult r = SinkdWithoutServers(Plus(info, {"--json"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["location"], "file://" + lake + "/ledger");
  EXPECT_EQ(j["metadata"], "file://" + lake + "/ledger/metadata/v3.metadata.json");
  EXPECT_EQ(j["version"], 3);
  EXPECT_EQ(j["version_hint"], 1);
  EXPECT_EQ(j["format_version"], 2);
  EXPECT_EQ(j["snapshots"], 3);
  EXPECT_EQ(j["data_files"], parts);
  EXPECT_EQ(j["records"], 24);
  EXPECT_EQ(j["bytes"], bytes);
  EXPECT_EQ(j["manifests"], 3);
  EXPECT_TRUE(j["current_snapshot"].is_number_integer());
  EXPECT_EQ(j["positions"]["streams"][stream], nlohmann::json::parse("[[1,24]]"));

  r = SinkdWithoutServers(info);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("committed         stream " + stream + ": 1-24"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("records           24"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace sinkd::testing
