// Two `sinkd compact --follow` and a `sinkd drain` at once on one bucket (s3rver behind the
// SigV4 layer), every request of the three through the fault proxy (500, 503, resets before and
// after the body): no acknowledged event_id is ever missing from the bucket while they run, the
// compactors stop on SIGTERM with exit 0, and two last passes past a zero grace (without faults)
// leave one row per event_id, every id there.
// What may leave the bucket: rows nobody acknowledged. A flush that fails after placing some of
// its Parts deletes them (lake::LakeWriter::Flush, "removed N of the M Parts this flush had
// placed") and its messages come back; between the two, those rows were visible, so the count of
// ids in the bucket may fall. The check is therefore against the consumer's ack floor.
#include <gtest/gtest.h>
#include <signal.h>

#include <cstdio>
#include <thread>

#include "contract/delimited.h"
#include "contract/wire_decoder.h"
#include "jetstream/connection.h"
#include "jetstream/pull_consumer.h"
#include "outbox/process.h"
#include "row/ledger_columns.h"
#include "s3/s3_server.h"
#include "support/nats_server.h"

namespace sinkd {
namespace {

using namespace std::chrono_literals;
using sinkd::outbox::testing::Background;
using testing::DuckDb;
using testing::RunCommand;
using testing::SinkdBinary;
using testing::SqlQuote;
using testing::TempDir;
using testing::WaitUntil;

std::vector<std::string> WithCredentials(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"/usr/bin/env",
                                   std::string("AWS_ACCESS_KEY_ID=") + testing::kTestKey,
                                   std::string("AWS_SECRET_ACCESS_KEY=") + testing::kTestSecret,
                                   "AWS_SESSION_TOKEN=",
                                   "AWS_ENDPOINT_URL=",
                                   "S3_BUCKET=",
                                   "LAKE_DIR=",
                                   SinkdBinary().string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return argv;
}

// The event ids of each message of a file `sinkd generate` wrote, in the order `sinkd publish`
// sends them: one publisher on one connection, so message k of the file gets the stream's next
// sequence.
std::vector<std::vector<std::string>> EventIdsPerMessage(const std::filesystem::path& wire) {
  const std::string data = testing::ReadFile(wire);
  contract::DelimitedReader reader(data);
  contract::WireDecoder decoder;
  std::vector<std::vector<std::string>> ids;
  for (;;) {
    auto next = reader.Next();
    EXPECT_TRUE(next.ok()) << next.status().message();
    if (!next.ok() || !next->has_value()) break;
    row::RowBuffer rows(row::kLedgerColumns);
    std::vector<contract::Reject> rejects;
    decoder.Decode(contract::Envelope::kBatch, **next, rows, rejects);
    EXPECT_TRUE(rejects.empty()) << wire;
    ids.emplace_back();
    for (size_t r = 0; r < rows.rows(); ++r) ids.back().emplace_back(rows.Id(r));
  }
  return ids;
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(CompactS3, TwoCompactorsAndADrainAtOnceThroughInjectedFaultsLoseNoRow) {
  TempDir dir;
  testing::NatsServer nats;
  ASSERT_TRUE(nats.ok()) << nats.error();
  ASSERT_EQ(RunCommand({SinkdBinary().string(), "provision", "--nats-url", nats.url()}).exit_code,
            0);
  jetstream::ConnectOptions connect;
  connect.url = nats.url();
  connect.reconnect_forever = false;
  connect.name = "compact-s3-test";
  auto nc = jetstream::Connection::Connect(connect);
  ASSERT_TRUE(nc.ok()) << nc.status().message();
  uint64_t expected = 0;
  // by_sequence[s - 1]: the event ids of stream sequence s.
  std::vector<std::vector<std::string>> by_sequence;
  auto publish = [&](int seed) {
    const std::string wire = (dir / ("in" + std::to_string(seed) + ".bin")).string();
    auto g = RunCommand({SinkdBinary().string(), "generate", "ledger", "--messages", "80",
                         "--events-per-batch", "50", "--seed", std::to_string(seed), "--bad-share",
                         "0", "-o", wire});
    ASSERT_EQ(g.exit_code, 0) << g.err;
    expected += 4000;
    for (auto& ids : EventIdsPerMessage(wire)) by_sequence.push_back(std::move(ids));
    auto p =
        RunCommand({SinkdBinary().string(), "publish", "ledger", "--nats-url", nats.url(), wire});
    ASSERT_EQ(p.exit_code, 0) << p.err;
  };
  publish(31);

  testing::S3Server server;
  ASSERT_TRUE(server.ok()) << server.error();
  testing::FaultRates rates;
  rates.internal_error = 0.05;
  rates.slow_down = 0.04;
  rates.reset = 0.03;
  rates.reset_after = 0.03;
  rates.seed = 5;
  testing::FaultProxy proxy(server.port(), rates);
  ASSERT_TRUE(proxy.ok()) << proxy.error();
  const std::vector<std::string> s3 = {"--s3-endpoint",
                                       proxy.endpoint(),
                                       "--s3-bucket",
                                       "garm-lake",
                                       "--s3-retry-attempts",
                                       "4",
                                       "--s3-retry-max-backoff",
                                       "20ms"};
  auto with = [&](std::vector<std::string> args) {
    args.insert(args.end(), s3.begin(), s3.end());
    return WithCredentials(args);
  };
  // At most 40 messages (2,000 rows) a fetch: every partition gets a Part from each of the first
  // publish's two fetches, so there is always something to merge. A drain that starts late on a
  // busy machine fetched both publishes whole (512 a fetch) into one Part a partition, which
  // compaction leaves alone, and the premise of this test was gone.
  Background drain(with({"drain", "ledger", "--nats-url", nats.url(), "--instance-id", "d1",
                         "--batch-max-rows", "400", "--batch-interval", "200ms", "--fetch-max",
                         "40"}),
                   dir / "drain.log");
  std::vector<std::unique_ptr<Background>> compactors;
  for (const char* id : {"c1", "c2"}) {
    compactors.push_back(std::make_unique<Background>(
        with({"compact", "ledger", "--follow", "--every", "1s", "--min-parts", "2", "--settle",
              "0s", "--grace", "2s", "--instance-id", id}),
        dir / (std::string(id) + ".log")));
  }
  publish(32);

  const std::string glob = SqlQuote((server.BucketDir() / "ledger/**/*._S3rver_object").string());
  const std::filesystem::path acked_csv = dir / "acked.csv";
  // Every sequence at or below the ack floor is acknowledged, so its rows were placed and synced
  // before the floor was read: each of its ids must be in the bucket at any later moment (a
  // compactor places its output before it deletes an input).
  auto ack_floor = [&]() -> uint64_t {
    auto s = jetstream::GetConsumerState(**nc, "GARM_LEDGER", "sink-ledger");
    EXPECT_TRUE(s.ok()) << s.status().message();
    return s.ok() ? s->ack_floor_stream : 0;
  };
  struct Check {
    int64_t distinct = -1;  // ids in the bucket; -1: an object deleted under the query
    int64_t missing = 0;    // acknowledged ids not in it
    std::string example;    // one of them
    uint64_t floor = 0;
  };
  auto check = [&]() -> Check {
    Check c;
    c.floor = ack_floor();
    std::string csv = "event_id\n";
    for (uint64_t s = 1; s <= c.floor && s <= by_sequence.size(); ++s) {
      for (const auto& id : by_sequence[s - 1]) csv += id + "\n";
    }
    testing::WriteFile(acked_csv, csv);
    if (server.Keys().empty()) {
      c.distinct = 0;
      c.missing = c.floor == 0 ? 0 : 1;
      c.example = "(the bucket is empty)";
      return c;
    }
    auto q = DuckDb(
        "WITH lake AS (SELECT DISTINCT event_id FROM read_parquet(" + glob +
        ", hive_partitioning=true)), acked AS (SELECT event_id FROM read_csv(" +
        SqlQuote(acked_csv.string()) +
        ", header=true, columns={'event_id': 'VARCHAR'})), missing AS (SELECT event_id FROM "
        "acked ANTI JOIN lake USING (event_id)) SELECT (SELECT count(*) FROM lake), (SELECT "
        "count(*) FROM missing), (SELECT coalesce(min(event_id), '') FROM missing)");
    if (!q.ok) return c;
    c.distinct = std::stoll(q.rows[0][0]);
    c.missing = std::stoll(q.rows[0][1]);
    c.example = q.rows[0][2];
    return c;
  };
  int64_t highest = 0;
  std::string fell;  // the first fall of the bucket's id count: rows no one had acknowledged
  const bool all = WaitUntil(
      [&] {
        const Check c = check();
        if (c.distinct < 0) return false;
        EXPECT_EQ(c.missing, 0) << "acknowledged ids (sequences 1-" << c.floor
                                << ") missing from the bucket, e.g. " << c.example;
        if (c.distinct < highest && fell.empty()) {
          fell = std::to_string(highest) + " to " + std::to_string(c.distinct) +
                 " (ack floor " + std::to_string(c.floor) + ")";
        }
        highest = std::max(highest, c.distinct);
        return c.distinct == static_cast<int64_t>(expected);
      },
      180s, 1000ms);
  ASSERT_TRUE(all) << check().distinct << " of " << expected << "\n" << drain.Log().substr(0, 3000);
  // Let the compactors work on the whole lake for a few passes, then stop them.
  std::this_thread::sleep_for(5s);
  for (auto& c : compactors) {
    c->Signal(SIGTERM);
    EXPECT_EQ(c->Wait(120s), 0) << c->Log().substr(0, 3000);
  }
  drain.Signal(SIGTERM);
  EXPECT_EQ(drain.Wait(60s), 0);
  // Not a failure: what the check against the ack floor allows, and why.
  const std::string fall = fell.empty() ? "never" : "from " + fell;
  std::printf("the bucket's distinct ids fell %s; failed flushes took back their Parts %zu times\n",
              fall.c_str(), Count(drain.Log(), "this flush had placed"));
  const std::string logs = compactors[0]->Log() + compactors[1]->Log();
  EXPECT_NE(logs.find("\"msg\":\"compaction output\""), std::string::npos) << logs.substr(0, 3000);
  size_t faults = 0;
  for (const auto& e : proxy.Log()) faults += e["fault"] != "none";
  EXPECT_GT(faults, 5u) << "the premise: faults were injected";

  // Without the proxy: two passes past a zero grace finish every merge and deletion.
  for (int i = 0; i < 2; ++i) {
    auto r = RunCommand(
        WithCredentials({"compact", "ledger", "--s3-endpoint", server.endpoint(), "--s3-bucket",
                         "garm-lake", "--min-parts", "2", "--settle", "0s", "--grace", "0s"}),
        "", 120s);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  // Every message was acknowledged, and every id of every one is in the bucket once.
  ASSERT_EQ(ack_floor(), by_sequence.size()) << drain.Log().substr(0, 3000);
  const Check last = check();
  EXPECT_EQ(last.missing, 0) << "an acknowledged event_id is missing, e.g. " << last.example;
  auto q = DuckDb("SELECT count(*), count(DISTINCT event_id) FROM read_parquet(" + glob +
                  ", hive_partitioning=true)");
  ASSERT_TRUE(q.ok) << q.error;
  EXPECT_EQ(q.rows[0][1], std::to_string(expected)) << "an event_id is missing";
  EXPECT_EQ(q.rows[0][0], q.rows[0][1]) << "duplicates left after passes past the grace";
}

}  // namespace
}  // namespace sinkd
