// `sinkd lake verify --table outbox_events|outbox_audit --config` against a real PostgreSQL: every
// outbox row at or behind the lake sink's cursor and still in the outbox must be in a complete
// flush's stamp or in the sink's dead letters.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "outbox/outbox_fixture.h"
#include "outbox/process.h"
#include "support/lake_files.h"
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

TEST(OutboxLakeVerify, EveryRowBehindTheCursorIsInAStampOrADeadLetterAndADeletedPartIsAGap) {
  OutboxDb db;
  db.Migrate();
  db.InsertEvents(150, "reservation.placed");
  // No id: the lake sink rejects it, the dispatcher dead-letters it; it is accounted for.
  db.Sql("INSERT INTO outbox (topic, payload) VALUES ('node.connected', '{\"type\":\"x\"}')");
  db.InsertEvents(100, "node.connected");
  db.InsertAudit(60);
  TempDir tmp;
  const fs::path lake = tmp / "lake";
  const std::string config = (tmp / "sinkd.toml").string();
  sinkd::testing::WriteFile(config,
                     "[postgres]\nurl = \"" + db.conninfo() + "\"\n"
                     "[dispatch]\npoll_interval = \"50ms\"\naudit_interval = \"200ms\"\n"
                     "instance = \"box-1\"\n"
                     "[[sinks.events]]\nid = \"lake\"\ntype = \"lake\"\nlake_dir = \"" +
                         lake.string() + "\"\nbatch_size = 16\n"
                     "[[sinks.audit]]\nid = \"archive\"\ntype = \"lake\"\nlake_dir = \"" +
                         lake.string() + "\"\n");
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

  auto events = RunCommand({SinkdBinary(), "lake", "verify", "--table", "outbox_events",
                            "--config", config});
  EXPECT_EQ(events.exit_code, 0) << events.out << events.err;
  EXPECT_NE(events.out.find("outbox:lake: covered 1-251; expected 1-251"), std::string::npos)
      << events.out;
  auto audit = RunCommand({SinkdBinary(), "lake", "verify", "--table", "outbox_audit", "--config",
                           config, "--json"});
  EXPECT_EQ(audit.exit_code, 0) << audit.out << audit.err;
  EXPECT_NE(audit.out.find("\"space\":\"outbox:archive\""), std::string::npos) << audit.out;
  EXPECT_NE(audit.out.find("\"expected\":\"1-60\""), std::string::npos) << audit.out;

  // One type per delivery here, so a flush is one Part: deleting it loses a whole flush, which
  // only the outbox's rows can reveal (seq has holes, so the stamps alone cannot).
  const std::vector<fs::path> parts = sinkd::testing::LakeFiles(lake / "outbox_events");
  ASSERT_GT(parts.size(), 2u);
  const auto values = sinkd::testing::FooterValues(parts[1].string(), "sinkd.stamps");
  ASSERT_EQ(values.size(), 1u);
  const auto stamp = nlohmann::json::parse(values[0].second)[0];
  const std::string lost = std::to_string(stamp["first"].get<uint64_t>()) + "-" +
                           std::to_string(stamp["last"].get<uint64_t>());
  fs::remove(parts[1]);
  auto bad = RunCommand({SinkdBinary(), "lake", "verify", "--table", "outbox_events", "--config",
                         config});
  EXPECT_EQ(bad.exit_code, 1) << bad.out << bad.err;
  EXPECT_NE(bad.out.find("gap outbox:lake " + lost + "\n"), std::string::npos) << bad.out;

  // Rows behind the cursor that retention removed are not expected any more.
  db.Sql("DELETE FROM outbox");
  auto retained = RunCommand({SinkdBinary(), "lake", "verify", "--table", "outbox_events",
                              "--config", config, "--json"});
  EXPECT_NE(retained.out.find("\"gaps\":[]"), std::string::npos) << retained.out;
  EXPECT_EQ(retained.exit_code, 0) << retained.out;
}

// An outbox lake sink keeping its table in the sql catalog (its entry's iceberg_catalog, the
// outbox's own database): `lake verify --table outbox_events --config … --table-format iceberg`
// checks the table that catalog's row names. Failed before: verify read the files catalog and
// found no table ("no Iceberg table", exit 1).
TEST(OutboxLakeVerify, AnOutboxTableInItsSinksSqlCatalogIsCheckedWhereTheRowNamesIt) {
  OutboxDb db;
  db.Migrate();
  db.InsertEvents(80, "reservation.placed");
  TempDir tmp;
  const fs::path lake = tmp / "lake";
  const std::string config = (tmp / "sinkd.toml").string();
  sinkd::testing::WriteFile(config,
                            "[postgres]\nurl = \"" + db.conninfo() + "\"\n"
                            "[dispatch]\npoll_interval = \"50ms\"\ninstance = \"box-1\"\n"
                            "[[sinks.events]]\nid = \"lake\"\ntype = \"lake\"\nlake_dir = \"" +
                                lake.string() +
                                "\"\nbatch_size = 16\ntable_format = \"iceberg\"\n"
                                "iceberg_catalog = \"sql\"\n");
  {
    Background dispatcher({SinkdBinary(), "dispatch", "--config", config}, tmp / "dispatch.log");
    const auto caught_up = [&] {
      return db.Count("SELECT count(*) FROM outbox_cursors c WHERE (c.txid, c.seq) = (SELECT "
                      "o.txid, o.seq FROM outbox o ORDER BY o.txid DESC, o.seq DESC LIMIT 1)") == 1;
    };
    ASSERT_TRUE(WaitUntil(caught_up, std::chrono::seconds(60))) << dispatcher.Log();
    dispatcher.Signal(SIGTERM);
    EXPECT_EQ(dispatcher.Wait(std::chrono::seconds(15)), 0) << dispatcher.Log();
  }
  ASSERT_EQ(db.Count("SELECT count(*) FROM iceberg_tables WHERE table_name = 'outbox_events'"), 1)
      << "the premise: the sink's table is the sql catalog's";
  ASSERT_FALSE(fs::exists(lake / "outbox_events/metadata/v1.metadata.json"));

  auto r = RunCommand({SinkdBinary(), "lake", "verify", "--table", "outbox_events", "--config",
                       config, "--table-format", "iceberg"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("table: file://" + lake.string() + "/outbox_events/metadata/00"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("table OK"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace sinkd::outbox
