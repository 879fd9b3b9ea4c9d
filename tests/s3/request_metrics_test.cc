// The process's S3 request metrics (metrics/s3_request_metrics.h) against the real verifying
// s3rver and the fault proxy: every request the store saw is counted once under its operation and
// status, its duration observed, every retry counted; and a command using S3 serves them on its
// /metrics page, which promtool accepts. The figures are process-wide, so each test compares
// what it did with the change in them.
#include <gtest/gtest.h>

#include <map>

#include "metrics/s3_request_metrics.h"
#include "outbox/process.h"
#include "s3/s3_destination.h"
#include "s3_server.h"
#include "s3_test_util.h"

namespace sinkd::s3 {
namespace {

using metrics::S3Operation;
using metrics::S3RequestMetrics;
using sinkd::testing::CapturedLog;
using sinkd::testing::FaultProxy;
using sinkd::testing::FaultRates;
using sinkd::testing::PutPart;
using sinkd::testing::RandomBytes;
using sinkd::testing::S3Server;
using sinkd::testing::TestOptions;

constexpr size_t kOps = metrics::kS3Operations;

// Every (operation, status) count and every operation's histogram count and retries, now.
struct Snapshot {
  std::map<std::pair<S3Operation, long>, uint64_t> requests;
  std::map<S3Operation, uint64_t> observed, retries;

  static Snapshot Take() {
    const S3RequestMetrics& m = S3RequestMetrics::Process();
    Snapshot s;
    for (size_t o = 0; o < kOps; ++o) {
      const auto op = static_cast<S3Operation>(o);
      for (long code = 0; code < 600; code = code == 0 ? 100 : code + 1) {
        s.requests[{op, code}] = m.requests(op, code);
      }
      s.observed[op] = m.observed(op);
      s.retries[op] = m.retries(op);
    }
    return s;
  }
  // What happened since `before`: only the non-zero changes.
  Snapshot Since(const Snapshot& before) const {
    Snapshot d;
    for (const auto& [k, v] : requests) {
      if (v != before.requests.at(k)) d.requests[k] = v - before.requests.at(k);
    }
    for (const auto& [k, v] : observed) {
      if (v != before.observed.at(k)) d.observed[k] = v - before.observed.at(k);
    }
    for (const auto& [k, v] : retries) {
      if (v != before.retries.at(k)) d.retries[k] = v - before.retries.at(k);
    }
    return d;
  }
  uint64_t Requests(S3Operation op, long code) const {
    auto it = requests.find({op, code});
    return it == requests.end() ? 0 : it->second;
  }
  uint64_t Retries(S3Operation op) const {
    auto it = retries.find(op);
    return it == retries.end() ? 0 : it->second;
  }
  uint64_t Total() const {
    uint64_t n = 0;
    for (const auto& [k, v] : requests) n += v;
    return n;
  }
};

// The failure this prevents: a page that says nothing of throttling, denied or slow requests.
TEST(S3RequestMetrics, EveryRequestTheStoreSawIsCountedOnceByOperationAndStatus) {
  S3Server server;
  ASSERT_TRUE(server.ok()) << server.error();
  CapturedLog log;
  S3Options options = TestOptions(server.endpoint());
  options.multipart_threshold = 32 * 1024;
  auto made = S3Destination::Make(options, &log.log());
  ASSERT_TRUE(made.ok());
  S3Destination& destination = **made;
  const size_t seen_before = server.Requests().size();
  const Snapshot before = Snapshot::Take();

  ASSERT_TRUE(destination.Ensure().ok());
  ASSERT_TRUE(PutPart(destination, "ledger/small.parquet", RandomBytes(1000, 1)).ok());
  ASSERT_TRUE(PutPart(destination, "ledger/large.parquet", RandomBytes(100 * 1024, 2)).ok());
  ASSERT_TRUE(destination.List("ledger/").ok());
  EXPECT_FALSE(destination.Read("ledger/absent.parquet", 0, 10).ok());
  ASSERT_TRUE(destination.Read("ledger/small.parquet", 0, 10).ok());
  ASSERT_TRUE(destination.Delete("ledger/small.parquet").ok());

  const Snapshot d = Snapshot::Take().Since(before);
  const std::vector<nlohmann::json> seen = server.Requests();
  const size_t sent = seen.size() - seen_before;
  EXPECT_EQ(d.Total(), sent) << "each request the store saw, counted once";
  size_t pieces = 0;
  for (size_t i = seen_before; i < seen.size(); ++i) {
    pieces += seen[i]["url"].get<std::string>().find("partNumber=") != std::string::npos;
  }
  ASSERT_GT(pieces, 1u) << "premise: the large Part went up in pieces";
  EXPECT_EQ(d.Requests(S3Operation::kUploadPart, 200), pieces);
  EXPECT_EQ(d.Requests(S3Operation::kCreateMultipartUpload, 200), 1u);
  EXPECT_EQ(d.Requests(S3Operation::kCompleteMultipartUpload, 200), 1u);
  EXPECT_GE(d.Requests(S3Operation::kPutObject, 200), 1u);
  EXPECT_EQ(d.Requests(S3Operation::kGetObject, 404), 1u) << "the absent key";
  EXPECT_GE(d.Requests(S3Operation::kGetObject, 206) + d.Requests(S3Operation::kGetObject, 200),
            1u);
  EXPECT_GE(d.Requests(S3Operation::kListObjectsV2, 200), 1u);
  EXPECT_GE(d.Requests(S3Operation::kDeleteObject, 204), 1u);
  EXPECT_EQ(d.Requests(S3Operation::kOther, 200), 0u) << "every request sent has its name";
  for (size_t o = 0; o < kOps; ++o) {
    const auto op = static_cast<S3Operation>(o);
    uint64_t n = 0;
    for (const auto& [k, v] : d.requests) n += k.first == op ? v : 0;
    EXPECT_EQ(d.observed.count(op) ? d.observed.at(op) : 0, n)
        << metrics::S3OperationName(op) << ": one duration per request";
  }
  EXPECT_TRUE(d.retries.empty()) << "nothing failed, nothing was retried";
}

// Each injected 503 and 500 is one counted request and one counted retry, as many as the fault
// proxy's own log holds; a store that never answers (nothing listens) is counted as requests
// with code="unanswered", retried up to the attempts allowed.
TEST(S3RequestMetrics, RetriesAndUnansweredRequestsEqualWhatTheStoreDid) {
  S3Server server;
  ASSERT_TRUE(server.ok()) << server.error();
  FaultRates rates;
  rates.slow_down = 0.4;
  rates.internal_error = 0.2;
  rates.seed = 5;
  FaultProxy proxy(server.port(), rates);
  ASSERT_TRUE(proxy.ok()) << proxy.error();
  CapturedLog log;
  S3Options options = TestOptions(proxy.endpoint());
  options.retry.attempts = 30;  // 0.6^30: every Part lands
  auto made = S3Destination::Make(options, &log.log());
  ASSERT_TRUE(made.ok());
  const Snapshot before = Snapshot::Take();
  for (int i = 0; i < 10; ++i) {
    const std::string key = "ledger/part-" + std::to_string(i) + ".parquet";
    ASSERT_TRUE(PutPart(**made, key, RandomBytes(500, i)).ok()) << key;
  }
  const Snapshot d = Snapshot::Take().Since(before);

  std::map<std::string, uint64_t> faults;  // of the Parts' PUTs
  for (const auto& e : proxy.Log()) {
    if (e["method"] == "PUT") faults[e["fault"].get<std::string>()]++;
  }
  ASSERT_GT(faults["503"], 0u) << "premise: SlowDowns were injected";
  ASSERT_GT(faults["500"], 0u) << "premise: internal errors were injected";
  EXPECT_EQ(d.Requests(S3Operation::kPutObject, 200), 10u);
  EXPECT_EQ(d.Requests(S3Operation::kPutObject, 503), faults["503"]);
  EXPECT_EQ(d.Requests(S3Operation::kPutObject, 500), faults["500"]);
  EXPECT_EQ(d.Retries(S3Operation::kPutObject), faults["503"] + faults["500"])
      << "every failed attempt of a Part that then landed was retried once";

  S3Options nobody = TestOptions("127.0.0.1:1");
  nobody.retry.attempts = 3;
  auto unreachable = S3Destination::Make(nobody, &log.log());
  ASSERT_TRUE(unreachable.ok());
  const Snapshot before_down = Snapshot::Take();
  ASSERT_FALSE((*unreachable)->Ensure().ok());
  const Snapshot down = Snapshot::Take().Since(before_down);
  EXPECT_EQ(down.Requests(S3Operation::kHeadBucket, 0), 3u) << "code=\"unanswered\"";
  EXPECT_EQ(down.Retries(S3Operation::kHeadBucket), 2u);
  EXPECT_EQ(down.Total(), 3u);

  const std::string page = S3RequestMetrics::Process().Render();
  for (const char* line :
       {"sinkd_s3_requests_total{operation=\"HeadBucket\",code=\"unanswered\"} ",
        "sinkd_s3_requests_total{operation=\"PutObject\",code=\"503\"} ",
        "sinkd_s3_request_retries_total{operation=\"PutObject\"} ",
        "sinkd_s3_request_duration_seconds_count{operation=\"PutObject\"} "}) {
    EXPECT_NE(page.find(line), std::string::npos) << line << "\n" << page;
  }
}

// What Prometheus scrapes: `sinkd compact --follow` on a bucket serves the S3 figures of its
// passes beside its own, and promtool lints the page clean.
TEST(S3RequestMetrics, ACompactorOnABucketServesThemOnItsPageAndPromtoolAcceptsIt) {
  if (sinkd::testing::RunCommand({"sh", "-c", "command -v promtool"}).exit_code != 0) {
    GTEST_SKIP() << "promtool is not installed (Debian package prometheus; bash "
                    "scripts/install-deps.sh installs it)";
  }
  S3Server server;
  ASSERT_TRUE(server.ok()) << server.error();
  sinkd::testing::TempDir dir;
  const int port = sinkd::outbox::testing::FreeLoopbackPort();
  sinkd::outbox::testing::Background compact(
      {"/usr/bin/env", std::string("AWS_ACCESS_KEY_ID=") + sinkd::testing::kTestKey,
       std::string("AWS_SECRET_ACCESS_KEY=") + sinkd::testing::kTestSecret,
       "AWS_SESSION_TOKEN=", "AWS_ENDPOINT_URL=", "S3_BUCKET=", "LAKE_DIR=",
       sinkd::testing::SinkdBinary().string(), "compact", "ledger", "--s3-endpoint",
       server.endpoint(), "--s3-bucket", "garm-lake", "--follow", "--every", "1s",
       "--metrics-listen", "127.0.0.1:" + std::to_string(port)},
      dir / "compact.log");
  std::string page;
  const bool listed = sinkd::testing::WaitUntil(
      [&] {
        const auto reply = sinkd::outbox::testing::HttpGet(port, "/metrics");
        page = reply.body;
        return reply.code == 200 &&
               page.find("sinkd_s3_requests_total{operation=\"ListObjectsV2\",code=\"200\"} ") !=
                   std::string::npos;
      },
      std::chrono::seconds(30), std::chrono::milliseconds(100));
  ASSERT_TRUE(listed) << "no listing counted; the page:\n" << page << "\nthe log:\n"
                      << compact.Log();
  EXPECT_NE(page.find("\nsinkd_s3_request_duration_seconds_bucket{operation=\"ListObjectsV2\","
                      "le=\"+Inf\"} "),
            std::string::npos)
      << page;
  EXPECT_NE(page.find("\nsinkd_compact_passes_total{table=\"ledger\"} "), std::string::npos);
  const sinkd::testing::CommandResult r =
      sinkd::testing::RunCommand({"promtool", "check", "metrics"}, page);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err << page;
  EXPECT_EQ(r.out + r.err, "") << "promtool's lint findings:\n" << r.out << r.err;
}

}  // namespace
}  // namespace sinkd::s3
