// `outbox status` and the metrics text: lag in events and in age, lease holder, last error and
// dead letters, read from the database whether or not a dispatcher runs here.
#include "outbox/status.h"

#include <gtest/gtest.h>

#include "outbox/outbox_fixture.h"

namespace sinkd::outbox {
namespace {

using testing::CapturedLog;
using testing::Journal;
using testing::One;
using testing::OutboxDb;
using testing::ScriptedRowStore;
using testing::TestOptions;

TEST(SinkStatus, ALaggingFailingSinkShowsItsLagHolderErrorAndDeadLetters) {
  OutboxDb db;
  db.Migrate();
  db.InsertEvents(10);
  db.Sql("UPDATE outbox SET payload = jsonb_set(payload, '{time}', to_jsonb(to_char((now() - "
         "interval '90 seconds') AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"')))");
  ManualClock clock;
  CapturedLog log;
  auto d = Dispatcher::Make(
      TestOptions(db.conninfo(), clock, log.logger(), "host-7"),
      One(std::make_unique<ScriptedRowStore>("wh", std::make_shared<Journal>(),
                                         [](std::span<const sinks::Event> events) {
                                           for (const auto& e : events) {
                                             if (e.id == "evt_2") return Status::Reject("bad row");
                                             if (e.id == "evt_4") return Status::Retry("timeout");
                                           }
                                           return Status::OK();
                                         })),
      {});
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  for (int i = 0; i < 12; ++i) ASSERT_TRUE((*d)->Tick().ok());
  PgConn conn = db.Connect();
  auto status = ReadStatus(conn, {"wh", "new"}, {});
  ASSERT_TRUE(status.ok()) << status.status().ToString();
  ASSERT_EQ(status->size(), 2u);
  const SinkStatus& wh = (*status)[0];
  EXPECT_TRUE(wh.has_cursor);
  EXPECT_EQ(wh.lag_events, 6) << "evt_4 … evt_9 are not delivered";
  EXPECT_NEAR(wh.lag_seconds, 90, 15) << "the oldest undelivered event's age";
  ASSERT_TRUE(wh.lease.has_value());
  EXPECT_EQ(wh.lease->holder, "host-7");
  EXPECT_EQ(wh.last_error, "timeout");
  EXPECT_GE(wh.attempts, 1);
  EXPECT_EQ(wh.dead_letters, 1) << "evt_2 was rejected permanently";
  const SinkStatus& fresh = (*status)[1];
  EXPECT_FALSE(fresh.has_cursor);
  EXPECT_EQ(fresh.lag_events, 10) << "a new sink is behind by everything the outbox holds";

  const std::string text = FormatStatus(*status);
  EXPECT_NE(text.find("lease holder  host-7 (epoch 1"), std::string::npos) << text;
  EXPECT_NE(text.find("none (starts at the origin)"), std::string::npos) << text;
  const std::string metrics = RenderPrometheus(*status, (*d)->Figures());
  EXPECT_NE(metrics.find("sinkd_outbox_lag_events{kind=\"events\",sink=\"wh\"} 6"),
            std::string::npos) << metrics;
  EXPECT_NE(metrics.find("sinkd_outbox_dead_letters{kind=\"events\",sink=\"wh\"} 1"),
            std::string::npos);
  EXPECT_NE(metrics.find("sinkd_outbox_last_error_info{kind=\"events\",sink=\"wh\",error=\"timeout\"} 1"),
            std::string::npos);
  EXPECT_NE(metrics.find("sinkd_outbox_lease_held{kind=\"events\",sink=\"wh\"} 1"),
            std::string::npos);
}

TEST(SinkStatus, LabelValuesAreEscaped) {
  SinkStatus s;
  s.kind = "events";
  s.id = "a\"b\\c";
  s.last_error = "line1\nline2";
  const std::string text = RenderPrometheus({s}, {});
  EXPECT_NE(text.find("sink=\"a\\\"b\\\\c\""), std::string::npos) << text;
  EXPECT_NE(text.find("error=\"line1\\nline2\""), std::string::npos) << text;
}

TEST(SinkStatus, StatusWorksOnADatabaseWithoutTheTables) {
  OutboxDb db;
  PgConn conn = db.Connect();
  auto status = ReadStatus(conn, {"wh"}, {"siem"});
  ASSERT_TRUE(status.ok()) << status.status().ToString();
  EXPECT_FALSE((*status)[0].has_cursor);
  EXPECT_FALSE((*status)[1].lease.has_value());
}

}  // namespace
}  // namespace sinkd::outbox
