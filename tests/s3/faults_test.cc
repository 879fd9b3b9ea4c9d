// Retries through a proxy that injects 500s, 503 SlowDowns, connection resets (before and after
// the store did the work) and latency: every Commit that returns OK has its object in the store
// with exactly its bytes, and one that runs out of attempts leaves nothing.
#include <gtest/gtest.h>

#include "lake/lake_writer.h"
#include "s3/crypto.h"
#include "s3/s3_destination.h"
#include "s3_server.h"
#include "s3_test_util.h"
#include "support/ledger_rows.h"

namespace sinkd::s3 {
namespace {

using sinkd::testing::CapturedLog;
using sinkd::testing::FaultProxy;
using sinkd::testing::FaultRates;
using sinkd::testing::PutPart;
using sinkd::testing::RandomBytes;
using sinkd::testing::ReadFile;
using sinkd::testing::S3Server;
using sinkd::testing::TestOptions;
using sinkd::testing::DuckDb;
using sinkd::testing::SqlQuote;

// The failure this prevents: an ack for rows whose object never landed, or a flush that gives up
// on a store that only hiccupped. 30% of requests fail; each Part must still land, and no Commit
// may return before its object exists.
TEST(S3Faults, RetriesSurviveThirtyPercentFaultsAndNothingCommitsBeforeItsObjectExists) {
  S3Server server;
  ASSERT_TRUE(server.ok()) << server.error();
  FaultRates rates;
  rates.internal_error = 0.08;
  rates.slow_down = 0.08;
  rates.reset = 0.06;
  rates.reset_after = 0.04;
  rates.error_after = 0.04;
  rates.latency = 0.1;
  rates.latency_ms = 5;
  rates.seed = 7;
  FaultProxy proxy(server.port(), rates);
  ASSERT_TRUE(proxy.ok()) << proxy.error();
  CapturedLog log;
  S3Options options = TestOptions(proxy.endpoint());
  options.retry.attempts = 12;  // 0.3^12: a request failing every time would be a real bug
  options.multipart_threshold = 32 * 1024;
  auto made = S3Destination::Make(options, &log.log());
  ASSERT_TRUE(made.ok());
  S3Destination& destination = **made;
  ASSERT_TRUE(destination.Ensure().ok());
  for (int i = 0; i < 40; ++i) {
    // Sizes from 1 KiB to ~100 KiB: single PUTs and multipart uploads of up to 4 pieces.
    const std::string bytes = RandomBytes(1024 + (i * 2473) % (100 * 1024), 100 + i);
    const std::string key = "ledger/date=2026-09-29/app=a/part-box-" + std::to_string(i) + ".parquet";
    Status s = PutPart(destination, key, bytes, 7000);
    ASSERT_TRUE(s.ok()) << "part " << i << ": " << s.ToString();
    // Commit returned: the server must hold the whole object before anything could be acked.
    // s3rver writes the MD5 of what it received before it answers, so that file proves it; the
    // object file itself is flushed by a write stream s3rver does not wait for before answering
    // (a fresh-clone run read it empty once), so its bytes are awaited, briefly.
    ASSERT_EQ(ReadFile(server.ObjectPath(key).string() + ".md5"), s3::HexEncode(s3::Md5(bytes)))
        << "part " << i << ": Commit returned before the server had the whole object";
    EXPECT_TRUE(sinkd::testing::WaitUntil(
        [&] { return ReadFile(server.ObjectPath(key)) == bytes; }, std::chrono::seconds(5)))
        << "part " << i;
  }
  EXPECT_EQ(server.Keys().size(), 40u);

  // The premise: faults of every kind really happened, at about the rate asked for.
  std::map<std::string, int> faults;
  auto entries = proxy.Log();
  for (const auto& e : entries) faults[e["fault"].get<std::string>()]++;
  const double share = 1.0 - static_cast<double>(faults["none"]) / entries.size();
  EXPECT_GT(share, 0.2) << "fault share " << share << " of " << entries.size() << " requests";
  for (const char* kind : {"500", "503", "reset", "reset-after", "500-after"}) {
    EXPECT_GT(faults[kind], 0) << kind << " never injected";
  }
  EXPECT_NE(log.Text().find("s3 request failed; retrying"), std::string::npos);
}

// A store that keeps failing makes the Part fail (its batch is redelivered) after exactly the
// configured attempts, and leaves no object behind.
TEST(S3Faults, ExhaustedRetriesFailThePartAfterTheConfiguredAttempts) {
  S3Server server;
  ASSERT_TRUE(server.ok()) << server.error();
  FaultRates rates;
  rates.slow_down = 1.0;
  FaultProxy proxy(server.port(), rates);
  ASSERT_TRUE(proxy.ok()) << proxy.error();
  CapturedLog log;
  S3Options options = TestOptions(proxy.endpoint());
  options.retry.attempts = 4;
  auto destination = S3Destination::Make(options, &log.log());
  ASSERT_TRUE(destination.ok());
  Status s = PutPart(**destination, "k.parquet", "bytes");
  ASSERT_TRUE(s.IsRedeliver()) << s.ToString();
  EXPECT_EQ(s.message(),
            "place k.parquet: PUT s3://garm-lake/k.parquet: gave up after 4 attempts; the last "
            "said 503 SlowDown: Please reduce your request rate.");
  size_t puts = 0;
  for (const auto& e : proxy.Log()) puts += e["method"] == "PUT";
  EXPECT_EQ(puts, 4u) << "attempts are bounded by the option";
  EXPECT_TRUE(server.Keys().empty());
}

// Startup against a store that is down fails with a refusal naming it, after bounded retries.
TEST(S3Faults, AStoreThatIsDownRefusesStartupNamingIt) {
  CapturedLog log;
  S3Options options = TestOptions("127.0.0.1:1");
  options.retry.attempts = 2;
  auto destination = S3Destination::Make(options, &log.log());
  ASSERT_TRUE(destination.ok());
  Status s = (*destination)->Ensure();
  ASSERT_TRUE(s.IsRefuse());
  EXPECT_EQ(s.message().rfind("bucket check on s3://garm-lake at 127.0.0.1:1 (region us-east-1, "
                              "signed with AWS_ACCESS_KEY_ID): HEAD s3://garm-lake: gave up after "
                              "2 attempts; the last said Couldn't connect to server",
                              0),
            0u)
      << s.message();
}

// What a drain does through a faulty store: a flush whose retries run out fails, its batch comes
// back with other boundaries (other keys), and the Parts it had placed must not stay as extra
// copies. 30% of requests fail (lost responses included) and only 3 attempts are allowed, so
// about one flush in four fails part-way; the bucket ends with every row and at most 1.05 rows
// per expected row (before: one extra copy of every Part a failed flush had placed).
TEST(S3Faults, FlushesRetriedThroughThirtyPercentFaultsLeaveAtMostFivePercentExtraRows) {
  S3Server server;
  ASSERT_TRUE(server.ok()) << server.error();
  FaultRates rates;
  rates.internal_error = 0.08;
  rates.slow_down = 0.08;
  rates.reset = 0.06;
  rates.reset_after = 0.04;
  rates.error_after = 0.04;
  rates.seed = 11;
  FaultProxy proxy(server.port(), rates);
  ASSERT_TRUE(proxy.ok()) << proxy.error();
  CapturedLog log;
  S3Options options = TestOptions(proxy.endpoint());
  options.retry.attempts = 3;
  auto made = S3Destination::Make(options, &log.log());
  ASSERT_TRUE(made.ok());
  ASSERT_TRUE((*made)->Ensure().ok());
  lake::LakeWriterOptions lake_options;
  lake_options.key_prefix = "ledger";
  lake_options.instance = "box-1";
  lake::LakeWriter writer(**made, lake_options);
  int64_t expected = 0;
  int failures = 0;
  uint64_t next_sequence = 1;
  for (int batch = 0; batch < 12; ++batch) {
    row::RowBuffer rows = testing::GeneratedLedgerRows(200 + batch, 4);
    for (int attempt = 0;; ++attempt) {
      ASSERT_LT(attempt, 200);
      const uint64_t first = next_sequence;
      next_sequence += 4;
      auto flushed = writer.Flush(rows, {"GARM_LEDGER", first, first + 3});
      if (flushed.ok()) break;
      ++failures;
    }
    expected += static_cast<int64_t>(rows.rows());
  }
  EXPECT_GT(failures, 2) << "the premise: flushes failed part-way";
  auto q = DuckDb("SELECT count(*), count(DISTINCT event_id) FROM read_parquet(" +
                  SqlQuote((server.BucketDir() / "ledger/**/*.parquet._S3rver_object").string()) +
                  ")");
  ASSERT_TRUE(q.ok) << q.error;
  const int64_t rows = std::stoll(q.rows[0][0]);
  EXPECT_EQ(std::stoll(q.rows[0][1]), expected) << "every row is in the bucket";
  const double ratio = static_cast<double>(rows) / static_cast<double>(expected);
  std::printf("30%% faults, 3 attempts: %d failed flushes, %lld rows for %lld expected: %.4f rows "
              "per expected row\n",
              failures, static_cast<long long>(rows), static_cast<long long>(expected), ratio);
  EXPECT_LE(ratio, 1.05);
}

}  // namespace
}  // namespace sinkd::s3
