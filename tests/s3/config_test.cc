// Configuration of the S3 path: endpoint parsing, the AWS variables, the retired names and the
// credential refusals, with their exact texts (docs/reference-go-sink.md §8).
#include <map>

#include <gtest/gtest.h>

#include "s3/endpoint.h"
#include "s3/environment.h"
#include "s3/retry_policy.h"

namespace sinkd::s3 {
namespace {

Environment Env(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](std::string_view name) {
    auto it = vars.find(std::string(name));
    return it == vars.end() ? std::string() : it->second;
  };
}

struct EndpointCase {
  const char* raw;
  bool ssl;
  bool tls;
  const char* host;
};

// An endpoint read wrong sends credentials in the clear or to the wrong host; each form the
// README allows must land exactly here.
TEST(Endpoint, AUrlOrABareHostPortGivesTheSchemeAndHost) {
  const EndpointCase cases[] = {
      {"127.0.0.1:28333", false, false, "127.0.0.1:28333"},
      {"s3.example:9000", true, true, "s3.example:9000"},
      {"http://seaweedfs:8333/", true, false, "seaweedfs:8333"},
      {"https://s3.example", false, true, "s3.example"},
      {"  HTTPS://s3.example:443  ", false, true, "s3.example:443"},
      {"[::1]:9000", false, false, "[::1]:9000"},
      {"localhost", false, false, "localhost"},
  };
  for (const EndpointCase& c : cases) {
    Result<Endpoint> e = ParseEndpoint(c.raw, c.ssl);
    ASSERT_TRUE(e.ok()) << c.raw << ": " << e.status().ToString();
    EXPECT_EQ(e->tls, c.tls) << c.raw;
    EXPECT_EQ(e->host, c.host) << c.raw;
  }
}

TEST(Endpoint, AnEndpointThatIsNotHostPortIsRefusedQuotingIt) {
  const std::pair<const char*, const char*> cases[] = {
      {"http://seaweedfs:8333/garm-lake",
       "s3 endpoint \"http://seaweedfs:8333/garm-lake\" names a path; it must be host:port"},
      {"s3://bucket", "s3 endpoint \"s3://bucket\": scheme \"s3\" is not http or https"},
      {"", "s3 endpoint \"\" names no host"},
      {"http://", "s3 endpoint \"http://\" names no host"},
      {"host:99999", "s3 endpoint \"host:99999\" has a bad port"},
      {"host:x", "s3 endpoint \"host:x\" has a bad port"},
      {"http://h:1?x=1", "s3 endpoint \"http://h:1?x=1\" names a path; it must be host:port"},
  };
  for (const auto& [raw, message] : cases) {
    Result<Endpoint> e = ParseEndpoint(raw, false);
    ASSERT_FALSE(e.ok()) << raw;
    EXPECT_TRUE(e.status().IsRefuse());
    EXPECT_EQ(e.status().message(), message);
  }
}

// A password in the URL would be printed by every message that quotes the endpoint.
TEST(Endpoint, AUserAndPasswordInTheUrlAreRefusedWithoutRepeatingThem) {
  Result<Endpoint> e = ParseEndpoint("http://admin:hunter2@s3.example:9000", false);
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().message().find("hunter2"), std::string::npos) << e.status().message();
  EXPECT_NE(e.status().message().find("AWS_ACCESS_KEY_ID"), std::string::npos);
}

// The retired names cost an afternoon once: a run with only them must say what to export.
TEST(Environment, ARetiredNameSetAloneIsRefusedNamingItsReplacement) {
  EXPECT_EQ(CheckRetiredNames(Env({{"S3_ACCESS_KEY", "a"}, {"S3_SECRET_KEY", "b"}}), false)
                .message(),
            "S3_ACCESS_KEY is no longer read: export AWS_ACCESS_KEY_ID instead; S3_SECRET_KEY is "
            "no longer read: export AWS_SECRET_ACCESS_KEY instead");
  EXPECT_EQ(CheckRetiredNames(Env({{"S3_ENDPOINT", "h:1"}}), true).message(),
            "S3_ENDPOINT is no longer read: export AWS_ENDPOINT_URL instead");
  EXPECT_TRUE(CheckRetiredNames(Env({{"S3_ENDPOINT", "h:1"}}), false).ok())
      << "an explicit endpoint settles it: S3_ENDPOINT is checked only with no destination";
  EXPECT_TRUE(CheckRetiredNames(Env({{"S3_ACCESS_KEY", "a"}, {"AWS_ACCESS_KEY_ID", "k"}}), true)
                  .ok())
      << "a leftover old name beside the new one is harmless";
  EXPECT_TRUE(CheckRetiredNames(Env({}), true).ok());
}

TEST(Environment, MissingOrAmbiguousCredentialsAreRefusedByName) {
  EXPECT_EQ(CredentialsFrom(Env({}), false).status().message(),
            "no S3 credentials: export AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or pass "
            "--s3-anonymous for a store with no IAM configured");
  EXPECT_EQ(CredentialsFrom(Env({{"AWS_ACCESS_KEY_ID", "k"}}), false).status().message(),
            "AWS_ACCESS_KEY_ID is set and AWS_SECRET_ACCESS_KEY is empty: a request signed with "
            "an empty secret is refused by the store as a bad signature");
  EXPECT_EQ(CredentialsFrom(Env({{"AWS_ACCESS_KEY_ID", "k"}}), true).status().message(),
            "--s3-anonymous with AWS_ACCESS_KEY_ID set: unset one of them, because there is no "
            "way to tell which was meant");
}

TEST(Environment, CredentialsComeFromTheAwsVariablesWithTheSessionToken) {
  Result<Credentials> c = CredentialsFrom(
      Env({{"AWS_ACCESS_KEY_ID", "k"}, {"AWS_SECRET_ACCESS_KEY", "s"}, {"AWS_SESSION_TOKEN", "t"},
           {"S3_ACCESS_KEY", "old"}}),
      false);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->access_key_id, "k");
  EXPECT_EQ(c->secret_access_key, "s");
  EXPECT_EQ(c->session_token, "t");
  Result<Credentials> anonymous = CredentialsFrom(Env({{"AWS_SECRET_ACCESS_KEY", "s"}}), true);
  ASSERT_TRUE(anonymous.ok());
  EXPECT_TRUE(anonymous->anonymous());
}

TEST(Environment, TheRegionIsAwsRegionThenAwsDefaultRegionThenUsEast1) {
  EXPECT_EQ(RegionFrom(Env({{"AWS_REGION", "eu-west-1"}, {"AWS_DEFAULT_REGION", "us-west-2"}})),
            "eu-west-1");
  EXPECT_EQ(RegionFrom(Env({{"AWS_DEFAULT_REGION", "us-west-2"}})), "us-west-2");
  EXPECT_EQ(RegionFrom(Env({})), "us-east-1");
}

// Backoff must grow, stay under its cap, and vary, or throttled drains retry in lockstep.
TEST(RetryPolicy, BackoffDoublesWithJitterUpToItsCap) {
  RetryPolicy p;
  p.backoff.initial = std::chrono::milliseconds(100);
  p.backoff.cap = std::chrono::milliseconds(1000);
  EXPECT_EQ(p.backoff.Wait(1, 0.0).count(), 50);
  EXPECT_EQ(p.backoff.Wait(1, 0.999).count(), 99);
  EXPECT_EQ(p.backoff.Wait(3, 0.0).count(), 200);
  EXPECT_EQ(p.backoff.Wait(3, 0.5).count(), 300);
  EXPECT_EQ(p.backoff.Wait(20, 0.999).count(), 999);
  EXPECT_LE(p.backoff.Wait(200, 1.0).count(), 1000);
  EXPECT_TRUE(p.Validate().ok());
  p.attempts = 0;
  EXPECT_TRUE(p.Validate().IsRefuse());
}

}  // namespace
}  // namespace sinkd::s3
