// `sinkd table expire` and `sinkd table orphans` on a directory table committed with the files
// catalog (real Parts): expire drops the snapshots a compaction made old and deletes the inputs
// only those named (a dry run first names them and deletes nothing); orphans lists a Part no
// snapshot names and deletes it with --delete; both exit 1 where there is no table.
#include <gtest/gtest.h>

#include <thread>

#include "cli_help.h"
#include "iceberg/committers.h"
#include "lake/dir_destination.h"

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
  row::RowBatch batch(row::kLedgerColumns);
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
  row::RowBatch again(row::kLedgerColumns);
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

}  // namespace
}  // namespace sinkd::testing
