// /metrics, /healthz and /readyz scraped over HTTP from a drain running against a real nats-server.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>

#include "drain/drain.h"
#include "drain/drain_rig.h"
#include "http/listener.h"

namespace sinkd {
namespace {

using namespace std::chrono_literals;

std::string Get(int port, const std::string& path) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return "";
  }
  const std::string req = "GET " + path + " HTTP/1.1\r\nHost: x\r\n\r\n";
  (void)!::write(fd, req.data(), req.size());
  std::string out;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(fd, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return out;
}

// The value of the first sample line starting with `series` ("name{labels}"), or -1.
double Sample(const std::string& text, const std::string& series) {
  size_t at = text.find("\n" + series + " ");
  if (at == std::string::npos) return -1;
  return std::stod(text.substr(at + series.size() + 2));
}

// Every metric the README names is served, and moves when what it counts happens: a flush, a
// dead letter, a failed flush (nak and redelivery), the consumer's counts, the last flush time.
TEST(Metrics, EveryNamedMetricIsScrapedAndCountsWhatHappened) {
  testing::DrainRig rig;
  ASSERT_TRUE(rig.server.ok()) << rig.server.error();
  http::Listener listener(rig.metrics);
  rig.metrics.origin = "ledger";
  ASSERT_TRUE(listener.Start("127.0.0.1:0").ok());
  auto events =
      std::vector<garm::ledger::v1::Event>{testing::MakeEvent("m1"), testing::MakeEvent("m2")};
  events[1].clear_time();
  testing::PublishLedger(*rig.connection, events);
  testing::Publish(*rig.connection, "garm.v1.ledger.acme.svc", std::string("\x0f\xff", 2));
  rig.store->failures = 1;
  ASSERT_TRUE(rig.Start());
  ASSERT_TRUE(testing::WaitUntil([&] { return rig.Drained(); }, 15s));
  ASSERT_TRUE(testing::WaitUntil([&] { return rig.metrics.consumer_ack_pending.load() == 0; }, 8s));

  const std::string body = Get(listener.port(), "/metrics");
  ASSERT_NE(body.find("HTTP/1.1 200 OK"), std::string::npos) << body;
  const std::string l = "{origin=\"ledger\"}";
  EXPECT_GE(Sample(body, "sinkd_messages_total" + l), 2) << body;
  EXPECT_EQ(Sample(body, "sinkd_rows_flushed_total" + l), 1);
  EXPECT_GT(Sample(body, "sinkd_bytes_flushed_total" + l), 0);
  EXPECT_EQ(Sample(body, "sinkd_flushes_total" + l), 1);
  EXPECT_GE(Sample(body, "sinkd_flush_failures_total" + l), 1);
  EXPECT_EQ(Sample(body, "sinkd_flush_duration_seconds_count" + l), 1);
  EXPECT_EQ(Sample(body, "sinkd_flush_rows_count" + l), 1);
  EXPECT_EQ(Sample(body, "sinkd_flush_rows_sum" + l), 1);
  EXPECT_EQ(Sample(body, "sinkd_dead_letters_total{origin=\"ledger\",reason=\"unmarshal\"}"), 1);
  EXPECT_EQ(Sample(body, "sinkd_dead_letters_total{origin=\"ledger\",reason=\"missing_time\"}"), 1);
  EXPECT_EQ(Sample(body, "sinkd_dead_letters_total{origin=\"ledger\",reason=\"missing_event_id\"}"),
            0);
  EXPECT_GE(Sample(body, "sinkd_naks_total" + l), 1) << "the failed flush nak'd its messages";
  EXPECT_GE(Sample(body, "sinkd_redeliveries_total" + l), 1) << "and they were delivered again";
  EXPECT_EQ(Sample(body, "sinkd_consumer_pending" + l), 0);
  EXPECT_EQ(Sample(body, "sinkd_consumer_ack_pending" + l), 0);
  EXPECT_EQ(Sample(body, "sinkd_oldest_buffered_row_age_seconds" + l), 0) << "nothing buffered";
  const double last = Sample(body, "sinkd_last_flush_timestamp_seconds" + l);
  EXPECT_NEAR(last, static_cast<double>(std::time(nullptr)), 60) << "a recent flush";
  EXPECT_NE(body.find("# TYPE sinkd_flush_duration_seconds histogram"), std::string::npos);
  EXPECT_NE(body.find("sinkd_flush_duration_seconds_bucket{origin=\"ledger\",le=\"+Inf\"} 1"),
            std::string::npos);
  EXPECT_GE(Sample(body, "sinkd_ack_failures_total" + l), 0);
  EXPECT_GE(Sample(body, "sinkd_fetch_errors_total" + l), 0);

  EXPECT_NE(Get(listener.port(), "/healthz").find("200 OK"), std::string::npos);
  const std::string ready = Get(listener.port(), "/readyz");
  EXPECT_NE(ready.find("200 OK"), std::string::npos) << ready;
  EXPECT_NE(Get(listener.port(), "/nope").find("404"), std::string::npos);
}

// GARM_SINK_DEAD refuses dead letters once full (DiscardNew), and then every batch holding a bad
// record is nak'd: its content and limits are served so that an alert fires well before.
TEST(Metrics, TheDeadLetterStreamsFillAndLimitsAreServed) {
  testing::DrainRig rig;
  ASSERT_TRUE(rig.server.ok()) << rig.server.error();
  http::Listener listener(rig.metrics);
  rig.metrics.origin = "ledger";
  ASSERT_TRUE(listener.Start("127.0.0.1:0").ok());
  const std::string l = "{origin=\"ledger\"}";
  EXPECT_EQ(Sample(Get(listener.port(), "/metrics"), "sinkd_dead_stream_max_bytes" + l), -1)
      << "not read yet";
  for (int i = 0; i < 3; ++i) {
    testing::Publish(*rig.connection, "garm.v1.ledger.acme.svc", std::string("\x0f\xff", 2));
  }
  ASSERT_TRUE(rig.Start());
  ASSERT_TRUE(
      testing::WaitUntil([&] { return rig.metrics.dead_stream_messages.load() == 3; }, 15s));
  const std::string body = Get(listener.port(), "/metrics");
  auto state = jetstream::GetStreamState(*rig.connection, jetstream::kDeadStream);
  ASSERT_TRUE(state.ok()) << state.status().ToString();
  EXPECT_EQ(Sample(body, "sinkd_dead_stream_messages" + l), 3) << body;
  EXPECT_EQ(Sample(body, "sinkd_dead_stream_bytes" + l), static_cast<double>(state->bytes));
  EXPECT_GT(state->bytes, 0u);
  EXPECT_EQ(Sample(body, "sinkd_dead_stream_max_bytes" + l), 1024.0 * 1024 * 1024)
      << "provision's 1 GiB";
  EXPECT_EQ(Sample(body, "sinkd_dead_stream_max_messages" + l), -1) << "no message limit";
}

// While something is buffered its age is reported, so an alert can fire on a stuck batch.
TEST(Metrics, TheOldestBufferedRowHasAnAge) {
  testing::DrainRig rig;
  ASSERT_TRUE(rig.server.ok()) << rig.server.error();
  rig.options.batch_interval = std::chrono::hours(1);
  http::Listener listener(rig.metrics);
  rig.metrics.origin = "ledger";
  ASSERT_TRUE(listener.Start("127.0.0.1:0").ok());
  testing::PublishLedger(*rig.connection, {testing::MakeEvent("o1")});
  ASSERT_TRUE(rig.Start());
  ASSERT_TRUE(testing::WaitUntil([&] { return rig.metrics.buffered_rows.load() == 1; }, 10s));
  std::this_thread::sleep_for(1200ms);
  const std::string body = Get(listener.port(), "/metrics");
  EXPECT_GE(Sample(body, "sinkd_oldest_buffered_row_age_seconds{origin=\"ledger\"}"), 1.0) << body;
  EXPECT_EQ(Sample(body, "sinkd_buffered_rows{origin=\"ledger\"}"), 1);
}

// A flush may run up to --flush-timeout (5 min by default) before it is abandoned: the duration
// buckets reach that far and beyond, so a 4-minute flush is told from a 9-minute one instead of
// both being +Inf.
TEST(Metrics, FlushDurationBucketsReachPastTheFlushTimeout) {
  metrics::DrainMetrics m;
  m.origin = "ledger";
  const double timeout = std::chrono::duration<double>(drain::DrainOptions{}.flush_timeout).count();
  const auto& bounds = m.flush_seconds.bounds;
  EXPECT_NE(std::find(bounds.begin(), bounds.end(), timeout), bounds.end())
      << "no bucket ends at the default flush timeout, " << timeout << " s";
  EXPECT_GE(bounds.back(), 2 * timeout);
  m.flush_seconds.Observe(200);
  m.flush_seconds.Observe(420);
  const std::string body = "\n" + m.Render(0);
  const std::string b = "sinkd_flush_duration_seconds_bucket{origin=\"ledger\",le=";
  EXPECT_EQ(Sample(body, b + "\"120\"}"), 0) << body;
  EXPECT_EQ(Sample(body, b + "\"300\"}"), 1) << body;
  EXPECT_EQ(Sample(body, b + "\"600\"}"), 2) << body;
  EXPECT_EQ(Sample(body, b + "\"+Inf\"}"), 2) << body;
}

// /readyz says which of its three conditions is missing; /healthz stays 200.
TEST(Metrics, ReadyzIsUnavailableUntilConnectedBoundAndReachable) {
  metrics::DrainMetrics m;
  m.origin = "audit";
  http::Listener listener(m);
  ASSERT_TRUE(listener.Start("127.0.0.1:0").ok());
  m.connected = true;
  m.consumer_bound = true;
  std::string r = Get(listener.port(), "/readyz");
  EXPECT_NE(r.find("503"), std::string::npos) << r;
  EXPECT_NE(r.find("destination_reachable=false"), std::string::npos) << r;
  EXPECT_NE(Get(listener.port(), "/healthz").find("200 OK"), std::string::npos);
  m.destination_reachable = true;
  EXPECT_NE(Get(listener.port(), "/readyz").find("200 OK"), std::string::npos);
  EXPECT_TRUE(listener.Start("nonsense").IsRefuse());
}

// Clients that send half a request and stall, more of them than the listener has workers, hold
// the listener for its request timeout at most, and the drain for nothing: it keeps flushing while
// they are connected, and a scrape behind them is answered within the timeout. Production limits.
TEST(Metrics, StalledClientsNeitherStallTheDrainNorKeepAScrapeWaiting) {
  testing::DrainRig rig;
  ASSERT_TRUE(rig.server.ok()) << rig.server.error();
  rig.options.batch_interval = 100ms;
  http::Listener listener(rig.metrics);
  rig.metrics.origin = "ledger";
  ASSERT_TRUE(listener.Start("127.0.0.1:0").ok());
  ASSERT_TRUE(rig.Start());
  std::vector<int> stalled;
  for (int i = 0; i < http::HttpLimits{}.threads * 3; ++i) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(static_cast<uint16_t>(listener.port()));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    const std::string half = "GET /metrics HTTP/1.1\r\nHost: x\r\n";
    (void)!::write(fd, half.data(), half.size());
    stalled.push_back(fd);
  }
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 3; ++i) {
    testing::PublishLedger(*rig.connection, {testing::MakeEvent("s" + std::to_string(i))});
    const size_t want = static_cast<size_t>(i) + 1;
    EXPECT_TRUE(testing::WaitUntil([&] { return rig.store->flushes() >= want; }, 10s))
        << "flush " << want << " while " << stalled.size() << " clients stall";
    if (i == 0) {
      int still_waiting = 0;
      for (int fd : stalled) {
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, 0) == 0) ++still_waiting;
      }
      EXPECT_EQ(still_waiting, static_cast<int>(stalled.size()))
          << "the first flush came while every stalled client was still connected";
    }
  }
  const auto flushed = std::chrono::steady_clock::now() - start;
  const std::string body = Get(listener.port(), "/metrics");
  const auto answered = std::chrono::steady_clock::now() - start;
  EXPECT_NE(body.find("HTTP/1.1 200 OK"), std::string::npos) << body;
  EXPECT_GE(Sample(body, "sinkd_flushes_total{origin=\"ledger\"}"), 3) << body;
  EXPECT_LT(answered, http::HttpLimits{}.request_timeout + 3s);
  for (int fd : stalled) ::close(fd);
  std::fprintf(stderr, "3 flushes in %lld ms, the scrape answered after %lld ms\n",
               static_cast<long long>(
                   std::chrono::duration_cast<std::chrono::milliseconds>(flushed).count()),
               static_cast<long long>(
                   std::chrono::duration_cast<std::chrono::milliseconds>(answered).count()));
}

}  // namespace
}  // namespace sinkd
