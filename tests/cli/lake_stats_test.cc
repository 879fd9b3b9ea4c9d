// `sinkd lake stats` through the binary on a directory lake written by `sinkd import`: each
// partition's figures are those of its files on disk and of DuckDB's count of its rows, before
// and after a compaction pass (whose inputs then count as superseded, not as live Parts). The
// same command on a bucket: tests/s3/cli_test.cc.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>

#include "support/lake_files.h"
#include "support/support.h"

namespace sinkd {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using testing::RunCommand;
using testing::SinkdBinary;

testing::CommandResult Sinkd(std::vector<std::string> args) {
  args.insert(args.begin(), SinkdBinary().string());
  return RunCommand(args, "", 120s, {"LAKE_DIR=", "AWS_ENDPOINT_URL=", "S3_BUCKET="});
}

struct DiskFigures {
  uint64_t parts = 0, bytes = 0, small = 0;
};

// Per partition directory ("ledger/date=…/app=…"): the .parquet files under it, as on disk.
std::map<std::string, DiskFigures> OnDisk(const fs::path& lake, uint64_t small_below) {
  std::map<std::string, DiskFigures> out;
  for (const fs::path& p : testing::LakeFiles(lake / "ledger")) {
    DiskFigures& f = out[fs::relative(p.parent_path(), lake).generic_string()];
    const uint64_t size = fs::file_size(p);
    ++f.parts;
    f.bytes += size;
    if (size < small_below) ++f.small;
  }
  return out;
}

TEST(LakeStats, EachPartitionsFiguresAreItsFilesOnDiskAndTheRowsDuckDbCounts) {
  testing::TempDir dir;
  const fs::path lake = dir / "lake";
  const std::string wire = (dir / "ledger.bin").string();
  ASSERT_EQ(Sinkd({"generate", "ledger", "--messages", "30", "--events-per-batch", "50", "--seed",
                   "5", "-o", wire})
                .exit_code,
            0);
  auto imported = Sinkd({"import", "ledger", "--lake-dir", lake.string(), "--instance-id", "a",
                         "--batch-max-rows", "150", wire});
  ASSERT_EQ(imported.exit_code, 0) << imported.err;

  auto stats = Sinkd({"lake", "stats", "ledger", "--lake-dir", lake.string(), "--json",
                      "--target-bytes", "1MiB"});
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  nlohmann::json j = nlohmann::json::parse(stats.out);
  EXPECT_EQ(j["columns"], nlohmann::json::array({"app"}));
  EXPECT_EQ(j["small_below_bytes"], 512 * 1024);
  const auto disk = OnDisk(lake, 512 * 1024);
  ASSERT_EQ(j["partitions"].size(), disk.size()) << stats.out;
  auto counted = testing::DuckDb(
      "SELECT CAST(date AS VARCHAR), app, count(*) FROM read_parquet(" +
      testing::SqlQuote((lake / "ledger/**/*.parquet").string()) +
      ", hive_partitioning=true) GROUP BY ALL ORDER BY ALL");
  ASSERT_TRUE(counted.ok) << counted.error;
  std::map<std::string, uint64_t> rows;
  for (const auto& r : counted.rows) rows["ledger/date=" + r[0] + "/app=" + r[1]] = std::stoull(r[2]);
  uint64_t parts = 0, bytes = 0, all_rows = 0;
  for (const auto& p : j["partitions"]) {
    const std::string partition = p["partition"];
    ASSERT_TRUE(disk.count(partition)) << partition;
    const DiskFigures& f = disk.at(partition);
    EXPECT_EQ(p["parts"], f.parts) << partition;
    EXPECT_EQ(p["bytes"], f.bytes) << partition;
    EXPECT_EQ(p["small_parts"], f.small) << partition;
    EXPECT_EQ(p["rows"], rows[partition]) << partition;
    EXPECT_EQ(p["superseded_parts"], 0) << partition;
    EXPECT_EQ(partition, "ledger/date=" + p["date"].get<std::string>() +
                             "/app=" + p["values"]["app"].get<std::string>());
    parts += f.parts;
    bytes += f.bytes;
    all_rows += rows[partition];
  }
  EXPECT_EQ(j["total"]["parts"], parts);
  EXPECT_EQ(j["total"]["bytes"], bytes);
  EXPECT_EQ(j["total"]["rows"], all_rows);

  // After a pass (grace 1h), each partition's live Part is its output, its inputs superseded.
  auto compacted = Sinkd({"compact", "ledger", "--lake-dir", lake.string(), "--min-parts", "2"});
  ASSERT_EQ(compacted.exit_code, 0) << compacted.err;
  stats = Sinkd({"lake", "stats", "ledger", "--lake-dir", lake.string(), "--json"});
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  j = nlohmann::json::parse(stats.out);
  const auto after = OnDisk(lake, UINT64_MAX);
  uint64_t live = 0, superseded = 0;
  for (const auto& p : j["partitions"]) {
    const std::string partition = p["partition"];
    EXPECT_EQ(p["rows"], rows[partition]) << "one row per event: " << partition;
    EXPECT_EQ(p["parts"].get<uint64_t>() + p["superseded_parts"].get<uint64_t>(),
              after.at(partition).parts)
        << partition;
    live += p["parts"].get<uint64_t>();
    superseded += p["superseded_parts"].get<uint64_t>();
  }
  EXPECT_GT(superseded, 0u) << stats.out;
  EXPECT_EQ(j["total"]["superseded_parts"], superseded);
  EXPECT_EQ(j["total"]["parts"], live);

  // The text form: the summary, a header naming the partition column, one line per partition.
  stats = Sinkd({"lake", "stats", "ledger", "--lake-dir", lake.string()});
  ASSERT_EQ(stats.exit_code, 0) << stats.err;
  EXPECT_NE(stats.out.find("lake stats ledger (dir " + lake.string() + "): " +
                           std::to_string(disk.size()) + " partitions; " + std::to_string(live) +
                           " Parts, " + std::to_string(all_rows) + " rows"),
            std::string::npos)
      << stats.out;
  EXPECT_NE(stats.out.find("\ndate        app "), std::string::npos) << stats.out;

  // An unreadable Part is named and exits 1; a wrong table or size is a usage error.
  const fs::path bad = lake / "ledger/date=2026-01-01/app=x/part-broken.parquet";
  fs::create_directories(bad.parent_path());
  testing::WriteFile(bad.string(), "PAR1 not a Parquet file PAR1");
  stats = Sinkd({"lake", "stats", "ledger", "--lake-dir", lake.string()});
  EXPECT_EQ(stats.exit_code, 1) << stats.err;
  EXPECT_NE(stats.err.find("part-broken.parquet"), std::string::npos) << stats.err;
  EXPECT_EQ(Sinkd({"lake", "stats", "journal", "--lake-dir", lake.string()}).exit_code, 2);
  EXPECT_EQ(
      Sinkd({"lake", "stats", "ledger", "--lake-dir", lake.string(), "--target-bytes", "10"})
          .exit_code,
      2);
}

}  // namespace
}  // namespace sinkd
