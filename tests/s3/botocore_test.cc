// Our requests, exactly as they go on the wire, re-signed offline by Debian's botocore (the
// signer boto3 and the AWS CLI use) at the same instant: every operation the destination sends,
// with hive keys, odd characters, session tokens, https and virtual-hosted addressing.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "s3/crypto.h"
#include "s3/s3_client.h"
#include "support/support.h"

namespace sinkd::s3 {
namespace {

using sinkd::testing::RunCommand;
using sinkd::testing::SourceDir;

constexpr int64_t k2026_01_01 = 1'767'225'600;

struct Case {
  std::string endpoint = "127.0.0.1:14568";
  bool virtual_hosted = false;
  std::string region = "us-east-1";
  std::string token;
  S3Call call;
};

nlohmann::json Spec(const Case& c, const HttpRequest& request) {
  nlohmann::json headers = nlohmann::json::array();
  for (const auto& [name, value] : request.headers) {
    if (name != "authorization") headers.push_back({name, value});
  }
  return {{"method", request.method},     {"url", request.url},
          {"headers", headers},           {"body_hex", HexEncode(request.body)},
          {"access_key", "AKTEST"},       {"secret", "SKTEST"},
          {"token", c.token},             {"region", c.region},
          {"time", "20260101T000000Z"}};
}

std::vector<Case> Cases() {
  // A literal: S3Call borrows its body, so it must outlive the cases.
  constexpr std::string_view parquet("PAR1\0\x01\x02 bytes PAR1", 17);
  std::vector<Case> cases(11);
  cases[0].call = {"PUT", "ledger/date=2026-09-29/app=agentd/part-box-77-1-20-0.parquet", {},
                   {{"content-type", "application/vnd.apache.parquet"}, {"if-none-match", "*"}},
                   parquet};
  cases[1] = cases[0];
  cases[1].token = "FQoGZXIvYXdzEJr//////////wEaDO+token/with=odd+chars";
  cases[2].call = {"POST", "ledger/date=2026-09-29/app=a%2Fb/part-x-1-2-0.parquet",
                   {{"uploads", ""}}, {{"content-type", "application/vnd.apache.parquet"}}, {}};
  cases[3].call = {"PUT", "ledger/date=2026-09-29/app=x/part-x-1-2-0.parquet",
                   {{"partNumber", "1"}, {"uploadId", "VXBsb2Fk+SUQ/=="}}, {}, parquet};
  cases[4].call = {"POST", "ledger/k.parquet", {{"uploadId", "abc"}},
                   {{"content-type", "application/xml"}, {"if-none-match", "*"}},
                   "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>\"e\"</ETag>"
                   "</Part></CompleteMultipartUpload>"};
  cases[5].call = {"HEAD", "", {}, {}, {}};
  cases[6].call = {"GET", "", {{"list-type", "2"}, {"max-keys", "0"}}, {}, {}};
  cases[7].call = {"DELETE", "ledger/k.parquet", {{"uploadId", "abc"}}, {}, {}};
  cases[8].endpoint = "https://s3.eu-west-1.example.com";
  cases[8].virtual_hosted = true;
  cases[8].region = "eu-west-1";
  cases[8].call = cases[0].call;
  cases[9].call = {"PUT", "odd key/with space+plus&amp~tilde/ünïcode ké.jsonl", {},
                   {{"content-type", "application/x-ndjson"}}, "{\"a\":1}\n"};
  cases[10].region = "eu-west-1";
  cases[10].call = {"PUT", "", {}, {},
                    "<CreateBucketConfiguration><LocationConstraint>eu-west-1"
                    "</LocationConstraint></CreateBucketConfiguration>"};
  return cases;
}

// botocore signs what sinkd sends, byte for byte: if the two disagree on any canonical detail,
// a real store (which canonicalises as botocore does) refuses sinkd's requests.
TEST(Botocore, SignsEachOfOurRequestsExactlyAsWeDo) {
  Logger log(stderr);
  const auto now = std::chrono::system_clock::time_point(std::chrono::seconds(k2026_01_01));
  std::vector<Case> cases = Cases();
  std::vector<HttpRequest> requests;
  nlohmann::json specs = nlohmann::json::array();
  for (const Case& c : cases) {
    S3ClientOptions o;
    o.endpoint = ParseEndpoint(c.endpoint, false).value();
    o.bucket = "garm-lake";
    o.region = c.region;
    o.credentials = {"AKTEST", "SKTEST", c.token};
    o.virtual_hosted = c.virtual_hosted;
    S3Client client(o, log);
    requests.push_back(client.Build(c.call, now));
    specs.push_back(Spec(c, requests.back()));
  }
  testing::CommandResult run =
      RunCommand({"/usr/bin/python3", (SourceDir() / "tools/s3/botocore_sign.py").string()},
                 specs.dump());
  ASSERT_EQ(run.exit_code, 0) << "botocore must run (python3-botocore, scripts/install-deps.sh): "
                              << run.err;
  auto answers = nlohmann::json::parse(run.out);
  ASSERT_EQ(answers.size(), cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    const HttpRequest& r = requests[i];
    std::string ours;
    for (const auto& [name, value] : r.headers) {
      if (name == "authorization") ours = value;
    }
    EXPECT_EQ(ours, answers[i]["authorization"].get<std::string>())
        << "case " << i << ": " << r.method << " " << r.url << "\nbotocore's canonical request:\n"
        << answers[i]["canonical_request"].get<std::string>();
  }
  // The premise: the cases cover what the destination sends.
  EXPECT_NE(requests[0].url.find("/garm-lake/ledger/date%3D2026-09-29/app%3Dagentd/"),
            std::string::npos) << requests[0].url;
  EXPECT_EQ(requests[2].url.substr(requests[2].url.size() - 8), "?uploads");
  EXPECT_EQ(requests[8].url.rfind("https://garm-lake.s3.eu-west-1.example.com/ledger/", 0), 0u)
      << requests[8].url;
  bool token_sent = false;
  for (const auto& [name, value] : requests[1].headers) {
    token_sent |= name == "x-amz-security-token" && value == cases[1].token;
  }
  EXPECT_TRUE(token_sent);
}

// Integrity headers carry the body's real digests, so the store can refuse what it did not get.
TEST(S3Client, EveryBodyCarriesItsSha256AndMd5) {
  Logger log(stderr);
  S3ClientOptions o;
  o.endpoint = ParseEndpoint("127.0.0.1:1", false).value();
  o.bucket = "b";
  o.credentials = {"AKTEST", "SKTEST", ""};
  S3Client client(o, log);
  HttpRequest r = client.Build({"PUT", "k", {}, {}, "hello"}, std::chrono::system_clock::now());
  std::map<std::string, std::string> h(r.headers.begin(), r.headers.end());
  EXPECT_EQ(h["x-amz-content-sha256"],
            "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
  EXPECT_EQ(h["content-md5"], "XUFAKrxLKna5cZ2REBfFkg==");
  EXPECT_NE(h["authorization"].find("content-md5;host;x-amz-content-sha256;x-amz-date"),
            std::string::npos) << h["authorization"];
}

TEST(S3Client, AnAnonymousRequestCarriesNoSignature) {
  Logger log(stderr);
  S3ClientOptions o;
  o.endpoint = ParseEndpoint("127.0.0.1:1", false).value();
  o.bucket = "b";
  S3Client client(o, log);
  HttpRequest r = client.Build({"PUT", "k", {}, {}, "x"}, std::chrono::system_clock::now());
  for (const auto& [name, value] : r.headers) {
    EXPECT_NE(name, "authorization");
    EXPECT_NE(name, "x-amz-date");
  }
}

TEST(S3Client, ErrorBodiesAreReadForCodeAndMessage) {
  HttpResponse r;
  r.status = 403;
  r.body = "<?xml version=\"1.0\"?><Error><Code>SignatureDoesNotMatch</Code><Message>a &amp; "
           "b &lt;c&gt;</Message></Error>";
  EXPECT_EQ(AnswerOf(r).ToString(),
            "403 SignatureDoesNotMatch: a & b <c> (check AWS_SECRET_ACCESS_KEY)");
  HttpResponse head;
  head.status = 404;
  EXPECT_EQ(AnswerOf(head).ToString(), "404 Not Found");
}

}  // namespace
}  // namespace sinkd::s3
