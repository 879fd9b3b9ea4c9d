// The partitions one flush may write (--max-partitions-per-flush): a publisher controls `app` and
// `time`, so one message could otherwise make one Part per event. What the batch takes, what it
// turns away for the next batch, and what a drain dead-letters, one event at a time.
#include <gtest/gtest.h>

#include <set>

#include "drain/batch.h"
#include "drain/drain_rig.h"

namespace sinkd {
namespace {

using namespace std::chrono_literals;
using testing::DrainRig;
using testing::WaitUntil;

// `n` events, event i of app "<prefix><i>" (so n partitions), all on one day.
std::vector<garm::ledger::v1::Event> DistinctApps(const std::string& prefix, int n) {
  std::vector<garm::ledger::v1::Event> out;
  for (int i = 0; i < n; ++i) {
    out.push_back(testing::MakeEvent(prefix + "e" + std::to_string(i), prefix + std::to_string(i)));
  }
  return out;
}

drain::Added AddTo(drain::Batch& batch, const std::string& payload, uint64_t sequence) {
  return batch.Add(drain::Record{payload, "garm.v1.ledger.acme.svc", sequence},
                   contract::Envelope::kBatch, std::chrono::steady_clock::now());
}

// One message of 6 apps into a batch of at most 4 partitions: the first four apps stay rows, the
// fifth and sixth are a reject each, with their own index and their own bytes, and a bad event
// before them does not shift which event a rejected row was.
TEST(PartitionCap, AMessageSpanningMoreThanTheCapKeepsItsFirstPartitionsAndRejectsEachEventPast) {
  auto events = DistinctApps("a", 7);
  events[2].clear_event_id();  // unreadable: a reject of its own, at index 2
  const std::string payload = testing::BatchOf(events);
  drain::Batch batch;
  batch.SetMaxPartitions(4);
  const drain::Added added = AddTo(batch, payload, 1);
  ASSERT_TRUE(added.held) << "an empty batch takes every message";
  EXPECT_EQ(batch.rows.rows(), 4u);
  EXPECT_EQ(batch.partitions(), 4u);
  EXPECT_TRUE(batch.partitions_full());
  ASSERT_EQ(batch.rejects.size(), 3u);
  EXPECT_EQ(batch.rejects[0].reject.index, 2);
  EXPECT_EQ(batch.rejects[0].reject.reason, contract::RejectReason::kMissingEventId);
  for (size_t k = 1; k < 3; ++k) {
    const contract::Reject& r = batch.rejects[k].reject;
    EXPECT_EQ(r.reason, contract::RejectReason::kTooManyPartitions);
    EXPECT_EQ(r.index, static_cast<int>(k) + 4) << "events 5 and 6 are past the cap";
    EXPECT_EQ(r.payload, events[r.index].SerializeAsString()) << "the event's own bytes";
    EXPECT_NE(r.error.find("--max-partitions-per-flush"), std::string::npos) << r.error;
    EXPECT_NE(r.error.find("4 partitions"), std::string::npos) << r.error;
  }
  EXPECT_EQ(batch.held[0].rows, 4u);
  EXPECT_EQ(batch.held[0].rejects, 3u);
  std::set<std::string> ids;
  const int id_column = row::kLedgerColumns.id_column;
  for (size_t r = 0; r < batch.rows.rows(); ++r) {
    ids.emplace(batch.rows.column(id_column).strings.at(r));
  }
  EXPECT_EQ(ids, (std::set<std::string>{"ae0", "ae1", "ae3", "ae4"}));
}

// Ordinary traffic spread over more partitions than the cap costs a smaller batch, never an
// event: a message that would take a batch holding rows past the cap is turned away whole (and
// left as it was), and the next, empty batch takes it.
TEST(PartitionCap, AMessageThatWouldPassTheCapIsTurnedAwayWholeAndTheNextBatchTakesIt) {
  const std::string first = testing::BatchOf(DistinctApps("x", 3));
  const std::string second = testing::BatchOf(DistinctApps("y", 3));
  drain::Batch batch;
  batch.SetMaxPartitions(5);
  ASSERT_TRUE(AddTo(batch, first, 1).held);
  EXPECT_FALSE(batch.partitions_full());
  const drain::Record message{second, "garm.v1.ledger.acme.svc", 2};
  const auto now = std::chrono::steady_clock::now();
  const drain::Added turned = batch.Add(message, contract::Envelope::kBatch, now);
  EXPECT_FALSE(turned.held);
  EXPECT_EQ(batch.rows.rows(), 3u) << "its rows were taken back";
  EXPECT_EQ(batch.partitions(), 3u);
  EXPECT_EQ(batch.messages(), 1u);
  EXPECT_TRUE(batch.rejects.empty());
  EXPECT_TRUE(batch.partitions_full()) << "it must close now";
  drain::Batch next;
  next.SetMaxPartitions(5);
  const drain::Added taken = next.Add(message, contract::Envelope::kBatch, now);
  EXPECT_TRUE(taken.held);
  EXPECT_EQ(next.rows.rows(), 3u);
  EXPECT_TRUE(next.rejects.empty());
}

// The case: one Batch of 5,000 events with distinct apps. The flush writes 1,000
// partitions (Parts), the other 4,000 events are dead letters, one each, naming the cap; nothing
// else is lost (every event_id is a row or a dead letter) and the metric counts 4,000.
TEST(PartitionCap, OneBatchOfFiveThousandAppsWritesAThousandPartsAndDeadLettersTheRestOneByOne) {
  DrainRig rig;
  ASSERT_TRUE(rig.server.ok()) << rig.server.error();
  ASSERT_EQ(rig.options.max_partitions_per_flush, 1000u) << "premise: the default";
  const auto events = DistinctApps("p", 5000);
  testing::PublishLedger(*rig.connection, events);
  ASSERT_TRUE(rig.Start());
  ASSERT_TRUE(WaitUntil([&] { return rig.Drained(); }, 120s)) << "never settled";
  rig.Stop();
  EXPECT_EQ(rig.metrics.dead_too_many_partitions.load(), 4000u);
  const std::string glob = (rig.lake_dir() / "**/*.parquet").string();
  auto lake = testing::DuckDb("SELECT count(DISTINCT event_id), count(*), count(DISTINCT app), "
                              "count(DISTINCT filename) FROM read_parquet(" +
                              testing::SqlQuote(glob) + ", hive_partitioning=true, filename=true)");
  ASSERT_TRUE(lake.ok) << lake.error;
  EXPECT_EQ(lake.rows[0], (std::vector<std::string>{"1000", "1000", "1000", "1000"}))
      << "distinct ids, rows, apps, Parts";
  std::set<std::string> ids;
  auto in_lake = testing::DuckDb("SELECT event_id FROM read_parquet(" + testing::SqlQuote(glob) +
                                 ")");
  ASSERT_TRUE(in_lake.ok) << in_lake.error;
  for (const auto& row : in_lake.rows) ids.insert(row[0]);
  const auto dead = testing::ReadStream(*rig.connection, jetstream::kDeadStream);
  ASSERT_EQ(dead.size(), 4000u);
  std::set<int> indices;
  for (const auto& d : dead) {
    EXPECT_EQ(d.headers.at("Garm-Dead-Reason"), "too_many_partitions");
    indices.insert(std::stoi(d.headers.at("Garm-Dead-Event-Index")));
    garm::ledger::v1::Event back;
    ASSERT_TRUE(back.ParseFromString(d.data)) << "a dead letter holds one event's bytes";
    EXPECT_TRUE(ids.insert(back.event_id()).second) << back.event_id() << " twice";
  }
  EXPECT_EQ(indices.size(), 4000u) << "one dead letter per event";
  EXPECT_NE(dead[0].headers.at("Garm-Dead-Error").find("--max-partitions-per-flush"),
            std::string::npos);
  EXPECT_EQ(ids.size(), 5000u) << "every event is a row or a dead letter";
  EXPECT_EQ(rig.State().ack_floor_stream, 1u) << "the message was acked (it gave rows)";
}

}  // namespace
}  // namespace sinkd
