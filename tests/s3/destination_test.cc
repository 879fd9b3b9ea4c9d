// S3Destination against s3rver behind our SigV4-verifying layer: startup checks, signing,
// credentials, content types, conditional creates and multipart, all on loopback.
#include "s3/s3_destination.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "s3/s3_upload.h"

#include "s3_server.h"
#include "s3_test_util.h"

namespace sinkd::s3 {
namespace {

using sinkd::testing::CapturedLog;
using sinkd::testing::PutPart;
using sinkd::testing::RandomBytes;
using sinkd::testing::ReadFile;
using sinkd::testing::S3Server;
using sinkd::testing::S3ServerOptions;
using sinkd::testing::TestOptions;

std::unique_ptr<S3Destination> Make(const S3Options& options, Logger& log) {
  auto made = S3Destination::Make(options, &log);
  EXPECT_TRUE(made.ok()) << made.status().ToString();
  return made.ok() ? std::move(made).value() : nullptr;
}

size_t Count(const std::vector<nlohmann::json>& requests, const std::string& method,
             const std::string& url_part, int status = 0) {
  size_t n = 0;
  for (const auto& r : requests) {
    if (r["method"] == method && r["url"].get<std::string>().find(url_part) != std::string::npos &&
        (status == 0 || r["status"] == status)) {
      ++n;
    }
  }
  return n;
}

// One server for the tests that need nothing special of it (starting node costs ~1 s each); each
// test uses its own keys or bucket.
class SharedStore : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = new S3Server(); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  static S3Server* server_;
};
S3Server* SharedStore::server_ = nullptr;

std::vector<std::string> KeysUnder(const S3Server& server, const std::string& prefix) {
  std::vector<std::string> keys;
  for (const std::string& key : server.Keys()) {
    if (key.rfind(prefix, 0) == 0) keys.push_back(key);
  }
  return keys;
}

// A bucket that is missing at startup is made then, not discovered at the first flush; one that
// exists is left as it is.
TEST_F(SharedStore, EnsureCreatesAMissingBucketAndLeavesAnExistingOneAlone) {
  S3Server& server = *server_;
  ASSERT_TRUE(server.ok()) << server.error();
  CapturedLog log;
  auto first = Make(TestOptions(server.endpoint(), "fresh-bucket"), log.log());
  ASSERT_TRUE(first->Ensure().ok());
  auto second = Make(TestOptions(server.endpoint(), "fresh-bucket"), log.log());
  ASSERT_TRUE(second->Ensure().ok());
  auto requests = server.Requests();
  EXPECT_EQ(Count(requests, "HEAD", "/fresh-bucket", 404), 1u) << "the first check finds nothing";
  EXPECT_EQ(Count(requests, "PUT", "/fresh-bucket", 200), 1u) << "the bucket is created once";
  EXPECT_EQ(Count(requests, "HEAD", "/fresh-bucket", 200), 1u) << "the second check finds it";
  EXPECT_NE(log.Text().find("created bucket"), std::string::npos);
}

TEST_F(SharedStore, EnsureRefusesAMissingBucketWhenToldNotToCreateIt) {
  S3Server& server = *server_;
  ASSERT_TRUE(server.ok()) << server.error();
  CapturedLog log;
  S3Options options = TestOptions(server.endpoint(), "absent-bucket");
  options.create_bucket = false;
  Status s = Make(options, log.log())->Ensure();
  EXPECT_TRUE(s.IsRefuse());
  EXPECT_NE(s.message().find("the bucket does not exist"), std::string::npos) << s.message();
  EXPECT_EQ(Count(server.Requests(), "PUT", "/absent-bucket"), 0u);
}

// A wrong secret must stop the program at startup with a message that says which bucket, which
// store, which credentials, and what the store said: "403" alone sends people hunting.
TEST_F(SharedStore, AWrongSecretIsRefusedAtStartupNamingTheBucketTheStoreAndTheCredentials) {
  S3Server& server = *server_;
  ASSERT_TRUE(server.ok()) << server.error();
  CapturedLog log;
  S3Options options = TestOptions(server.endpoint());
  options.credentials.secret_access_key = "wrong-secret-never-printed";
  Status s = Make(options, log.log())->Ensure();
  ASSERT_TRUE(s.IsRefuse()) << s.ToString();
  EXPECT_EQ(s.message(),
            "bucket check on s3://garm-lake at " + server.endpoint() +
                " (region us-east-1, signed with AWS_ACCESS_KEY_ID): 403 SignatureDoesNotMatch: "
                "The request signature we calculated does not match the signature you provided. "
                "(check AWS_SECRET_ACCESS_KEY)");
  EXPECT_EQ(log.Text().find("wrong-secret-never-printed"), std::string::npos) << log.Text();
}

TEST_F(SharedStore, AnUnknownAccessKeyIsRefusedNamingItsVariable) {
  S3Server& server = *server_;
  ASSERT_TRUE(server.ok()) << server.error();
  CapturedLog log;
  S3Options options = TestOptions(server.endpoint());
  options.credentials.access_key_id = "AKNOBODY";
  Status s = Make(options, log.log())->Ensure();
  ASSERT_TRUE(s.IsRefuse());
  EXPECT_NE(s.message().find("403 InvalidAccessKeyId"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("(check AWS_ACCESS_KEY_ID)"), std::string::npos) << s.message();
}

// Temporary credentials are useless without their token: it must be on every request, signed.
TEST(S3Destination, ASessionTokenReachesTheStoreSignedOnEveryRequest) {
  const std::string token = "FQoGZXIvYXdzEJr//////////wEaDtoken+with/odd=chars";
  S3Server server(S3ServerOptions{.session_token = token});
  ASSERT_TRUE(server.ok()) << server.error();
  CapturedLog log;
  S3Options options = TestOptions(server.endpoint());
  options.credentials.session_token = token;
  auto destination = Make(options, log.log());
  ASSERT_TRUE(destination->Ensure().ok());
  ASSERT_TRUE(PutPart(*destination, "ledger/date=2026-09-29/app=a/part-1.parquet", "PAR1").ok());
  EXPECT_NE(destination->Describe().find("signed with AWS_ACCESS_KEY_ID and AWS_SESSION_TOKEN"),
            std::string::npos);
  auto requests = server.Requests();
  ASSERT_GE(requests.size(), 2u);
  for (const auto& r : requests) {
    EXPECT_EQ(r["headers"].value("x-amz-security-token", ""), token) << r.dump();
    EXPECT_NE(r["headers"].value("authorization", "").find("x-amz-security-token"),
              std::string::npos) << "the token must be signed: " << r.dump();
  }
  // And the store does check it: without the token the same key is refused.
  options.credentials.session_token = "";
  Status refused = Make(options, log.log())->Ensure();
  EXPECT_NE(refused.message().find("InvalidToken"), std::string::npos) << refused.message();
}

// --s3-anonymous is for a store with no IAM: nothing signed, nothing that looks like a credential.
TEST(S3Destination, AnonymousModeSendsNoSignature) {
  S3Server server(S3ServerOptions{.allow_anonymous = true});
  ASSERT_TRUE(server.ok()) << server.error();
  CapturedLog log;
  S3Options options = TestOptions(server.endpoint());
  options.credentials = Credentials{};
  auto destination = Make(options, log.log());
  EXPECT_EQ(destination->Describe(), "s3://garm-lake at " + server.endpoint() +
                                         " (region us-east-1, anonymous, unsigned (--s3-anonymous))");
  ASSERT_TRUE(destination->Ensure().ok());
  const std::string key = "ledger/date=2026-09-29/app=a/part-1.parquet";
  ASSERT_TRUE(PutPart(*destination, key, "PAR1 anonymous").ok());
  EXPECT_EQ(ReadFile(server.ObjectPath(key)), "PAR1 anonymous");
  auto requests = server.Requests();
  ASSERT_GE(requests.size(), 2u);
  for (const auto& r : requests) {
    EXPECT_FALSE(r["headers"].contains("authorization")) << r.dump();
    EXPECT_FALSE(r["headers"].contains("x-amz-security-token")) << r.dump();
  }
}

// A store that wants signatures refuses an anonymous drain at startup, saying it was anonymous.
TEST_F(SharedStore, AnAnonymousDrainAgainstAStoreWithIamIsRefusedSayingSo) {
  S3Server& server = *server_;
  ASSERT_TRUE(server.ok()) << server.error();
  CapturedLog log;
  S3Options options = TestOptions(server.endpoint());
  options.credentials = Credentials{};
  Status s = Make(options, log.log())->Ensure();
  ASSERT_TRUE(s.IsRefuse());
  EXPECT_NE(s.message().find("anonymous, unsigned (--s3-anonymous)): 403 AccessDenied"),
            std::string::npos) << s.message();
}

// Readers pick a decoder from the Content-Type; dead letters are JSON lines, not Parquet.
TEST_F(SharedStore, APartLandsUnderItsKeyWithItsContentType) {
  S3Server& server = *server_;
  ASSERT_TRUE(server.ok()) << server.error();
  CapturedLog log;
  auto destination = Make(TestOptions(server.endpoint()), log.log());
  ASSERT_TRUE(destination->Ensure().ok());
  const std::string parquet = "types/ledger/date=2026-09-29/app=agent%2Fd/part-box-77-1-9-0.parquet";
  const std::string jsonl = "types/dead/ledger/import-box-77-1-9.jsonl";
  const std::string bytes = RandomBytes(10'000, 1);
  ASSERT_TRUE(PutPart(*destination, parquet, bytes).ok());
  ASSERT_TRUE(PutPart(*destination, jsonl, "{\"a\":1}\n").ok());
  ASSERT_TRUE(destination->Sync().ok());
  EXPECT_EQ(KeysUnder(server, "types/"), (std::vector<std::string>{jsonl, parquet}));
  EXPECT_EQ(ReadFile(server.ObjectPath(parquet)), bytes);
  auto meta = [&](const std::string& key) {
    return nlohmann::json::parse(
        ReadFile(server.BucketDir() / (key + "._S3rver_metadata.json")))["content-type"];
  };
  EXPECT_EQ(meta(parquet), "application/vnd.apache.parquet");
  EXPECT_EQ(meta(jsonl), "application/x-ndjson");
  EXPECT_EQ(ContentTypeFor("x.bin"), "application/octet-stream");
}

lake::Placed Put(lake::Destination& destination, const std::string& key, const std::string& bytes) {
  auto upload = destination.Begin(key);
  EXPECT_TRUE(upload.ok());
  for (size_t at = 0; at < bytes.size(); at += 4096) {
    EXPECT_TRUE((*upload)->Append(sinkd::testing::Bytes(bytes).subspan(
                    at, std::min<size_t>(4096, bytes.size() - at))).ok());
  }
  auto placed = (*upload)->Commit();
  EXPECT_TRUE(placed.ok()) << placed.status().ToString();
  return placed.ok() ? *placed : lake::Placed::kNew;
}

// Two writers of one key must not overwrite each other: other bytes at the key are kTaken (the
// caller picks another name), a repeat of our own create that had landed is kSame.
TEST_F(SharedStore, ACreateNeverOverwritesAnotherObjectButARepeatOfOursSucceeds) {
  S3Server& server = *server_;
  ASSERT_TRUE(server.ok()) << server.error();
  CapturedLog log;
  auto destination = Make(TestOptions(server.endpoint()), log.log());
  const std::string key = "overwrite/date=2026-09-29/app=a/part-1.parquet";
  EXPECT_EQ(Put(*destination, key, "first writer"), lake::Placed::kNew);
  EXPECT_EQ(Put(*destination, key, "second writer"), lake::Placed::kTaken);
  EXPECT_EQ(Put(*destination, key, "first-writer"), lake::Placed::kTaken) << "same size";
  EXPECT_EQ(ReadFile(server.ObjectPath(key)), "first writer");
  EXPECT_EQ(Put(*destination, key, "first writer"), lake::Placed::kSame) << "the same bytes again";
  EXPECT_EQ(Count(server.Requests(), "PUT", "overwrite/", 412), 3u)
      << "the premise: the store enforced If-None-Match every time";
  EXPECT_TRUE(destination->conditional_creates());
}

// The same for multipart: a completion refused with 412 is compared by size and the multipart
// ETag, and a taken key gets its pieces aborted, not left billed.
TEST_F(SharedStore, AMultipartCreateOnATakenKeyIsAbortedAndOnOurOwnBytesIsSuccess) {
  S3Server& server = *server_;
  ASSERT_TRUE(server.ok()) << server.error();
  CapturedLog log;
  S3Options options = TestOptions(server.endpoint());
  options.multipart_threshold = 16 * 1024;
  auto destination = Make(options, log.log());
  const std::string key = "overwrite-mp/date=2026-09-29/app=a/part-1.parquet";
  const std::string ours = RandomBytes(40 * 1024, 3);
  const std::string theirs = RandomBytes(40 * 1024, 4);
  EXPECT_EQ(Put(*destination, key, ours), lake::Placed::kNew);
  EXPECT_EQ(Put(*destination, key, theirs), lake::Placed::kTaken);
  EXPECT_EQ(Put(*destination, key, ours), lake::Placed::kSame);
  EXPECT_EQ(ReadFile(server.ObjectPath(key)), ours);
  EXPECT_EQ(Count(server.Requests(), "DELETE", "overwrite-mp/", 0), 2u)
      << "the refused completions' pieces were aborted";
}

// The seam compaction will use, on a bucket: List pages through every key under a prefix with
// its size, Read is a ranged GET, Delete of a missing key is success.
TEST_F(SharedStore, ListReadAndDeleteWorkOnTheBucket) {
  S3Server& server = *server_;
  ASSERT_TRUE(server.ok()) << server.error();
  CapturedLog log;
  auto destination = Make(TestOptions(server.endpoint()), log.log());
  for (int i = 0; i < 5; ++i) {
    ASSERT_TRUE(PutPart(*destination, "listed/app=a/part-" + std::to_string(i) + ".parquet",
                        std::string(10 + i, 'x')).ok());
  }
  ASSERT_TRUE(PutPart(*destination, "listed-not/part.parquet", "y").ok());
  auto listed = destination->List("listed/");
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  ASSERT_EQ(listed->size(), 5u);
  EXPECT_EQ((*listed)[2].key, "listed/app=a/part-2.parquet");
  EXPECT_EQ((*listed)[2].size, 12u);
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  EXPECT_LT(std::abs((*listed)[2].modified_unix_ms - now_ms), 120'000) << "LastModified read";
  ASSERT_TRUE(PutPart(*destination, "listed/app=a/range.parquet", "0123456789").ok());
  EXPECT_EQ(*destination->Read("listed/app=a/range.parquet", 3, 4), "3456");
  EXPECT_EQ(*destination->Read("listed/app=a/range.parquet", 8, 100), "89");
  EXPECT_TRUE(destination->Read("listed/none.parquet", 0, 4).status().IsNotFound());
  ASSERT_TRUE(destination->Delete("listed/app=a/part-0.parquet").ok());
  ASSERT_TRUE(destination->Delete("listed/app=a/part-0.parquet").ok()) << "again";
  EXPECT_EQ(destination->List("listed/")->size(), 5u);
}

// S3 answers at most 1,000 keys a page: List follows the continuation token to the last page.
// (s3rver's tokens are DES: before the server ran with OpenSSL's legacy provider, a page that
// needed one was a 500 ERR_OSSL_EVP_UNSUPPORTED, so every listing past 1,000 keys failed.)
TEST_F(SharedStore, AListingOfMoreThanOnePagePagesThroughEveryKey) {
  S3Server& server = *server_;
  ASSERT_TRUE(server.ok()) << server.error();
  CapturedLog log;
  auto destination = Make(TestOptions(server.endpoint()), log.log());
  constexpr int kKeys = 1'003;
  std::vector<std::string> keys;
  for (int i = 0; i < kKeys; ++i) {
    char name[64];
    std::snprintf(name, sizeof name, "paged/app=a/part-%04d.parquet", i);
    keys.push_back(name);
    ASSERT_TRUE(PutPart(*destination, keys.back(), "p").ok()) << keys.back();
  }
  auto listed = destination->List("paged/");
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  std::vector<std::string> got;
  for (const auto& o : *listed) got.push_back(o.key);
  EXPECT_EQ(got, keys);
  size_t continued = 0;
  for (const auto& r : server.Requests()) {
    const std::string url = r.value("url", "");
    if (url.find("prefix=paged") != std::string::npos &&
        url.find("continuation-token=") != std::string::npos) {
      ++continued;
      EXPECT_EQ(r.value("status", 0), 200) << url;
    }
  }
  EXPECT_EQ(continued, 1u) << "the premise: a second page was asked for";
}

// The grace deleter's delete on a bucket: a key written again since the listing (the same size
// even) holds another ETag and stays; the listed object itself goes, by a DELETE carrying
// If-Match with its ETag, so a store that honours it refuses a replacement landing after the HEAD.
TEST_F(SharedStore, DeleteIfUnchangedDeletesOnlyTheObjectTheListingSaw) {
  S3Server& server = *server_;
  ASSERT_TRUE(server.ok()) << server.error();
  CapturedLog log;
  auto destination = Make(TestOptions(server.endpoint()), log.log());
  const std::string key = "recreated/app=a/part-1.parquet";
  ASSERT_TRUE(PutPart(*destination, key, "0123456789").ok());
  auto before = destination->List("recreated/");
  ASSERT_TRUE(before.ok() && before->size() == 1u);
  const lake::StoredObject merged = (*before)[0];
  EXPECT_EQ(merged.version, "781e5e245d69b566979b86e28d23f2c7") << "the listing's bare ETag";
  ASSERT_TRUE(destination->Delete(key).ok());
  ASSERT_TRUE(PutPart(*destination, key, "9876543210").ok());
  auto kept = destination->DeleteIfUnchanged(merged);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  EXPECT_FALSE(*kept);
  EXPECT_EQ(*destination->Read(key, 0, 10), "9876543210") << "the re-created Part was deleted";
  const lake::StoredObject now = (*destination->List("recreated/"))[0];
  auto gone = destination->DeleteIfUnchanged(now);
  ASSERT_TRUE(gone.ok()) << gone.status().ToString();
  EXPECT_TRUE(*gone);
  EXPECT_TRUE(KeysUnder(server, "recreated/").empty());
  EXPECT_TRUE(*destination->DeleteIfUnchanged(now)) << "a key already gone is done";
  size_t conditional = 0;
  for (const auto& r : server.Requests()) {
    if (r["method"] == "DELETE" && r["url"].get<std::string>().find("/recreated/") !=
                                       std::string::npos &&
        r["headers"].contains("if-match")) {
      EXPECT_EQ(r["headers"]["if-match"], "\"" + now.version + "\"");
      ++conditional;
    }
  }
  EXPECT_EQ(conditional, 1u) << "the one delete sent, with If-Match";
}

// A store without conditional writes is found out once, logged once, and written to without the
// header from then on: the drain carries on rather than failing every flush.
TEST(S3Destination, AStoreWithoutConditionalWritesIsDetectedOnceAndUsedWithout) {
  S3Server server(S3ServerOptions{.if_none_match = "reject"});
  ASSERT_TRUE(server.ok()) << server.error();
  CapturedLog log;
  auto destination = Make(TestOptions(server.endpoint()), log.log());
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(PutPart(*destination, "k/part-" + std::to_string(i) + ".parquet", "x").ok());
  }
  EXPECT_FALSE(destination->conditional_creates());
  auto requests = server.Requests();
  EXPECT_EQ(Count(requests, "PUT", "part-0", 501), 1u) << "refused once";
  size_t with_header = 0;
  for (const auto& r : requests) with_header += r["headers"].contains("if-none-match");
  EXPECT_EQ(with_header, 1u) << "only the first create carried If-None-Match";
  const std::string text = log.Text();
  size_t warnings = 0;
  for (size_t at = text.find("does not implement If-None-Match"); at != std::string::npos;
       at = text.find("does not implement If-None-Match", at + 1)) {
    ++warnings;
  }
  EXPECT_EQ(warnings, 1u) << text;
  EXPECT_EQ(server.Keys().size(), 3u);
}

// A Part over the threshold goes up in pieces of the threshold's size and lands whole; one at
// the threshold is a single PUT.
TEST_F(SharedStore, APartAboveTheThresholdGoesMultipartAndLandsWhole) {
  S3Server& server = *server_;
  ASSERT_TRUE(server.ok()) << server.error();
  CapturedLog log;
  S3Options options = TestOptions(server.endpoint());
  options.multipart_threshold = 64 * 1024;
  auto destination = Make(options, log.log());
  const std::string big = RandomBytes(200 * 1024, 2);
  const std::string exact = RandomBytes(64 * 1024, 3);
  ASSERT_TRUE(PutPart(*destination, "multipart/big.parquet", big, 5000).ok());
  ASSERT_TRUE(PutPart(*destination, "multipart/exact.parquet", exact, 64 * 1024).ok());
  EXPECT_EQ(ReadFile(server.ObjectPath("multipart/big.parquet")), big);
  EXPECT_EQ(ReadFile(server.ObjectPath("multipart/exact.parquet")), exact);
  auto requests = server.Requests();
  EXPECT_EQ(Count(requests, "POST", "multipart/big.parquet?uploads", 200), 1u);
  EXPECT_EQ(Count(requests, "PUT", "multipart/big.parquet?partNumber=", 200), 4u) << "64+64+64+8 KiB";
  EXPECT_EQ(Count(requests, "POST", "multipart/big.parquet?uploadId=", 200), 1u);
  EXPECT_EQ(Count(requests, "POST", "multipart/exact.parquet"), 0u);
  EXPECT_EQ(Count(requests, "PUT", "multipart/exact.parquet", 200), 1u);
  auto meta = nlohmann::json::parse(ReadFile(server.BucketDir() / "multipart/big.parquet._S3rver_metadata.json"));
  EXPECT_EQ(meta["content-type"], "application/vnd.apache.parquet");
}

// An abandoned multipart upload must not become an object, and its pieces are cleaned up.
TEST_F(SharedStore, AnAbortedMultipartUploadLeavesNoObjectAndIsAbortedAtTheStore) {
  S3Server& server = *server_;
  ASSERT_TRUE(server.ok()) << server.error();
  CapturedLog log;
  S3Options options = TestOptions(server.endpoint());
  options.multipart_threshold = 16 * 1024;
  auto destination = Make(options, log.log());
  {
    auto upload = destination->Begin("torn.parquet");
    ASSERT_TRUE(upload.ok());
    const std::string bytes = RandomBytes(40 * 1024, 4);
    ASSERT_TRUE((*upload)->Append(sinkd::testing::Bytes(bytes)).ok());
    (*upload)->Abort();
  }
  auto requests = server.Requests();
  ASSERT_EQ(Count(requests, "PUT", "torn.parquet?partNumber=", 200), 2u) << "premise: pieces sent";
  EXPECT_EQ(Count(requests, "DELETE", "torn.parquet?uploadId=", 204), 1u);
  EXPECT_FALSE(std::filesystem::exists(server.ObjectPath("torn.parquet")));
  EXPECT_FALSE(std::filesystem::exists(server.BucketDir() / "._S3rver_uploads") &&
               !std::filesystem::is_empty(server.BucketDir() / "._S3rver_uploads"))
      << "the pieces are gone";
}

// s3rver itself answers an abort with 405; a store that cannot abort costs a warning, not a crash.
TEST(S3Destination, AStoreThatCannotAbortCostsAWarningAndStillNoObject) {
  S3Server server(S3ServerOptions{.s3rver_abort = true});
  ASSERT_TRUE(server.ok()) << server.error();
  CapturedLog log;
  S3Options options = TestOptions(server.endpoint());
  options.multipart_threshold = 16 * 1024;
  auto destination = Make(options, log.log());
  {
    auto upload = destination->Begin("torn.parquet");
    ASSERT_TRUE(upload.ok());
    ASSERT_TRUE((*upload)->Append(sinkd::testing::Bytes(RandomBytes(20 * 1024, 5))).ok());
  }  // destroyed without Commit: aborts
  EXPECT_EQ(Count(server.Requests(), "DELETE", "torn.parquet?uploadId=", 405), 1u);
  EXPECT_NE(log.Text().find("multipart abort failed"), std::string::npos) << log.Text();
  EXPECT_TRUE(server.Keys().empty());
}

// Uploads share the destination's buffer one at a time; one begun while another is open gets its
// own, so neither can see the other's bytes.
TEST_F(SharedStore, TwoUploadsOpenAtOnceEachLandTheirOwnBytes) {
  S3Server& server = *server_;
  ASSERT_TRUE(server.ok()) << server.error();
  CapturedLog log;
  auto destination = Make(TestOptions(server.endpoint()), log.log());
  auto a = destination->Begin("overlap/a.parquet");
  auto b = destination->Begin("overlap/b.parquet");
  ASSERT_TRUE(a.ok() && b.ok());
  const std::string bytes_a = RandomBytes(5000, 7), bytes_b = RandomBytes(6000, 8);
  ASSERT_TRUE((*a)->Append(sinkd::testing::Bytes(bytes_a)).ok());
  ASSERT_TRUE((*b)->Append(sinkd::testing::Bytes(bytes_b)).ok());
  ASSERT_TRUE((*b)->Commit().ok());
  ASSERT_TRUE((*a)->Commit().ok());
  EXPECT_EQ(ReadFile(server.ObjectPath("overlap/a.parquet")), bytes_a);
  EXPECT_EQ(ReadFile(server.ObjectPath("overlap/b.parquet")), bytes_b);
}

// A 4xx that is not throttling will not change on a retry: it fails at once with what the store
// said, and the request is sent exactly once.
TEST_F(SharedStore, AClientErrorFailsAtOnceWithTheStoresCodeAndMessage) {
  S3Server& server = *server_;
  ASSERT_TRUE(server.ok()) << server.error();
  CapturedLog log;
  auto destination = Make(TestOptions(server.endpoint(), "no-such-bucket"), log.log());
  Status s = PutPart(*destination, "k.parquet", "x");
  ASSERT_TRUE(s.IsRedeliver()) << s.ToString();
  EXPECT_EQ(s.message(),
            "place k.parquet: PUT: 404 NoSuchBucket: The specified bucket does not exist");
  EXPECT_EQ(Count(server.Requests(), "PUT", "/no-such-bucket/k.parquet"), 1u);
}

// A failed upload keeps its first error: the encode loop need not check every Append.
TEST(S3Destination, AFailedUploadKeepsItsFirstError) {
  CapturedLog log;
  S3Options options = TestOptions("127.0.0.1:1");  // nothing listens on port 1
  options.multipart_threshold = 1024;
  options.retry.attempts = 2;
  auto destination = Make(options, log.log());
  auto upload = destination->Begin("k.parquet");
  ASSERT_TRUE(upload.ok());
  const std::string bytes = RandomBytes(3000, 6);
  Status first = (*upload)->Append(sinkd::testing::Bytes(bytes));
  ASSERT_TRUE(first.IsRedeliver()) << first.ToString();
  EXPECT_NE(first.message().find("gave up after 2 attempts"), std::string::npos) << first.message();
  Status again = (*upload)->Append(sinkd::testing::Bytes(bytes));
  EXPECT_EQ(again.message(), first.message());
  EXPECT_EQ((*upload)->Commit().status().message(), first.message());
}

// Virtual-hosted addressing puts the bucket in the host name (s3rver reads it from there).
TEST_F(SharedStore, VirtualHostedAddressingPutsTheBucketInTheHostName) {
  S3Server& server = *server_;
  ASSERT_TRUE(server.ok()) << server.error();
  CapturedLog log;
  S3Options options = TestOptions("s3.localhost:" + std::to_string(server.port()));
  options.virtual_hosted = true;
  auto destination = Make(options, log.log());
  ASSERT_TRUE(destination->Ensure().ok());
  const std::string key = "vhost/date=2026-09-29/app=a/part-1.parquet";
  ASSERT_TRUE(PutPart(*destination, key, "vhost").ok());
  EXPECT_EQ(ReadFile(server.ObjectPath(key)), "vhost");
  const std::string host = "garm-lake.s3.localhost:" + std::to_string(server.port());
  size_t seen = 0;
  for (const auto& r : server.Requests()) {
    if (r["headers"]["host"] != host) continue;
    ++seen;
    EXPECT_EQ(r["url"].get<std::string>().find("/garm-lake"), std::string::npos) << r.dump();
  }
  EXPECT_EQ(seen, 2u) << "HEAD bucket and PUT object, both with the bucket in the host";
}

TEST(S3Destination, OptionsThatCannotWorkAreRefusedBeforeAnyRequest) {
  S3Options options = TestOptions("127.0.0.1:1");
  options.bucket = "";
  EXPECT_TRUE(S3Destination::Make(options, nullptr).status().IsRefuse());
  options.bucket = "a/b";
  EXPECT_TRUE(S3Destination::Make(options, nullptr).status().IsRefuse());
  options = TestOptions("127.0.0.1:1");
  options.multipart_threshold = 0;
  EXPECT_TRUE(S3Destination::Make(options, nullptr).status().IsRefuse());
}

}  // namespace
}  // namespace sinkd::s3
