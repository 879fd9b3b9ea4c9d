// The outbox lake sink on S3 with a fixed instance: a redelivered batch whose bytes differ from
// the Part already at its key is delivered beside it, not refused until it is dead-lettered.
#include <gtest/gtest.h>

#include "s3/s3_destination.h"
#include "s3_server.h"
#include "s3_test_util.h"
#include "sinks/lake_sink.h"

namespace sinkd::s3 {
namespace {

using sinkd::testing::CapturedLog;
using sinkd::testing::DuckDb;
using sinkd::testing::S3Server;
using sinkd::testing::SqlQuote;
using sinkd::testing::TestOptions;

sinks::Event OutboxEvent(int n, const std::string& data) {
  sinks::Event e;
  e.id = "evt_" + std::to_string(n);
  e.type = "reservation.created";
  e.tenant_id = "ten_1";
  e.subject = "reservation/rsv_" + std::to_string(n);
  e.time = "2026-09-29T10:00:0" + std::to_string(n) + "Z";
  e.txid = 900;
  e.seq = n;
  e.sequence = "900:" + std::to_string(n);
  e.data_json = data;
  return e;
}

// It once got 412 on every attempt (If-None-Match kept the first Part), so the batch was retried,
// bisected and finally dead-lettered although its rows were in the lake.
TEST(S3OutboxLake, ARedeliveredBatchWhoseBytesDifferIsDeliveredBesideThePartInPlace) {
  S3Server server;
  ASSERT_TRUE(server.ok()) << server.error();
  CapturedLog log;
  auto made = S3Destination::Make(TestOptions(server.endpoint()), &log.log());
  ASSERT_TRUE(made.ok());
  lake::LakeWriterOptions options;
  options.key_prefix = "outbox_events";
  options.instance = "dispatch-1";  // fixed, as a configured dispatcher's is
  sinks::LakeEventSink sink("lake", std::move(made).value(), options);
  ASSERT_TRUE(sink.Open().ok());

  std::vector<sinks::Event> batch = {OutboxEvent(1, "{\"v\":1}"), OutboxEvent(2, "{\"v\":1}")};
  ASSERT_TRUE(sink.Deliver(batch).ok());
  ASSERT_TRUE(sink.Deliver(batch).ok()) << "the same bytes again: found in place";
  EXPECT_EQ(server.Keys().size(), 1u) << "no copy for the same bytes";
  batch[1].data_json = "{\"v\":2}";  // the same positions read back with other bytes
  Status s = sink.Deliver(batch);
  EXPECT_TRUE(s.ok()) << s.ToString();
  const auto keys = server.Keys();
  ASSERT_EQ(keys.size(), 2u);
  EXPECT_NE(keys[1].find("part-dispatch-1.1-1-2-0.parquet"), std::string::npos) << keys[1];
  auto q = DuckDb("SELECT count(*), count(DISTINCT event_id) FROM read_parquet(" +
                  SqlQuote((server.BucketDir() / "outbox_events/**/*._S3rver_object").string()) +
                  ")");
  ASSERT_TRUE(q.ok) << q.error;
  EXPECT_EQ(q.rows[0][0], "4");
  EXPECT_EQ(q.rows[0][1], "2");
}

}  // namespace
}  // namespace sinkd::s3
