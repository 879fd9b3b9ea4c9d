// `sinkd compact --table-format iceberg` through the binary on a directory lake whose table an
// import with --table-format iceberg filled: each merge one replace snapshot, only Parts the table
// holds merged (a Part beside it that the table does not name stays out of it), no file a retained
// snapshot names deleted whatever the grace, and `sinkd table expire` then deleting the inputs.
// Read by icebird (from the table, and from an older metadata version: time travel), python3-avro
// (every manifest) and DuckDB (the files the manifests list).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <thread>

#include "cli_help.h"
#include "iceberg/committers.h"
#include "outbox/process.h"
#include "support/lake_files.h"
#include "table_files.h"

namespace sinkd::testing {
namespace {

using namespace std::chrono_literals;

CommandResult RunSinkd(std::vector<std::string> args) {
  args.insert(args.begin(), SinkdBinary().string());
  return RunCommand(args, "", 120s, {"LAKE_DIR=", "AWS_ENDPOINT_URL=", "S3_BUCKET="});
}

std::set<std::string> EventIds(const nlohmann::json& read) {
  std::set<std::string> ids;
  for (const auto& row : read["rows"]) ids.insert(row["event_id"].get<std::string>());
  return ids;
}

nlohmann::json TableInfo(const std::string& lake) {
  const CommandResult info = RunSinkd({"table", "info", "ledger", "--lake-dir", lake, "--json"});
  EXPECT_EQ(info.exit_code, 0) << info.err;
  return nlohmann::json::parse(info.out, nullptr, false);
}

// The numbers of compact's "table ledger: …" line.
struct TableLine {
  long replaces = -1, dropped = -1, outside = -1, retained = -1;
  double table_seconds = -1;
};
TableLine TableLineOf(const std::string& out) {
  TableLine t;
  const std::regex line(
      R"(table ledger: iceberg, ([0-9]+) replace snapshots committed, ([0-9]+) merges dropped .*, )"
      R"(([0-9]+) objects outside the current snapshot left alone, ([0-9]+) deletions left .*, )"
      R"(([0-9.]+) s reading and committing the table)");
  std::smatch m;
  if (std::regex_search(out, m, line)) {
    t.replaces = std::stol(m[1]);
    t.dropped = std::stol(m[2]);
    t.outside = std::stol(m[3]);
    t.retained = std::stol(m[4]);
    t.table_seconds = std::stod(m[5]);
  }
  return t;
}

// A lake whose table an import filled in flushes of 150 rows, and beside it Parts of another
// recording imported without the table (what a flush whose commit failed leaves: on disk, not
// the table's).
struct TableLake {
  TempDir dir;
  std::string lake = (dir / "lake").string();
  std::set<std::string> outside;  // the keys of the Parts the table does not hold
  bool Make() {
    const std::string wire = (dir / "ledger.bin").string();
    const std::string other = (dir / "other.bin").string();
    for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
             {"generate", "ledger", "--messages", "60", "--events-per-batch", "50", "--seed", "5",
              "-o", wire},
             {"generate", "ledger", "--messages", "6", "--events-per-batch", "50", "--seed", "77",
              "-o", other},
             {"import", "ledger", "--lake-dir", lake, "--instance-id", "a", "--batch-max-rows",
              "150", "--table-format", "iceberg", wire}}) {
      const CommandResult r = RunSinkd(args);
      if (r.exit_code != 0) {
        ADD_FAILURE() << args[0] << ": " << r.err;
        return false;
      }
    }
    const std::set<std::string> before = LakeKeys(lake);
    const CommandResult r = RunSinkd({"import", "ledger", "--lake-dir", lake, "--instance-id", "x",
                                      "--batch-max-rows", "100", other});
    if (r.exit_code != 0) {
      ADD_FAILURE() << r.err;
      return false;
    }
    for (const std::string& key : LakeKeys(lake)) {
      if (!before.count(key)) outside.insert(key);
    }
    return !outside.empty();
  }
  std::string Table() const { return "file://" + lake + "/ledger"; }
  std::vector<std::string> Compact(const std::string& grace = "0s") const {
    return {"compact", "ledger",      "--lake-dir", lake,      "--table-format",
            "iceberg", "--min-parts", "2",          "--grace", grace};
  }
};

// Compacting a table's Parts as loose files would delete, after the grace, inputs the table's
// snapshots name. Failed before the refusal: the pass merged (exit 0) and wrote outputs.
TEST(TableCompact, WithoutTheTableFormatALakeKeepingATableIsRefusedAndNoFileIsTouched) {
  TableLake t;
  ASSERT_TRUE(t.Make());
  const std::set<std::string> before = LakeKeys(t.lake);
  for (const bool dry_run : {false, true}) {
    std::vector<std::string> args = {"compact", "ledger",  "--lake-dir", t.lake,
                                     "--min-parts", "2", "--grace", "0s"};
    if (dry_run) args.push_back("--dry-run");
    const CommandResult r = RunSinkd(args);
    EXPECT_EQ(r.exit_code, 2) << "dry run " << dry_run << ": " << r.out << r.err;
    EXPECT_NE(r.err.find("keeps an Iceberg table over ledger's Parts (ledger/metadata/v"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("give --table-format iceberg"), std::string::npos) << r.err;
  }
  EXPECT_EQ(LakeKeys(t.lake), before) << "no Part merged, none deleted";
  // The same lake through its table compacts.
  const CommandResult through = RunSinkd(t.Compact());
  EXPECT_EQ(through.exit_code, 0) << through.err;
  EXPECT_GT(TableLineOf(through.out).replaces, 0) << through.out;
}

// A table made after a --follow compactor started: its next pass refuses and the service ends.
// Failed before the per-pass look: it compacted on as `none`, never exiting.
TEST(TableCompact, AFollowingCompactorEndsWhenATableAppearsInItsLake) {
  TableLake t;
  const std::string wire = (t.dir / "ledger.bin").string();
  ASSERT_EQ(RunSinkd({"generate", "ledger", "--messages", "6", "--events-per-batch", "20", "--seed",
                      "9", "-o", wire})
                .exit_code,
            0);
  ASSERT_EQ(RunSinkd({"import", "ledger", "--lake-dir", t.lake, "--instance-id", "a", wire})
                .exit_code,
            0);
  outbox::testing::Background compactor(
      {SinkdBinary().string(), "compact", "ledger", "--lake-dir", t.lake, "--follow", "--every",
       "1s", "--min-parts", "2", "--grace", "1h"},
      t.dir / "compact.log");
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  ASSERT_EQ(compactor.Wait(std::chrono::milliseconds(1)), -1)
      << "a lake without a table is compacted: " << compactor.Log();
  ASSERT_EQ(RunSinkd({"import", "ledger", "--lake-dir", t.lake, "--instance-id", "b",
                      "--table-format", "iceberg", wire})
                .exit_code,
            0);
  EXPECT_EQ(compactor.Wait(std::chrono::seconds(30)), 2) << compactor.Log();
  EXPECT_NE(compactor.Log().find("keeps an Iceberg table over ledger's Parts"), std::string::npos)
      << compactor.Log();
}

TEST(TableCompact, EachMergeIsOneReplaceAndTheTableHoldsEveryEventOnceAfterTwoPassesWithNoGrace) {
  TableLake t;
  ASSERT_TRUE(t.Make());
  const std::set<std::string> events = EventIds(iceberg::IcebirdRead(t.Table()));
  ASSERT_GT(events.size(), 1000u);
  const nlohmann::json before = TableInfo(t.lake);
  const long appends = before["snapshots"].get<long>();
  ASSERT_GE(appends, 10) << before.dump();

  const CommandResult first = RunSinkd(t.Compact());
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const TableLine one = TableLineOf(first.out);
  EXPECT_GT(one.replaces, 0) << first.out;
  EXPECT_EQ(one.dropped, 0) << first.out;
  EXPECT_EQ(one.outside, static_cast<long>(t.outside.size())) << first.out;
  EXPECT_GT(one.table_seconds, 0.0) << "the pass read the table and committed: " << first.out;
  // The second pass finds the first one's outputs older than --grace 0s: their inputs are due by
  // the glob view's rule, but the imports' snapshots still name them.
  const CommandResult second = RunSinkd(t.Compact());
  ASSERT_EQ(second.exit_code, 0) << second.err;
  const TableLine two = TableLineOf(second.out);
  EXPECT_GT(two.retained, 0) << second.out;

  const nlohmann::json after = TableInfo(t.lake);
  EXPECT_EQ(after["snapshots"].get<long>(), appends + one.replaces + two.replaces) << after.dump();
  EXPECT_EQ(after["records"], events.size()) << after.dump();
  EXPECT_EQ(after["positions"], before["positions"]) << "the positions are carried";

  // icebird finds the table itself and reads every event once, none of the Parts beside it.
  const nlohmann::json read = iceberg::IcebirdRead(t.Table());
  EXPECT_EQ(read["rows"].size(), events.size());
  EXPECT_EQ(EventIds(read), events);

  // DuckDB over the files the current snapshot's manifests list: each exists, every event once.
  const std::vector<std::string> files = ManifestFiles(after["metadata"].get<std::string>());
  std::string list;
  size_t outputs = 0;
  for (const std::string& f : files) {
    EXPECT_TRUE(std::filesystem::exists(f)) << f;
    if (std::filesystem::path(f).filename().string().starts_with("compact-")) ++outputs;
    list += (list.empty() ? "" : ", ") + SqlQuote(f);
  }
  EXPECT_GT(outputs, 0u);
  EXPECT_LT(files.size(), static_cast<size_t>(before["data_files"].get<long>()));
  const QueryResult q =
      DuckDb("SELECT count(*), count(DISTINCT event_id) FROM read_parquet([" + list + "])");
  ASSERT_TRUE(q.ok) << q.error;
  EXPECT_EQ(q.rows[0][0], std::to_string(events.size()));
  EXPECT_EQ(q.rows[0][1], std::to_string(events.size()));

  // Every file any snapshot the metadata keeps names is still there (an engine may read any of
  // them), and icebird reads the first import flush's snapshot from v1.
  for (const std::string& f : ManifestFiles(after["metadata"].get<std::string>(), true)) {
    EXPECT_TRUE(std::filesystem::exists(f)) << "a retained snapshot names a deleted file: " << f;
  }
  const CommandResult v1 = RunCommand({"node", (SourceDir() / "tools/icebird-read.mjs").string(),
                                       t.Table(), "--metadata", "v1.metadata.json"});
  ASSERT_EQ(v1.exit_code, 0) << v1.err;
  const nlohmann::json v1_rows = nlohmann::json::parse(v1.out, nullptr, false);
  ASSERT_FALSE(v1_rows.is_discarded()) << v1.out;
  EXPECT_GT(v1_rows["rows"].size(), 0u);
  EXPECT_LE(v1_rows["rows"].size(), 150u) << "v1 holds the first flush alone";
  // The Parts the table does not hold were neither merged nor deleted.
  const std::set<std::string> keys = LakeKeys(t.lake);
  for (const std::string& key : t.outside) EXPECT_TRUE(keys.count(key)) << key;
}

}  // namespace
}  // namespace sinkd::testing
