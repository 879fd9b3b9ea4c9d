// https to the store: certificates are always verified; a private CA is trusted only through the
// CA-bundle option, never by turning verification off.
#include <gtest/gtest.h>

#include "s3/s3_destination.h"
#include "s3_server.h"
#include "s3_test_util.h"

namespace sinkd::s3 {
namespace {

using sinkd::testing::CapturedLog;
using sinkd::testing::PutPart;
using sinkd::testing::ReadFile;
using sinkd::testing::RunCommand;
using sinkd::testing::S3Server;
using sinkd::testing::S3ServerOptions;
using sinkd::testing::TempDir;
using sinkd::testing::TestOptions;

TEST(S3Tls, AStoreIsTrustedThroughTheCaBundleAndRefusedWithoutIt) {
  TempDir tmp;
  const std::string cert = (tmp / "cert.pem").string(), key = (tmp / "key.pem").string();
  auto made = RunCommand({"openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                          "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", cert,
                          "-days", "2", "-subj", "/CN=127.0.0.1", "-addext",
                          "subjectAltName=IP:127.0.0.1"});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  S3Server server(S3ServerOptions{.tls_cert = cert, .tls_key = key});
  ASSERT_TRUE(server.ok()) << server.error();
  CapturedLog log;

  S3Options options = TestOptions("https://" + server.endpoint());
  options.retry.attempts = 1;
  Status untrusted = S3Destination::Make(options, &log.log()).value()->Ensure();
  ASSERT_TRUE(untrusted.IsRefuse()) << "a self-signed store must not be trusted by default";
  EXPECT_NE(untrusted.message().find("certificate"), std::string::npos) << untrusted.message();
  EXPECT_TRUE(server.Requests().empty()) << "nothing reached the store";

  options.ca_bundle = cert;
  auto trusted = S3Destination::Make(options, &log.log()).value();
  ASSERT_TRUE(trusted->Ensure().ok());
  ASSERT_TRUE(PutPart(*trusted, "ledger/date=2026-09-29/app=a/p.parquet", "over tls").ok());
  EXPECT_EQ(ReadFile(server.ObjectPath("ledger/date=2026-09-29/app=a/p.parquet")), "over tls");
  EXPECT_EQ(trusted->Describe().find("https"), std::string::npos)
      << "the host is named without its scheme, as the reference does";
}

}  // namespace
}  // namespace sinkd::s3
