// A flush that never returns (a hung mount, a store that accepts and never answers): past
// --flush-timeout it is abandoned, its batch nak'd and never acked, the drain holds and fetches
// nothing and is not ready until a flush succeeds again, and a stop still ends.
#include <gtest/gtest.h>

#include "drain/drain_rig.h"

namespace sinkd {
namespace {

using namespace std::chrono_literals;
using testing::DrainRig;
using testing::WaitUntil;

std::vector<garm::ledger::v1::Event> StuckEvents(const std::string& prefix, int n) {
  std::vector<garm::ledger::v1::Event> out;
  for (int i = 0; i < n; ++i) out.push_back(testing::MakeEvent(prefix + std::to_string(i)));
  return out;
}

// Distinct event_ids and rows in the lake (a late Part's copy counts in rows only).
std::pair<size_t, size_t> DistinctAndRows(const std::filesystem::path& lake) {
  auto q = testing::DuckDb("SELECT count(DISTINCT event_id), count(*) FROM read_parquet(" +
                           testing::SqlQuote((lake / "**/*.parquet").string()) +
                           ", hive_partitioning=true)");
  if (!q.ok) return {0, 0};
  return {std::stoul(q.rows[0][0]), std::stoul(q.rows[0][1])};
}

// A second drain on the rig's durable, in this process: its own binding, dead-letter publisher,
// destination and lake row store (another instance id into the same lake directory) and metrics, run
// on its own thread until stopped.
class OtherDrain {
 public:
  explicit OtherDrain(DrainRig& rig) {
    auto consumer = rig.Bind();
    EXPECT_TRUE(consumer.ok()) << consumer.status().ToString();
    auto destination = lake::DirDestination::Make(rig.lake_dir().string());
    EXPECT_TRUE(destination.ok()) << destination.status().ToString();
    if (!consumer.ok() || !destination.ok()) return;
    consumer_ = std::move(consumer).value();
    destination_ = std::move(destination).value();
    publisher_ = std::make_unique<jetstream::DeadLetterPublisher>(*rig.connection,
                                                                  rig.options.origin);
    dead_ = std::make_unique<drain::StreamDeadLetters>(*publisher_);
    lake::LakeWriterOptions lake = rig.lake;
    lake.instance = "box-88";
    sink_ = std::make_unique<drain::LakeRowStore>(*destination_, lake);
    metrics.destination_reachable = true;
    drain_ = std::make_unique<drain::Drain>(rig.options, *consumer_, *dead_, *sink_, rig.log,
                                            &metrics);
    thread_ = std::thread([this] { status_ = drain_->Run(stop_); });
  }
  ~OtherDrain() { Stop(); }
  void Stop() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
  }
  metrics::DrainMetrics metrics;

 private:
  std::unique_ptr<jetstream::PullConsumer> consumer_;
  std::unique_ptr<lake::DirDestination> destination_;
  std::unique_ptr<jetstream::DeadLetterPublisher> publisher_;
  std::unique_ptr<drain::StreamDeadLetters> dead_;
  std::unique_ptr<drain::LakeRowStore> sink_;
  std::unique_ptr<drain::Drain> drain_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  Status status_;
};

// The failure: Settle waited for the flush with no deadline while keep-alives went on, so one
// hung write held its batch forever and no other drain on the durable ever got those messages.
// Now the other drain writes them within the ack wait (3 s) plus the flush timeout (1 s), the
// stuck one holds nothing (what is published meanwhile goes to the other one too), and when the
// hung flush finally returns OK nothing of its batch is acked: the other drain settled it.
TEST(StuckFlush, AFlushPastItsTimeoutIsAbandonedAndAnotherDrainWritesItsMessages) {
  DrainRig rig;
  ASSERT_TRUE(rig.server.ok()) << rig.server.error();
  rig.options.flush_timeout = 1s;
  rig.store->hang = true;
  for (int m = 0; m < 3; ++m) {
    testing::PublishLedger(*rig.connection, StuckEvents("h" + std::to_string(m) + "-", 2));
  }
  ASSERT_TRUE(rig.Start());
  ASSERT_TRUE(WaitUntil([&] { return rig.store->in_flight.load() == 1; }, 10s))
      << "premise: the first flush must have started and hung";
  const auto hung_at = std::chrono::steady_clock::now();
  OtherDrain other(rig);
  ASSERT_TRUE(WaitUntil([&] { return rig.Drained(); }, 20s))
      << "the hung drain's messages never reached the other drain";
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - hung_at).count();
  std::printf("the other drain settled the held messages %.1f s after the flush hung\n", seconds);
  EXPECT_LT(seconds, 3.0 + 1.0 + 2.0) << "ack wait + flush timeout, and a little for the nak";
  EXPECT_EQ(DistinctAndRows(rig.lake_dir()).first, 6u);
  EXPECT_EQ(rig.metrics.flushes_abandoned.load(), 1u);
  EXPECT_TRUE(rig.metrics.flush_stuck.load());
  EXPECT_FALSE(rig.metrics.ready()) << rig.metrics.Readiness();
  EXPECT_NE(rig.metrics.Readiness().find("flush_in_time=false"), std::string::npos);
  EXPECT_EQ(rig.metrics.buffered_rows.load(), 0) << "a stuck drain holds nothing";

  // While the flush hangs the stuck drain fetches nothing: what comes now is the other's.
  testing::PublishLedger(*rig.connection, StuckEvents("late-", 2));
  ASSERT_TRUE(WaitUntil([&] { return rig.Drained(); }, 10s))
      << "a message published while the flush hung was held by the stuck drain";
  EXPECT_EQ(DistinctAndRows(rig.lake_dir()).first, 8u);
  EXPECT_EQ(rig.store->attempts.load(), 1) << "the stuck drain was handed no second flush";

  // The hung flush returns OK and lands its Part late (a copy): nothing is acked for it, and the
  // drain stays not ready until a flush of its own succeeds.
  rig.store->hang = false;
  ASSERT_TRUE(WaitUntil([&] { return rig.store->flushes() == 1; }, 10s))
      << "premise: the late flush itself succeeded";
  EXPECT_TRUE(WaitUntil([&] { return !rig.metrics.flush_stuck.load(); }, 10s));
  EXPECT_EQ(rig.metrics.flushes.load(), 0u) << "the abandoned batch was acked after its flush";
  EXPECT_FALSE(rig.metrics.ready()) << rig.metrics.Readiness();
  const auto [distinct, rows] = DistinctAndRows(rig.lake_dir());
  EXPECT_EQ(distinct, 8u);
  EXPECT_EQ(rows, 8u + 6u) << "the late Part is another copy of the abandoned batch's six rows";

  other.Stop();
  testing::PublishLedger(*rig.connection, StuckEvents("again-", 1));
  ASSERT_TRUE(WaitUntil([&] { return rig.metrics.flushes.load() == 1; }, 10s))
      << "the drain never flushed again after its stuck flush returned";
  EXPECT_TRUE(rig.metrics.ready()) << rig.metrics.Readiness();
  EXPECT_TRUE(WaitUntil([&] { return rig.Drained(); }, 10s));
}

// A stop must end even with a flush that never returns: Run naks what it holds, waits a bounded
// time and returns Retry with flush_stuck() (sinkd drain then exits), rather than joining the
// stuck thread forever.
TEST(StuckFlush, AStopWithAFlushStuckReturnsAfterABoundedWait) {
  DrainRig rig;
  ASSERT_TRUE(rig.server.ok()) << rig.server.error();
  rig.options.flush_timeout = 1s;
  rig.store->hang = true;
  testing::PublishLedger(*rig.connection, StuckEvents("s", 2));
  ASSERT_TRUE(rig.Start());
  ASSERT_TRUE(WaitUntil([&] { return rig.store->in_flight.load() == 1; }, 10s));
  // Something buffered besides the stuck batch, to be nak'd by the stop.
  testing::PublishLedger(*rig.connection, StuckEvents("t", 2));
  const auto stopped_at = std::chrono::steady_clock::now();
  rig.stop = true;
  rig.thread.join();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - stopped_at).count();
  EXPECT_TRUE(rig.run_status.IsRetry()) << rig.run_status.ToString();
  EXPECT_TRUE(rig.drain->flush_stuck());
  EXPECT_LT(seconds, 1.0 + drain::Drain::kStuckShutdownWait.count() + 3.0)
      << "the flush timeout, then the bounded wait";
  EXPECT_GE(rig.metrics.naks.load(), 2u)
      << "both messages held (the stuck batch's and the one fetched after) are nak'd, not left "
         "to the ack wait";
  rig.store->hang = false;  // lets the Drain be destroyed
}

}  // namespace
}  // namespace sinkd
