// The signer against answers someone else computed: AWS's worked S3 examples (Amazon S3 API
// Reference, "Examples: Signature Calculations in AWS Signature Version 4") and vectors of AWS's
// SigV4 test suite. A signer that is nearly right is refused by the store with a bare 403, so only
// published answers prove it.
#include "s3/sigv4.h"

#include <gtest/gtest.h>

#include "s3/crypto.h"

namespace sinkd::s3 {
namespace {

const Credentials kS3Docs{"AKIAIOSFODNN7EXAMPLE", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", ""};
const Credentials kSuite{"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", ""};
constexpr char kDocsDate[] = "20130524T000000Z";
constexpr char kSuiteDate[] = "20150830T123600Z";

Signature SignDocs(const char* method, const char* uri, const QueryList& query,
                   HeaderList headers, const std::string& payload_hash) {
  headers.emplace_back("Host", "examplebucket.s3.amazonaws.com");
  headers.emplace_back("x-amz-content-sha256", payload_hash);
  headers.emplace_back("x-amz-date", kDocsDate);
  SigningInput in{method, uri, &query, &headers, payload_hash};
  return SignV4(in, kS3Docs, "us-east-1", "s3", kDocsDate);
}

Signature SignSuite(const char* method, const char* uri, const QueryList& query) {
  HeaderList headers = {{"Host", "example.amazonaws.com"}, {"X-Amz-Date", kSuiteDate}};
  SigningInput in{method, uri, &query, &headers, kEmptySha256};
  return SignV4(in, kSuite, "us-east-1", "service", kSuiteDate);
}

// The S3 docs' GET Object with a Range header.
TEST(SigV4, ReproducesTheS3DocsGetObjectExample) {
  Signature s = SignDocs("GET", "/test.txt", {}, {{"Range", "bytes=0-9"}}, kEmptySha256);
  EXPECT_EQ(s.signed_headers, "host;range;x-amz-content-sha256;x-amz-date");
  EXPECT_EQ(s.signature, "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
      << s.canonical_request;
}

// The S3 docs' PUT Object: a key with '$', which must be sent and signed as %24.
TEST(SigV4, ReproducesTheS3DocsPutObjectExampleWithAnEncodedKey) {
  const std::string body = "Welcome to Amazon S3.";
  ASSERT_EQ(Sha256Hex(body), "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072");
  const std::string uri = std::string("/").append(UriEncode("test$file.text", true));
  ASSERT_EQ(uri, "/test%24file.text");
  Signature s = SignDocs("PUT", uri.c_str(), {},
                         {{"Date", "Fri, 24 May 2013 00:00:00 GMT"},
                          {"x-amz-storage-class", "REDUCED_REDUNDANCY"}},
                         Sha256Hex(body));
  EXPECT_EQ(Sha256Hex(s.canonical_request),
            "9e0e90d9c76de8fa5b200d8c849cd5b8dc7a3be3951ddb7f6a76b4158342019d")
      << s.canonical_request;
  EXPECT_EQ(s.signature, "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
  EXPECT_EQ(s.authorization,
            "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, "
            "SignedHeaders=date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class, "
            "Signature=98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd");
}

// A parameter without a value ("?lifecycle") is signed as "lifecycle=".
TEST(SigV4, ReproducesTheS3DocsGetLifecycleExample) {
  Signature s = SignDocs("GET", "/", {{"lifecycle", ""}}, {}, kEmptySha256);
  EXPECT_EQ(s.signature, "fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543")
      << s.canonical_request;
}

// Parameters are signed sorted, whatever order they were given in.
TEST(SigV4, ReproducesTheS3DocsListObjectsExample) {
  Signature s = SignDocs("GET", "/", {{"prefix", "J"}, {"max-keys", "2"}}, {}, kEmptySha256);
  EXPECT_EQ(s.signature, "34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7")
      << s.canonical_request;
}

TEST(SigV4, ReproducesTheTestSuiteVanillaRequests) {
  Signature get = SignSuite("GET", "/", {});
  EXPECT_EQ(get.authorization,
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
            "SignedHeaders=host;x-amz-date, "
            "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
  EXPECT_EQ(SignSuite("POST", "/", {}).signature,
            "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b");
  EXPECT_EQ(SignSuite("GET", "/", {{"Param2", "value2"}, {"Param1", "value1"}}).signature,
            "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500");
}

// Unreserved characters are never encoded.
TEST(SigV4, ReproducesTheTestSuiteUnreservedCharactersVector) {
  const std::string path = std::string("/").append(
      UriEncode("-._~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz", true));
  EXPECT_EQ(SignSuite("GET", path.c_str(), {}).signature,
            "07ef7494c76fa4850883e2b006601f940f8a34d404d0cfa977f52a65bbf5f24f");
}

// The value recorded in docs/toolchain.md §4.3 from botocore for a hive key sent unencoded.
TEST(SigV4, ReproducesTheRecordedBotocoreVectorForAHiveKey) {
  HeaderList headers = {
      {"host", "127.0.0.1:14568"},
      {"x-amz-content-sha256", Sha256Hex("hello")},
      {"x-amz-date", "20260101T000000Z"}};
  const std::string hash = Sha256Hex("hello");
  SigningInput in{"PUT", "/bkt/date=2026-01-01/app=x/part-1.parquet", nullptr, &headers, hash};
  EXPECT_EQ(SignV4(in, {"AKTEST", "SKTEST", ""}, "us-east-1", "s3", "20260101T000000Z").signature,
            "6c8cc8a1a346d797e46d37d141b4ac914acf61c6dc988f6d843a2309cfc23907");
}

// Hive keys hold '=' and escaped values hold '%': each must be encoded exactly once, or the store
// computes another canonical URI and answers SignatureDoesNotMatch.
TEST(SigV4, EachPathSegmentIsEncodedPerRfc3986AndSlashesStay) {
  EXPECT_EQ(UriEncode("ledger/date=2026-09-29/app=agent%2Fd/part-box-1-2-0.parquet", true),
            "ledger/date%3D2026-09-29/app%3Dagent%252Fd/part-box-1-2-0.parquet");
  EXPECT_EQ(UriEncode("a b+c&d~e/é", true), "a%20b%2Bc%26d~e/%C3%A9");
  EXPECT_EQ(UriEncode("a/b", false), "a%2Fb");
  EXPECT_EQ(UriEncode("!'()*", true), "%21%27%28%29%2A");
}

TEST(SigV4, HeaderValuesAreTrimmedAndInnerSpacesCollapsed) {
  HeaderList spaced = {{"Host", "h"}, {"X-Amz-Date", kSuiteDate}, {"My-Header", "  a   b  "}};
  HeaderList tidy = {{"host", "h"}, {"x-amz-date", kSuiteDate}, {"my-header", "a b"}};
  SigningInput a{"GET", "/", nullptr, &spaced, kEmptySha256};
  SigningInput b{"GET", "/", nullptr, &tidy, kEmptySha256};
  EXPECT_EQ(SignV4(a, kSuite, "us-east-1", "s3", kSuiteDate).signature,
            SignV4(b, kSuite, "us-east-1", "s3", kSuiteDate).signature);
}

TEST(SigV4, AmzDateIsUtcToTheSecond) {
  EXPECT_EQ(AmzDate(std::chrono::system_clock::time_point(std::chrono::seconds(1369353600))),
            kDocsDate);
}

// The secret feeds the first HMAC and nothing else: it must not leak into what is logged.
TEST(SigV4, NoPartOfASignatureHoldsTheSecret) {
  Signature s = SignSuite("GET", "/", {});
  for (const std::string* part :
       {&s.canonical_request, &s.string_to_sign, &s.signed_headers, &s.authorization}) {
    EXPECT_EQ(part->find(kSuite.secret_access_key), std::string::npos) << *part;
  }
}

}  // namespace
}  // namespace sinkd::s3
