// The commands as an operator runs them: `sinkd outbox migrate|status|retain` and a real
// `sinkd dispatch` process writing a directory lake, serving its figures, stopping on SIGTERM.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

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

std::string WriteConfig(const TempDir& tmp, const std::string& conninfo, const std::string& body,
                        const std::string& name = "sinkd.toml") {
  const fs::path path = tmp / name;
  WriteFile(path, "[postgres]\nurl = \"" + conninfo + "\"\n" + body);
  return path.string();
}

TEST(OutboxCommand, MigrateCreatesTheTablesAndASecondRunChangesNothing) {
  OutboxDb db;
  TempDir tmp;
  const std::string config = WriteConfig(tmp, db.conninfo(), "");
  auto first = RunCommand({SinkdBinary(), "outbox", "migrate", "--config", config});
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.out.find("outbox                 created"), std::string::npos) << first.out;
  auto second = RunCommand({SinkdBinary(), "outbox", "migrate", "--config", config});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_EQ(second.out.find("created"), std::string::npos) << second.out;
  EXPECT_NE(second.out.find("outbox_dead_letters    ok"), std::string::npos) << second.out;
}

TEST(OutboxCommand, MigrateReportsATableThatDiffersAndExitsNonZero) {
  OutboxDb db;
  db.Sql("CREATE TABLE outbox_cursors (name text PRIMARY KEY, txid bigint, seq bigint)");
  TempDir tmp;
  const std::string config = WriteConfig(tmp, db.conninfo(), "");
  auto r = RunCommand({SinkdBinary(), "outbox", "migrate", "--config", config});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("differs: column txid is bigint, want xid8"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("never alters them"), std::string::npos) << r.err;
}

TEST(OutboxCommand, DispatchRefusesDuplicateIdsAndUsageSinksBeforeConnecting) {
  TempDir tmp;
  // An unreachable database: the refusal must come first.
  const std::string dup = WriteConfig(tmp, "host=127.0.0.1 port=1",
                                      "[[sinks.events]]\nid = \"lake\"\ntype = \"lake\"\n"
                                      "lake_dir = \"/tmp/x\"\n[[sinks.events]]\nid = \"lake\"\n"
                                      "type = \"lake\"\nlake_dir = \"/tmp/y\"\n",
                                      "dup.toml");
  auto r = RunCommand({SinkdBinary(), "dispatch", "--config", dup});
  EXPECT_EQ(r.exit_code, 2);
  // The refusal names file:line:column of the second entry, then what is wrong.
  EXPECT_NE(r.err.find("INVALID_CONFIG: " + dup + ":"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(": two events sinks have the id \"lake\""), std::string::npos) << r.err;
  const std::string usage = WriteConfig(tmp, "host=127.0.0.1 port=1",
                                        "[[sinks.usage]]\nid = \"bridge\"\ntype = \"iam\"\n",
                                        "usage.toml");
  r = RunCommand({SinkdBinary(), "dispatch", "--config", usage});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("INVALID_CONFIG: " + usage + ":"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(": sinks.usage: a usage sink is refused"), std::string::npos) << r.err;
}

// End to end: events and audit rows into a directory lake, the figures on /metrics, status and
// retention from the command line, and a clean stop that hands the leases back at once.
TEST(OutboxCommand, ARunningDispatcherFillsTheLakeServesItsFiguresAndStopsCleanly) {
  OutboxDb db;
  db.Migrate();
  db.InsertEvents(300, "reservation.placed");
  db.InsertEvents(200, "node.connected");
  db.InsertAudit(120);
  TempDir tmp;
  const fs::path lake = tmp / "lake";
  const std::string config = WriteConfig(
      tmp, db.conninfo(),
      "[dispatch]\npoll_interval = \"50ms\"\naudit_interval = \"200ms\"\ninstance = \"box-1\"\n"
      "[[sinks.events]]\nid = \"lake\"\ntype = \"lake\"\nlake_dir = \"" + lake.string() + "\"\n"
      "batch_size = 64\n[[sinks.audit]]\nid = \"archive\"\ntype = \"lake\"\nlake_dir = \"" +
      lake.string() + "\"\n");
  const int port = testing::FreeLoopbackPort();
  Background dispatcher({SinkdBinary(), "dispatch", "--config", config, "--metrics-listen",
                         "127.0.0.1:" + std::to_string(port)},
                        tmp / "dispatch.log");
  const auto caught_up = [&] {
    return db.Count("SELECT count(*) FROM outbox_cursors c WHERE (c.txid, c.seq) = (SELECT "
                    "o.txid, o.seq FROM outbox o ORDER BY o.txid DESC, o.seq DESC LIMIT 1)") == 1 &&
           db.Count("SELECT count(*) FROM audit_sink_cursors c WHERE (c.txid, c.seq) = (SELECT "
                    "a.txid, a.seq FROM audit_events a ORDER BY a.txid DESC, a.seq DESC LIMIT 1)") == 1;
  };
  ASSERT_TRUE(WaitUntil(caught_up, std::chrono::seconds(60))) << dispatcher.Log();
  auto events = DuckDb("SELECT count(DISTINCT event_id), count(DISTINCT type) FROM read_parquet(" +
                       SqlQuote((lake / "outbox_events" / "**" / "*.parquet").string()) +
                       ", hive_partitioning = true)");
  ASSERT_TRUE(events.ok) << events.error;
  EXPECT_EQ(events.rows[0], (std::vector<std::string>{"500", "2"}));
  auto audit = DuckDb("SELECT count(DISTINCT event_id) FROM read_parquet(" +
                      SqlQuote((lake / "outbox_audit" / "**" / "*.parquet").string()) + ")");
  ASSERT_TRUE(audit.ok) << audit.error;
  EXPECT_EQ(audit.rows[0][0], "120");

  const auto metrics = testing::HttpGet(port, "/metrics");
  EXPECT_EQ(metrics.code, 200);
  EXPECT_NE(metrics.body.find("sinkd_outbox_lag_events{kind=\"events\",sink=\"lake\"} 0"),
            std::string::npos) << metrics.body;
  EXPECT_NE(metrics.body.find("sinkd_outbox_lease_held{kind=\"audit\",sink=\"archive\"} 1"),
            std::string::npos) << metrics.body;
  EXPECT_NE(metrics.body.find("sinkd_outbox_delivered_total{kind=\"events\",sink=\"lake\"} 500"),
            std::string::npos) << metrics.body;
  EXPECT_EQ(testing::HttpGet(port, "/healthz").code, 200);
  EXPECT_EQ(testing::HttpGet(port, "/readyz").code, 200);

  auto status = RunCommand({SinkdBinary(), "outbox", "status", "--config", config, "--json"});
  ASSERT_EQ(status.exit_code, 0) << status.err;
  EXPECT_NE(status.out.find("\"id\":\"lake\",\"cursor\":\""), std::string::npos) << status.out;
  EXPECT_NE(status.out.find("\"lag_events\":0"), std::string::npos) << status.out;
  EXPECT_NE(status.out.find("\"lease_holder\":\"box-1-"), std::string::npos) << status.out;
  EXPECT_NE(status.out.find("\"dead_letters\":0"), std::string::npos) << status.out;

  dispatcher.Signal(SIGTERM);
  EXPECT_EQ(dispatcher.Wait(std::chrono::seconds(15)), 0) << dispatcher.Log();
  EXPECT_EQ(db.Count("SELECT count(*) FROM sinkd_leases WHERE expires_at > now()"), 0)
      << "a clean stop hands the leases back at once";
  EXPECT_EQ(db.Count("SELECT count(*) FROM sinkd_sink_progress WHERE in_flight"), 0);

  db.Sql("UPDATE outbox SET payload = jsonb_set(payload, '{time}', '\"2020-01-01T00:00:00Z\"')");
  auto retain = RunCommand({SinkdBinary(), "outbox", "retain", "--config", config, "--min-age",
                            "24h", "--batch", "100"});
  ASSERT_EQ(retain.exit_code, 0) << retain.err;
  EXPECT_NE(retain.out.find("deleted 500 row(s) in 5 batch(es)"), std::string::npos) << retain.out;
}

// `outbox dead list|replay` as an operator runs them: the list in both forms, a dry run that
// inserts nothing, a replay with --yes, and a second one that finds it done.
TEST(OutboxCommand, DeadListShowsADeadLetterAndReplayInsertsItOnceOnlyWithYes) {
  OutboxDb db;
  db.Migrate();
  db.InsertEvents(3);
  // The row the dispatcher writes for a poison event: the event as delivered, with its position.
  db.Sql("INSERT INTO outbox_dead_letters (sink, txid, seq, event, error, attempts) SELECT 'lake', "
         "txid, seq, payload || jsonb_build_object('sequence', txid::text || ':' || seq), "
         "'HTTP 500', 5 FROM outbox WHERE payload->>'id' = 'evt_1'");
  const std::string position = std::string(
      db.Sql("SELECT txid::text || ':' || seq FROM outbox_dead_letters").Text(0, 0));
  TempDir tmp;
  const std::string config = WriteConfig(tmp, db.conninfo(), "");
  auto list = RunCommand({SinkdBinary(), "outbox", "dead", "list", "--config", config});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("lake  " + position + "  "), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("evt_1  reservation.placed  attempts 5  not replayed  HTTP 500"),
            std::string::npos)
      << list.out;
  EXPECT_NE(list.err.find("1 dead letter(s)"), std::string::npos) << list.err;
  auto json = RunCommand(
      {SinkdBinary(), "outbox", "dead", "list", "--config", config, "--json", "--since", "1h"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto line = nlohmann::json::parse(json.out);
  EXPECT_EQ(line["position"], position);
  EXPECT_EQ(line["event"]["id"], "evt_1");
  EXPECT_TRUE(line["replayed_as"].is_null());
  auto none = RunCommand({SinkdBinary(), "outbox", "dead", "list", "--config", config, "--sink",
                          "webhook"});
  EXPECT_EQ(none.out, "");

  auto bare = RunCommand({SinkdBinary(), "outbox", "dead", "replay", "--config", config});
  EXPECT_EQ(bare.exit_code, 2) << bare.err;
  auto bad = RunCommand(
      {SinkdBinary(), "outbox", "dead", "replay", "--config", config, "--all", "--since", "later"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  auto dry = RunCommand({SinkdBinary(), "outbox", "dead", "replay", "--config", config, position});
  ASSERT_EQ(dry.exit_code, 0) << dry.err;
  EXPECT_NE(dry.out.find("would be re-inserted"), std::string::npos) << dry.out;
  EXPECT_EQ(db.Count("SELECT count(*) FROM outbox"), 3) << "a dry run inserts nothing";
  auto yes = RunCommand(
      {SinkdBinary(), "outbox", "dead", "replay", "--config", config, "--all", "--yes"});
  ASSERT_EQ(yes.exit_code, 0) << yes.err;
  EXPECT_NE(yes.out.find("replayed as outbox seq"), std::string::npos) << yes.out;
  EXPECT_EQ(db.Count("SELECT count(*) FROM outbox WHERE payload->>'id' = 'evt_1'"), 2);
  auto again = RunCommand(
      {SinkdBinary(), "outbox", "dead", "replay", "--config", config, "--all", "--yes"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find("0 replayed, 1 already replayed"), std::string::npos) << again.err;
  EXPECT_EQ(db.Count("SELECT count(*) FROM outbox"), 4);
}

}  // namespace
}  // namespace sinkd::outbox
