// An outbox lake sink with `table_format = "iceberg"` in its entry, against a real PostgreSQL and
// the real `sinkd dispatch`: every flush is an append snapshot of the sink's table, committed
// before the cursor moves, recording the sink's position ("outbox:<id>"); the table's current
// snapshot holds exactly the delivered rows. A value that is not a table format is refused
// naming the entry and the key.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <set>

#include "outbox/outbox_fixture.h"
#include "outbox/process.h"
#include "support/support.h"

namespace sinkd::outbox {
namespace {

namespace fs = std::filesystem;
using sinkd::testing::RunCommand;
using sinkd::testing::SinkdBinary;
using sinkd::testing::TempDir;
using sinkd::testing::WaitUntil;
using testing::Background;
using testing::OutboxDb;

// `sinkd table info TABLE --lake-dir LAKE --json`.
nlohmann::json TableInfo(const fs::path& lake, const std::string& table) {
  const auto r = RunCommand(
      {SinkdBinary(), "table", "info", table, "--lake-dir", lake.string(), "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  return nlohmann::json::parse(r.out, nullptr, false);
}

// Rows of the files the current snapshot's manifests list, read by python3-avro and DuckDB.
std::string ManifestRows(const std::string& metadata_uri, const std::string& select) {
  const auto dump = [](const std::string& uri) {
    const auto r = RunCommand({"/usr/bin/python3",
                               (sinkd::testing::SourceDir() / "tools/avro-dump.py").string(),
                               uri.substr(std::string("file://").size())});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out, nullptr, false);
  };
  const nlohmann::json doc = nlohmann::json::parse(
      sinkd::testing::ReadFile(metadata_uri.substr(std::string("file://").size())));
  std::string list_uri;
  for (const auto& s : doc["snapshots"]) {
    if (s["snapshot-id"] == doc["current-snapshot-id"]) {
      list_uri = s["manifest-list"].get<std::string>();
    }
  }
  std::string files;
  const nlohmann::json list = dump(list_uri);
  for (const auto& m : list["records"]) {
    const nlohmann::json manifest = dump(m["manifest_path"].get<std::string>());
    for (const auto& e : manifest["records"]) {
      const std::string path = e["data_file"]["file_path"].get<std::string>();
      files += (files.empty() ? "" : ", ") + sinkd::testing::SqlQuote(path.substr(7));
    }
  }
  const auto q = sinkd::testing::DuckDb("SELECT " + select + " FROM read_parquet([" + files + "])");
  EXPECT_TRUE(q.ok) << q.error;
  return q.ok && !q.rows.empty() ? q.rows[0][0] + "," + q.rows[0][1] : "";
}

size_t FlushRanges(const fs::path& root) {
  std::set<std::string> ranges;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file() || e.path().extension() != ".parquet") continue;
    std::string stem = e.path().stem().string();
    stem = stem.substr(0, stem.rfind('-'));                   // drop -<n>
    const size_t last = stem.rfind('-');
    ranges.insert(stem.substr(stem.rfind('-', last - 1)));    // -<first>-<last>
  }
  return ranges.size();
}

TEST(OutboxLakeTable, EveryFlushIsASnapshotOfTheSinksTableHoldingExactlyTheDeliveredRows) {
  OutboxDb db;
  db.Migrate();
  db.InsertEvents(150, "reservation.placed");
  // No id: the lake sink rejects it, the dispatcher dead-letters it; no row, no position lost.
  db.Sql("INSERT INTO outbox (topic, payload) VALUES ('node.connected', '{\"type\":\"x\"}')");
  db.InsertEvents(100, "node.connected");
  db.InsertAudit(60);
  TempDir tmp;
  const fs::path lake = tmp / "lake";
  const std::string config = (tmp / "sinkd.toml").string();
  const std::string sinks =
      "[[sinks.events]]\nid = \"lake\"\ntype = \"lake\"\nlake_dir = \"" + lake.string() +
      "\"\nbatch_size = 16\ntable_format = \"iceberg\"\n"
      "[[sinks.audit]]\nid = \"archive\"\ntype = \"lake\"\nlake_dir = \"" + lake.string() +
      "\"\ntable_format = \"iceberg\"\n";
  const std::string head = "[postgres]\nurl = \"" + db.conninfo() + "\"\n"
                           "[dispatch]\npoll_interval = \"50ms\"\naudit_interval = \"200ms\"\n"
                           "instance = \"box-1\"\n";
  sinkd::testing::WriteFile(config, head + sinks);
  {
    Background dispatcher({SinkdBinary(), "dispatch", "--config", config}, tmp / "dispatch.log");
    const auto caught_up = [&] {
      return db.Count("SELECT count(*) FROM outbox_cursors c WHERE (c.txid, c.seq) = (SELECT "
                      "o.txid, o.seq FROM outbox o ORDER BY o.txid DESC, o.seq DESC LIMIT 1)") == 1 &&
             db.Count("SELECT count(*) FROM audit_sink_cursors c WHERE (c.txid, c.seq) = (SELECT "
                      "a.txid, a.seq FROM audit_events a ORDER BY a.txid DESC, a.seq DESC LIMIT "
                      "1)") == 1;
    };
    ASSERT_TRUE(WaitUntil(caught_up, std::chrono::seconds(60))) << dispatcher.Log();
    dispatcher.Signal(SIGTERM);
    EXPECT_EQ(dispatcher.Wait(std::chrono::seconds(15)), 0) << dispatcher.Log();
  }
  ASSERT_EQ(db.Count("SELECT count(*) FROM outbox_dead_letters"), 1) << "the premise";

  const nlohmann::json events = TableInfo(lake, "outbox_events");
  ASSERT_FALSE(events.is_discarded());
  EXPECT_EQ(events["records"], 250) << events.dump();
  // One snapshot per flush: the flushes are the distinct ranges in the Parts' names
  // (part-<instance>-<first>-<last>-<n>.parquet).
  EXPECT_EQ(events["snapshots"].get<size_t>(), FlushRanges(lake / "outbox_events"))
      << events.dump();
  EXPECT_GT(events["snapshots"].get<size_t>(), 1u);
  EXPECT_EQ(events["positions"]["outbox"]["lake"], 251) << events.dump();
  EXPECT_EQ(ManifestRows(events["metadata"].get<std::string>(),
                         "count(*), count(DISTINCT sequence)"),
            "250,250");

  const nlohmann::json audit = TableInfo(lake, "outbox_audit");
  ASSERT_FALSE(audit.is_discarded());
  EXPECT_EQ(audit["records"], 60) << audit.dump();
  EXPECT_EQ(audit["positions"]["outbox"]["archive"], 60) << audit.dump();
  EXPECT_EQ(ManifestRows(audit["metadata"].get<std::string>(), "count(*), count(DISTINCT sequence)"),
            "60,60");

  // A format the sinks do not know is refused before anything is read, naming the entry's key.
  sinkd::testing::WriteFile(config, head + "[[sinks.events]]\nid = \"lake\"\ntype = \"lake\"\n"
                                           "lake_dir = \"" + lake.string() +
                                           "\"\ntable_format = \"delta\"\n");
  const auto refused = RunCommand({SinkdBinary(), "dispatch", "--config", config},
                                  "", std::chrono::seconds(30));
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.err.find("table_format"), std::string::npos) << refused.err;
  EXPECT_NE(refused.err.find("\"delta\""), std::string::npos) << refused.err;
}

}  // namespace
}  // namespace sinkd::outbox
