// `sinkd table expire` and `sinkd table orphans` on a directory table committed with the files
// catalog (real Parts): expire drops the snapshots a compaction made old and deletes the inputs
// only those named (a dry run first names them and deletes nothing); orphans lists a Part no
// snapshot names and deletes it with --delete; both exit 1 where there is no table. A table whose
// snapshots `sinkd import` committed (no source positions of its own) expires as a drain's does,
// and one a drain began keeps its positions through imports and expiry.
#include <gtest/gtest.h>

#include <thread>

#include "cli_help.h"
#include "iceberg/committers.h"
#include "lake/dir_destination.h"
#include "table_files.h"

namespace sinkd::testing {
namespace {

size_t CountLines(const std::string& text, const std::string& start) {
  size_t n = 0;
  for (size_t at = 0; at < text.size();) {
    const size_t end = text.find('\n', at);
    if (text.compare(at, start.size(), start) == 0) ++n;
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return n;
}

TEST(TableMaintenance, ExpireDeletesACompactionsInputsAndOrphansFindsAnUncommittedPart) {
  TempDir tmp;
  const std::string lake = (tmp / "lake").string();
  const std::vector<std::string> expire = {"table",        "expire", "ledger",  "--lake-dir", lake,
                                           "--older-than", "0s",     "--grace", "0s"};
  const std::vector<std::string> orphans = {"table", "orphans",      "ledger", "--lake-dir",
                                            lake,    "--older-than", "0s"};
  EXPECT_EQ(SinkdWithoutServers(expire).exit_code, 1) << "no table yet";
  EXPECT_EQ(SinkdWithoutServers(orphans).exit_code, 1);

  auto dir = lake::DirDestination::Make(lake);
  ASSERT_TRUE(dir.ok());
  ASSERT_TRUE((*dir)->Ensure().ok());
  iceberg::FilesCatalog catalog(**dir, (*dir)->Uri(), "ledger",
                                iceberg::SpecOf(row::kLedgerColumns));
  const std::string stream = iceberg::StreamIdentity("GARM_LEDGER", "2026-01-01T00:00:00Z");
  const iceberg::Committed committed = iceberg::CommitFlushes(**dir, catalog, "t", 3, 8, stream);
  ASSERT_EQ(committed.commit_ids.size(), 3u);
  const std::vector<iceberg::DataFile> inputs = iceberg::LiveFiles(**dir, catalog);
  iceberg::Replace replace;
  for (const iceberg::DataFile& f : inputs) replace.removed.push_back(f.path);
  replace.added = iceberg::Rewritten(**dir, catalog, "t", 0, 24, "compactor");
  ASSERT_TRUE(catalog.CommitReplace(replace).ok());

  // Within the glob view's grace (1h by default) of the replace, the inputs stay.
  CommandResult graced = SinkdWithoutServers(
      {"table", "expire", "ledger", "--lake-dir", lake, "--older-than", "0s", "--dry-run"});
  ASSERT_EQ(graced.exit_code, 0) << graced.err;
  EXPECT_EQ(CountLines(graced.out, "kept snapshot "), 1u) << graced.out;
  EXPECT_NE(graced.out.find("would expire 2 snapshots"), std::string::npos) << graced.out;
  EXPECT_EQ(graced.out.find("would delete " + inputs[0].path), std::string::npos) << graced.out;

  CommandResult dry = SinkdWithoutServers(Plus(expire, {"--dry-run"}));
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find("would expire 3 snapshots"), std::string::npos) << dry.out;
  for (const iceberg::DataFile& f : inputs) {
    EXPECT_NE(dry.out.find("would delete " + f.path + "\n"), std::string::npos) << dry.out;
    EXPECT_TRUE(std::filesystem::exists(f.path.substr(std::string("file://").size())));
  }

  CommandResult r = SinkdWithoutServers(expire);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("expired 3 snapshots (metadata v5)"), std::string::npos) << r.out;
  EXPECT_EQ(CountLines(r.out, "deleted file://"), CountLines(dry.out, "would delete file://"));
  for (const iceberg::DataFile& f : inputs) {
    EXPECT_FALSE(std::filesystem::exists(f.path.substr(std::string("file://").size())));
  }
  CommandResult info =
      SinkdWithoutServers({"table", "info", "ledger", "--lake-dir", lake, "--json"});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  const nlohmann::json j = nlohmann::json::parse(info.out, nullptr, false);
  EXPECT_EQ(j["snapshots"], 1);
  EXPECT_EQ(j["records"], 24);
  EXPECT_EQ(j["positions"]["streams"][stream], nlohmann::json::parse("[[1,24]]"))
      << "the positions survive expiry";

  // A flush whose commit failed: its Part is in the lake, in no snapshot.
  lake::LakeWriterOptions options;
  options.key_prefix = "ledger";
  options.instance = "failed";
  options.encode_threads = 1;
  lake::LakeWriter writer(**dir, options);
  row::RowBuffer batch(row::kLedgerColumns);
  AddLedgerRow(batch, "failed-1", 1'767'225'600'000'000, "billing");
  Result<lake::FlushReport> flushed = writer.Flush(batch, {"GARM_LEDGER", 25, 25});
  ASSERT_TRUE(flushed.ok());
  ASSERT_EQ(flushed->parts.size(), 1u);
  const std::filesystem::path orphan = tmp / "lake" / flushed->parts[0].key;
  std::this_thread::sleep_for(std::chrono::milliseconds(20));

  CommandResult listed = SinkdWithoutServers(orphans);
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_EQ(CountLines(listed.out, "orphan "), 1u) << listed.out;
  EXPECT_NE(listed.out.find("orphan file://" + orphan.string()), std::string::npos) << listed.out;
  EXPECT_TRUE(std::filesystem::exists(orphan));
  CommandResult young = SinkdWithoutServers(
      {"table", "orphans", "ledger", "--lake-dir", lake});  // the default: 3 days
  ASSERT_EQ(young.exit_code, 0) << young.err;
  EXPECT_NE(young.out.find("0 orphans"), std::string::npos) << young.out;
  CommandResult removed = SinkdWithoutServers(Plus(orphans, {"--delete"}));
  ASSERT_EQ(removed.exit_code, 0) << removed.err;
  EXPECT_NE(removed.out.find("1 orphans"), std::string::npos) << removed.out;
  EXPECT_NE(removed.out.find("deleted 1"), std::string::npos) << removed.out;
  EXPECT_FALSE(std::filesystem::exists(orphan));
  EXPECT_TRUE(std::filesystem::exists(tmp / "lake/ledger/metadata/version-hint.text"));

  // The timer's way: the [iceberg] keys, no flags.
  row::RowBuffer again(row::kLedgerColumns);
  AddLedgerRow(again, "failed-2", 1'767'225'600'000'000, "billing");
  Result<lake::FlushReport> second = writer.Flush(again, {"GARM_LEDGER", 26, 26});
  ASSERT_TRUE(second.ok());
  const std::filesystem::path second_orphan = tmp / "lake" / second->parts[0].key;
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const std::string config = (tmp / "sinkd.toml").string();
  WriteFile(config, "[iceberg]\norphans_older_than = \"0s\"\norphans_delete = true\n");
  CommandResult by_file =
      SinkdWithoutServers({"table", "orphans", "ledger", "--lake-dir", lake, "--config", config});
  ASSERT_EQ(by_file.exit_code, 0) << by_file.err;
  EXPECT_NE(by_file.out.find("deleted 1"), std::string::npos) << by_file.out;
  EXPECT_FALSE(std::filesystem::exists(second_orphan));
}

CommandResult RunSinkd(std::vector<std::string> args) {
  args.insert(args.begin(), SinkdBinary().string());
  return RunCommand(args, "", std::chrono::seconds(120),
                    {"LAKE_DIR=", "AWS_ENDPOINT_URL=", "S3_BUCKET="});
}

nlohmann::json TableInfoJson(const std::string& lake) {
  const CommandResult info = RunSinkd({"table", "info", "ledger", "--lake-dir", lake, "--json"});
  EXPECT_EQ(info.exit_code, 0) << info.err;
  return nlohmann::json::parse(info.out, nullptr, false);
}

// Imports `runs` recordings into the table of `lake`, each its own run and flush: one snapshot
// each. Returns the good events imported.
long ImportRuns(const TempDir& dir, const std::string& lake, int runs) {
  long total = 0;
  for (int run = 1; run <= runs; ++run) {
    const std::string wire = (dir / ("run" + std::to_string(run) + ".bin")).string();
    const CommandResult gen =
        RunSinkd({"generate", "ledger", "--messages", "8", "--events-per-batch", "20", "--seed",
                  std::to_string(40 + run), "-o", wire});
    EXPECT_EQ(gen.exit_code, 0) << gen.err;
    long good = 0, bad = 0;
    EXPECT_EQ(std::sscanf(gen.out.c_str(), "generated 8 messages: %ld good events, %ld bad", &good,
                          &bad),
              2)
        << gen.out;
    const CommandResult r =
        RunSinkd({"import", "ledger", "--lake-dir", lake, "--instance-id",
                  "run" + std::to_string(run), "--table-format", "iceberg", wire});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    total += good;
  }
  return total;
}

// Failed before: every import snapshot carried no sinkd.positions, and expiry kept the whole chain
// down to the nearest snapshot carrying them — for an import-only table, every snapshot ("expired
// 0 snapshots"), so the Parts a compaction had replaced were never deleted.
TEST(TableMaintenance, AnImportOnlyTableExpiresLikeADrainsAndKeepsTheCurrentSnapshotsFiles) {
  TempDir tmp;
  const std::string lake = (tmp / "lake").string();
  const long good = ImportRuns(tmp, lake, 3);
  ASSERT_GT(good, 0);
  const nlohmann::json imported = TableInfoJson(lake);
  ASSERT_EQ(imported["snapshots"], 3) << imported.dump();
  // The imports' Parts, then a compaction replacing them: the inputs are named only by the
  // snapshots before the replace.
  const std::vector<std::string> inputs = ManifestFiles(imported["metadata"].get<std::string>());
  const CommandResult compacted =
      RunSinkd({"compact", "ledger", "--lake-dir", lake, "--table-format", "iceberg",
                "--min-parts", "2", "--grace", "0s"});
  ASSERT_EQ(compacted.exit_code, 0) << compacted.err;
  const nlohmann::json before = TableInfoJson(lake);
  const long snapshots = before["snapshots"].get<long>();
  ASSERT_GT(snapshots, 3) << "no replace committed: " << compacted.out;
  const std::vector<std::string> current = ManifestFiles(before["metadata"].get<std::string>());
  std::set<std::string> replaced(inputs.begin(), inputs.end());
  for (const std::string& f : current) replaced.erase(f);
  ASSERT_FALSE(replaced.empty()) << compacted.out;

  std::this_thread::sleep_for(std::chrono::milliseconds(1100));  // every snapshot older than 1s
  const CommandResult r =
      RunSinkd({"table", "expire", "ledger", "--lake-dir", lake, "--older-than", "1s",
                "--retain-last", "1", "--grace", "0s"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("expired " + std::to_string(snapshots - 1) + " snapshots"),
            std::string::npos)
      << r.out;
  const nlohmann::json after = TableInfoJson(lake);
  EXPECT_EQ(after["snapshots"], 1) << after.dump();
  EXPECT_EQ(after["current_snapshot"], before["current_snapshot"]);
  EXPECT_EQ(after["records"], good);
  for (const std::string& f : replaced) {
    EXPECT_FALSE(std::filesystem::exists(f)) << "only expired snapshots named " << f;
  }
  // Every file the kept snapshot names is there: DuckDB reads each event once from the manifests'
  // list, and icebird reads the table itself.
  const std::vector<std::string> kept = ManifestFiles(after["metadata"].get<std::string>(), true);
  EXPECT_EQ(std::set<std::string>(kept.begin(), kept.end()),
            std::set<std::string>(current.begin(), current.end()));
  std::string list;
  for (const std::string& f : kept) {
    EXPECT_TRUE(std::filesystem::exists(f)) << f;
    list += (list.empty() ? "" : ", ") + SqlQuote(f);
  }
  const QueryResult q =
      DuckDb("SELECT count(*), count(DISTINCT event_id) FROM read_parquet([" + list + "])");
  ASSERT_TRUE(q.ok) << q.error;
  EXPECT_EQ(q.rows[0][0], std::to_string(good));
  EXPECT_EQ(q.rows[0][1], std::to_string(good));
  const nlohmann::json read = iceberg::IcebirdRead("file://" + lake + "/ledger");
  EXPECT_EQ(read["rows"].size(), static_cast<size_t>(good));
}

// A table a drain began (its snapshot carries the stream's positions) and imports continued:
// expiry leaves the one current snapshot and the positions with it. Failed before: the imports'
// snapshots carried none, so expiry kept every one of them down to the drain's.
TEST(TableMaintenance, ImportsOnTopOfADrainsSnapshotCarryItsPositionsThroughExpiry) {
  TempDir tmp;
  const std::string lake = (tmp / "lake").string();
  auto dir = lake::DirDestination::Make(lake);
  ASSERT_TRUE(dir.ok());
  ASSERT_TRUE((*dir)->Ensure().ok());
  iceberg::FilesCatalog catalog(**dir, (*dir)->Uri(), "ledger",
                                iceberg::SpecOf(row::kLedgerColumns));
  const std::string stream = iceberg::StreamIdentity("GARM_LEDGER", "2026-01-01T00:00:00Z");
  ASSERT_EQ(iceberg::CommitFlushes(**dir, catalog, "drain", 1, 6, stream).commit_ids.size(), 1u);
  const long good = ImportRuns(tmp, lake, 2);
  const nlohmann::json before = TableInfoJson(lake);
  ASSERT_EQ(before["snapshots"], 3) << before.dump();
  EXPECT_EQ(before["positions"]["streams"][stream], nlohmann::json::parse("[[1,6]]"));

  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  const CommandResult r = RunSinkd(
      {"table", "expire", "ledger", "--lake-dir", lake, "--older-than", "1s", "--grace", "0s"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("expired 2 snapshots"), std::string::npos) << r.out;
  const nlohmann::json after = TableInfoJson(lake);
  EXPECT_EQ(after["snapshots"], 1) << after.dump();
  EXPECT_EQ(after["records"], 6 + good);
  EXPECT_EQ(after["positions"]["streams"][stream], nlohmann::json::parse("[[1,6]]"))
      << "the drain's positions survive in the one snapshot left: " << after.dump();
}

}  // namespace
}  // namespace sinkd::testing
