// S3Destination::CheckExclusiveCreates against stores that honour If-None-Match, ignore it (on
// every create, or only on multipart completions) or refuse it: the probe tells them apart, says
// which path let a create through, and leaves no probe object behind.
#include <gtest/gtest.h>

#include "s3/s3_destination.h"

#include "s3_server.h"
#include "s3_test_util.h"

namespace sinkd::s3 {
namespace {

using sinkd::testing::CapturedLog;
using sinkd::testing::S3Server;
using sinkd::testing::S3ServerOptions;
using sinkd::testing::TestOptions;

struct Probed {
  Status verdict;
  std::vector<nlohmann::json> requests;  // the probe's, as the store saw them
  std::vector<std::string> keys;         // every object left in the bucket
};

Probed ProbeA(const std::string& if_none_match) {
  S3ServerOptions options;
  options.if_none_match = if_none_match;
  S3Server server(options);
  EXPECT_TRUE(server.ok()) << server.error();
  CapturedLog log;
  auto made = S3Destination::Make(TestOptions(server.endpoint()), &log.log());
  EXPECT_TRUE(made.ok()) << made.status().ToString();
  if (!made.ok()) return {made.status(), {}, {}};
  EXPECT_TRUE((*made)->Ensure().ok());
  const size_t before = server.Requests().size();
  Probed out;
  out.verdict = (*made)->CheckExclusiveCreates("ledger");
  const auto all = server.Requests();
  out.requests.assign(all.begin() + static_cast<std::ptrdiff_t>(before), all.end());
  out.keys = server.Keys();
  return out;
}

int CountOf(const std::vector<nlohmann::json>& requests, const std::string& method, int status) {
  int n = 0;
  for (const auto& r : requests) {
    const std::string url = r["url"].get<std::string>();
    if (r["method"] == method && r["status"] == status &&
        url.find("/ledger/_sinkd/probe/") != std::string::npos) {
      ++n;
    }
  }
  return n;
}

// A store that honours the header refuses both second creates (a PUT, a multipart completion)
// with 412; the check passes and the probe object is gone after it.
TEST(ExclusiveProbe, AStoreThatHonoursIfNoneMatchPassesAndNoProbeObjectIsLeft) {
  const Probed p = ProbeA("enforce");
  EXPECT_TRUE(p.verdict.ok()) << p.verdict.ToString();
  EXPECT_EQ(CountOf(p.requests, "PUT", 412), 1) << "the second PUT must have met the first";
  EXPECT_EQ(CountOf(p.requests, "POST", 412), 1) << "the completion must have been refused";
  EXPECT_EQ(CountOf(p.requests, "DELETE", 204), 2) << "the upload aborted, the probe deleted";
  EXPECT_TRUE(p.keys.empty()) << "left behind: " << p.keys.front();
}

// A store that lets the second PUT through is found out, and the refusal says so.
TEST(ExclusiveProbe, AStoreThatIgnoresIfNoneMatchIsRefusedSayingTheSecondPutReplacedTheObject) {
  const Probed p = ProbeA("ignore");
  ASSERT_FALSE(p.verdict.ok()) << "the store replaced the probe, and the check did not notice";
  EXPECT_TRUE(p.verdict.IsRefuse()) << p.verdict.ToString();
  EXPECT_NE(p.verdict.message().find("ignores If-None-Match: a second PUT"), std::string::npos)
      << p.verdict.message();
  EXPECT_TRUE(p.keys.empty()) << "left behind: " << p.keys.front();
}

// Compaction's outputs go up multipart: a store that honours the header on PUT only is unsafe for
// them, and the probe says which path.
TEST(ExclusiveProbe, AStoreThatIgnoresIfNoneMatchOnlyOnMultipartCompletionIsFoundOutToo) {
  const Probed p = ProbeA("ignore-multipart");
  ASSERT_FALSE(p.verdict.ok()) << "a completion replaced the probe, and the check did not notice";
  EXPECT_TRUE(p.verdict.IsRefuse()) << p.verdict.ToString();
  EXPECT_NE(p.verdict.message().find("second multipart completion"), std::string::npos)
      << p.verdict.message();
  EXPECT_EQ(CountOf(p.requests, "PUT", 412), 1) << "the PUT path was honoured";
  EXPECT_TRUE(p.keys.empty()) << "left behind: " << p.keys.front();
}

// A store that refuses the header (501) is not exclusive either.
TEST(ExclusiveProbe, AStoreThatRefusesIfNoneMatchIsRefusedSayingItDoesNotImplementIt) {
  const Probed p = ProbeA("reject");
  ASSERT_FALSE(p.verdict.ok());
  EXPECT_TRUE(p.verdict.IsRefuse()) << p.verdict.ToString();
  EXPECT_NE(p.verdict.message().find("does not implement If-None-Match"), std::string::npos)
      << p.verdict.message();
  EXPECT_TRUE(p.keys.empty()) << "left behind: " << p.keys.front();
}

// The verdict is kept: a second check (a --follow compactor's next pass, a later commit) costs no
// request.
TEST(ExclusiveProbe, TheVerdictIsKeptAndASecondCheckSendsNothing) {
  S3Server server;
  ASSERT_TRUE(server.ok()) << server.error();
  CapturedLog log;
  auto made = S3Destination::Make(TestOptions(server.endpoint()), &log.log());
  ASSERT_TRUE(made.ok());
  ASSERT_TRUE((*made)->CheckExclusiveCreates("ledger").ok());
  const size_t after_first = server.Requests().size();
  EXPECT_TRUE((*made)->CheckExclusiveCreates("ledger").ok());
  EXPECT_EQ(server.Requests().size(), after_first);
}

}  // namespace
}  // namespace sinkd::s3
