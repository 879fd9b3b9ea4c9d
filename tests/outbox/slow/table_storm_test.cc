// kill -9 storm of `sinkd dispatch` with an outbox lake sink whose Iceberg table is kept in the
// sql catalog in the outbox's own database (issue 26 §3): producers keep committing events (1-3
// per transaction, interleaving their seqs, so the outbox's (txid, seq) order is not seq order)
// while the dispatcher is killed again and again mid-delivery. After every kill the saved cursor
// is exactly the table's committed mark (they move in one transaction), and at the end the
// table's current snapshot holds exactly one row per outbox event (1.000 rows per expected row),
// read by icebird from the file the catalog's row names and by DuckDB over the data files its
// manifests list, while the raw Parts may hold more. Labelled slow: every kill waits out a lease.
#include <gtest/gtest.h>

#include <atomic>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <thread>

#include "outbox/outbox_fixture.h"
#include "outbox/process.h"
#include "support/support.h"

namespace sinkd::outbox {
namespace {

namespace fs = std::filesystem;
using sinkd::testing::DuckDb;
using sinkd::testing::RunCommand;
using sinkd::testing::SinkdBinary;
using sinkd::testing::SqlQuote;
using sinkd::testing::TempDir;
using sinkd::testing::WaitUntil;
using sinkd::testing::WriteFile;
using testing::Background;
using testing::OutboxDb;

// (txid, seq) as numbers, from "<txid>:<seq>".
std::pair<uint64_t, uint64_t> PairOf(const std::string& text) {
  const size_t colon = text.find(':');
  return {std::stoull(text.substr(0, colon)), std::stoull(text.substr(colon + 1))};
}

TEST(OutboxTableStorm,
     KilledDispatchersLeaveTheSqlCatalogsTableWithEachEventOnceAndTheCursorAtItsMark) {
  OutboxDb db;
  db.Migrate();
  TempDir tmp;
  const fs::path lake = tmp / "lake";
  const std::string config = (tmp / "storm.toml").string();
  WriteFile(config, "[postgres]\nurl = \"" + db.conninfo() +
                        "\"\n[dispatch]\npoll_interval = \"20ms\"\nlease_ttl = \"1s\"\n"
                        "instance = \"storm\"\n[iceberg]\ncatalog = \"sql\"\n"
                        "[[sinks.events]]\nid = \"lake\"\ntype = \"lake\"\nlake_dir = \"" +
                        lake.string() + "\"\nbatch_size = 8\ntable_format = \"iceberg\"\n");
  const auto info = [&]() -> nlohmann::json {
    const auto r =
        RunCommand({SinkdBinary(), "table", "info", "outbox_events", "--lake-dir", lake.string(),
                    "--iceberg-catalog", "sql", "--iceberg-catalog-url", db.conninfo(), "--json"});
    if (r.exit_code != 0) return nlohmann::json();
    return nlohmann::json::parse(r.out, nullptr, false);
  };
  const auto cursor = [&]() -> std::string {
    PgResult r = db.Sql(
        "SELECT txid::text || ':' || seq FROM outbox_cursors WHERE name = "
        "'sink:lake'");
    return r.rows() ? std::string(r.Text(0, 0)) : std::string();
  };

  // Producers: 3 connections, 1-3 events per transaction, a random pause before COMMIT.
  constexpr int kWriters = 3;
  constexpr int kPerWriter = 400;
  std::atomic<bool> producers_failed{false};
  std::vector<std::thread> producers;
  for (int w = 0; w < kWriters; ++w) {
    producers.emplace_back([&, w] {
      auto conn = PgConn::Connect(db.conninfo(), "sinkd-test-producer");
      if (!conn.ok()) {
        producers_failed = true;
        return;
      }
      std::mt19937 rng(static_cast<uint32_t>(w) * 7919u + 17u);
      int n = 0;
      while (n < kPerWriter) {
        const int batch = std::min(kPerWriter - n, 1 + static_cast<int>(rng() % 3));
        bool ok = conn->Exec("BEGIN").ok();
        for (int i = 0; i < batch && ok; ++i) {
          ok = conn->Exec(
                       "INSERT INTO outbox (topic, payload) VALUES ('t', jsonb_build_object("
                       "'id', $1::text, 'type', 't', 'time', '2026-12-05T00:00:00Z'))",
                       {"w" + std::to_string(w) + "-" + std::to_string(n + i)})
                   .ok();
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(rng() % 8));
        ok = ok && conn->Exec("COMMIT").ok();
        if (!ok) {
          producers_failed = true;
          return;
        }
        n += batch;
      }
    });
  }

  // The storm: each dispatcher lives 0.3-1.5 s, then kill -9 (mid-delivery or mid-commit as it
  // falls); after each, the cursor is the table's mark.
  constexpr int kRounds = 10;
  std::mt19937 rng(20261205u);
  int kills = 0, checked = 0;
  for (int round = 0; round < kRounds; ++round) {
    Background d({SinkdBinary(), "dispatch", "--config", config},
                 tmp / ("storm-" + std::to_string(round) + ".log"));
    std::this_thread::sleep_for(std::chrono::milliseconds(1300 + rng() % 1200));
    d.Signal(SIGKILL);
    ASSERT_EQ(d.Wait(std::chrono::seconds(10)), 128 + SIGKILL) << d.Log();
    ++kills;
    const nlohmann::json table = info();
    const std::string saved = cursor();
    if (saved.empty() || table.is_null() || table.is_discarded()) continue;  // nothing yet
    ASSERT_TRUE(table["positions"]["outbox"].contains("lake")) << table.dump();
    const std::string mark =
        std::to_string(table["positions"]["outbox_txid"]["lake"].get<uint64_t>()) + ":" +
        std::to_string(table["positions"]["outbox"]["lake"].get<uint64_t>());
    EXPECT_LE(PairOf(saved), PairOf(mark)) << "the cursor points past what the table holds";
    EXPECT_EQ(saved, mark) << "round " << round << ": the cursor and the pointer diverged\n"
                           << d.Log();
    ++checked;
  }
  for (std::thread& t : producers) t.join();
  ASSERT_FALSE(producers_failed.load());
  const int64_t events = db.Count("SELECT count(*) FROM outbox");
  ASSERT_EQ(events, kWriters * kPerWriter);
  EXPECT_GT(checked, kRounds / 2) << "most kills came after a commit";

  // A last dispatcher catches up and stops cleanly.
  {
    Background d({SinkdBinary(), "dispatch", "--config", config}, tmp / "final.log");
    const auto at_end = [&] {
      return db.Count(
                 "SELECT count(*) FROM outbox_cursors c WHERE (c.txid, c.seq) = (SELECT "
                 "o.txid, o.seq FROM outbox o ORDER BY o.txid DESC, o.seq DESC LIMIT 1)") == 1;
    };
    // It holds the sink (its signal handlers installed long before) before it may be stopped.
    ASSERT_TRUE(WaitUntil([&] { return d.Log().find("lease acquired") != std::string::npos; },
                          std::chrono::seconds(60)))
        << d.Log();
    ASSERT_TRUE(WaitUntil(at_end, std::chrono::seconds(120))) << d.Log();
    d.Signal(SIGTERM);
    EXPECT_EQ(d.Wait(std::chrono::seconds(15)), 0) << d.Log();
  }
  const nlohmann::json table = info();
  ASSERT_FALSE(table.is_null() || table.is_discarded());
  EXPECT_EQ(table["catalog"], "sql");
  EXPECT_EQ(table["records"].get<int64_t>(), events) << table.dump();
  EXPECT_EQ(cursor(), std::to_string(table["positions"]["outbox_txid"]["lake"].get<uint64_t>()) +
                          ":" +
                          std::to_string(table["positions"]["outbox"]["lake"].get<uint64_t>()));

  // icebird reads the table from the metadata file the catalog's row names: each event once.
  const std::string metadata = table["metadata"].get<std::string>();
  const std::string name = metadata.substr(metadata.rfind('/') + 1);
  const auto read =
      RunCommand({"node", (sinkd::testing::SourceDir() / "tools/icebird-read.mjs").string(),
                  "file://" + (lake / "outbox_events").string(), "--metadata", name});
  ASSERT_EQ(read.exit_code, 0) << read.err;
  const nlohmann::json rows = nlohmann::json::parse(read.out, nullptr, false);
  ASSERT_FALSE(rows.is_discarded());
  std::multiset<std::string> ids;
  for (const auto& row : rows["rows"]) ids.insert(row["event_id"].get<std::string>());
  const std::set<std::string> distinct(ids.begin(), ids.end());
  EXPECT_EQ(static_cast<int64_t>(ids.size()), events) << "icebird: rows in the table";
  EXPECT_EQ(static_cast<int64_t>(distinct.size()), events) << "icebird: distinct events";

  // DuckDB over the data files the manifests list (icebird --files), and over the raw Parts.
  const auto listed =
      RunCommand({"node", (sinkd::testing::SourceDir() / "tools/icebird-read.mjs").string(),
                  "file://" + (lake / "outbox_events").string(), "--files", "--metadata", name});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  const nlohmann::json files = nlohmann::json::parse(listed.out, nullptr, false);
  std::string paths;
  for (const auto& f : files["files"]) {
    paths += (paths.empty() ? "" : ", ") + SqlQuote(f.get<std::string>().substr(7));
  }
  const auto in_table =
      DuckDb("SELECT count(*), count(DISTINCT event_id) FROM read_parquet([" + paths + "])");
  ASSERT_TRUE(in_table.ok) << in_table.error;
  EXPECT_EQ(in_table.rows[0],
            (std::vector<std::string>{std::to_string(events), std::to_string(events)}));
  const auto raw = DuckDb("SELECT count(*) FROM read_parquet(" +
                          SqlQuote((lake / "outbox_events" / "**" / "*.parquet").string()) + ")");
  ASSERT_TRUE(raw.ok) << raw.error;
  const double table_ratio = std::stod(in_table.rows[0][0]) / static_cast<double>(events);
  const double raw_ratio = std::stod(raw.rows[0][0]) / static_cast<double>(events);
  EXPECT_EQ(table_ratio, 1.0);
  std::printf(
      "outbox table storm: %d kills (%d checked), %lld events, table %.3f rows/expected "
      "(%zu snapshots, %zu files), raw Parts %.3f\n",
      kills, checked, static_cast<long long>(events), table_ratio, table["snapshots"].get<size_t>(),
      files["files"].size(), raw_ratio);
}

}  // namespace
}  // namespace sinkd::outbox
