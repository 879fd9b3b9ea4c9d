// kill -9 of the holder: the other dispatcher takes the sink over within 15 s, under a new epoch,
// from the cursor the dead one saved, and the lake ends with every event. Labelled slow: it
// waits out a real lease (10 s).
#include <gtest/gtest.h>

#include "outbox/outbox_fixture.h"
#include "outbox/process.h"
#include "support/support.h"

namespace sinkd::outbox {
namespace {

namespace fs = std::filesystem;
using sinkd::testing::DuckDb;
using sinkd::testing::SinkdBinary;
using sinkd::testing::SqlQuote;
using sinkd::testing::TempDir;
using sinkd::testing::WaitUntil;
using sinkd::testing::WriteFile;
using testing::Background;
using testing::OutboxDb;

std::string Config(const TempDir& tmp, const std::string& conninfo, const fs::path& lake,
                   const std::string& instance) {
  const fs::path path = tmp / (instance + ".toml");
  WriteFile(path, "[postgres]\nurl = \"" + conninfo + "\"\n[dispatch]\npoll_interval = \"50ms\"\n"
                  "instance = \"" + instance + "\"\n[[sinks.events]]\nid = \"lake\"\n"
                  "type = \"lake\"\nlake_dir = \"" + lake.string() + "\"\n");
  return path.string();
}

TEST(KillHolder, TheOtherDispatcherTakesOverFromTheSavedCursorWithinFifteenSeconds) {
  OutboxDb db;
  db.Migrate();
  db.InsertEvents(1000);
  TempDir tmp;
  const fs::path lake = tmp / "lake";
  const auto holder = [&] {
    PgResult r = db.Sql("SELECT holder FROM sinkd_leases WHERE expires_at > now()");
    return r.rows() ? std::string(r.Text(0, 0)) : std::string();
  };
  const auto at_end = [&] {
    return db.Count("SELECT count(*) FROM outbox_cursors c WHERE (c.txid, c.seq) = (SELECT "
                    "o.txid, o.seq FROM outbox o ORDER BY o.txid DESC, o.seq DESC LIMIT 1)") == 1;
  };
  auto a = std::make_unique<Background>(
      std::vector<std::string>{SinkdBinary(), "dispatch", "--config",
                               Config(tmp, db.conninfo(), lake, "a")},
      tmp / "a.log");
  ASSERT_TRUE(WaitUntil(at_end, std::chrono::seconds(60))) << a->Log();
  ASSERT_EQ(holder().rfind("a-", 0), 0u) << holder();
  Background b({SinkdBinary(), "dispatch", "--config", Config(tmp, db.conninfo(), lake, "b")},
               tmp / "b.log");
  std::this_thread::sleep_for(std::chrono::seconds(3));
  EXPECT_EQ(holder().rfind("a-", 0), 0u) << "while a lives, b must not take the sink";
  EXPECT_EQ(b.Log().find("lease acquired"), std::string::npos) << b.Log();

  db.InsertEvents(500);
  a->Signal(SIGKILL);
  ASSERT_EQ(a->Wait(std::chrono::seconds(5)), 128 + SIGKILL);
  const auto killed = std::chrono::steady_clock::now();
  const std::string saved = std::string(
      db.Sql("SELECT txid::text || ':' || seq FROM outbox_cursors").Text(0, 0));
  ASSERT_TRUE(WaitUntil([&] { return holder().rfind("b-", 0) == 0; }, std::chrono::seconds(20)))
      << b.Log();
  const double takeover = std::chrono::duration<double>(std::chrono::steady_clock::now() - killed).count();
  EXPECT_LT(takeover, 15.0) << "a killed holder must be replaced within 15 s";
  ASSERT_TRUE(WaitUntil(at_end, std::chrono::seconds(60))) << b.Log();
  const std::string log = b.Log();
  EXPECT_NE(log.find("\"epoch\":2,\"cursor\":\"" + saved + "\""), std::string::npos)
      << "b must resume, under a new epoch, from the cursor a saved (" << saved << "):\n" << log;
  auto q = DuckDb("SELECT count(DISTINCT event_id) FROM read_parquet(" +
                  SqlQuote((lake / "outbox_events" / "**" / "*.parquet").string()) + ")");
  ASSERT_TRUE(q.ok) << q.error;
  EXPECT_EQ(q.rows[0][0], "1500") << "every event in the lake after the handover";
  std::printf("takeover after kill -9: %.1f s\n", takeover);
}

}  // namespace
}  // namespace sinkd::outbox
