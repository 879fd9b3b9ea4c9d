// If-None-Match: * as a compare-and-swap under real concurrency: twenty writers race to create
// one key (as two compactors doing one merge, or two table commits, do), each on its own
// connection, released together. Exactly one may win, the others must be told 412, and the object
// must be the winner's bytes. The test S3 layer once checked for the key, awaited, then let s3rver
// write: several racing creates all saw the key free and all answered 200, so a test of two
// writers passed on a store that did not protect them.
#include <gtest/gtest.h>

#include <algorithm>
#include <barrier>
#include <functional>
#include <thread>

#include "s3/s3_client.h"

#include "s3_server.h"
#include "s3_test_util.h"

namespace sinkd::s3 {
namespace {

using sinkd::testing::ReadFile;
using sinkd::testing::S3Server;
using sinkd::testing::TestOptions;

constexpr int kWriters = 20;

S3ClientOptions RacerOptions(const S3Server& server) {
  const S3Options o = TestOptions(server.endpoint());
  S3ClientOptions c;
  c.endpoint = o.endpoint;
  c.bucket = o.bucket;
  c.credentials = o.credentials;
  c.http.connect_timeout = o.connect_timeout;
  c.http.request_timeout = o.request_timeout;
  c.retry = o.retry;
  return c;
}

// Writer i's bytes: distinct per writer, large enough that s3rver's write takes a while.
std::string WriterBytes(int i) {
  return sinkd::testing::RandomBytes(256 * 1024, static_cast<uint64_t>(i) + 1);
}

struct Race {
  std::vector<long> status = std::vector<long>(kWriters, 0);
  int Count(long code) const { return static_cast<int>(std::count(status.begin(), status.end(), code)); }
  int Winner() const {
    for (int i = 0; i < kWriters; ++i) {
      if (status[i] == 200) return i;
    }
    return -1;
  }
};

// Runs `prepare(i, client)` on each writer's own connection, then `create(i, client)` on all of
// them at once, and records the status each create got (-1 for a transport failure).
Race RunRace(const S3Server& server,
             const std::function<void(int, S3Client&)>& prepare,
             const std::function<Result<HttpResponse>(int, S3Client&)>& create) {
  Logger log(stderr);
  Race race;
  std::barrier start(kWriters);
  std::vector<std::thread> writers;
  for (int i = 0; i < kWriters; ++i) {
    writers.emplace_back([&, i] {
      S3Client client(RacerOptions(server), log);
      prepare(i, client);
      start.arrive_and_wait();
      Result<HttpResponse> sent = create(i, client);
      race.status[i] = sent.ok() ? sent->status : -1;
    });
  }
  for (std::thread& t : writers) t.join();
  return race;
}

TEST(ConditionalCreate, OfTwentyConcurrentPutsOfOneKeyExactlyOneSucceedsAndTheRestGet412) {
  S3Server server;
  ASSERT_TRUE(server.ok()) << server.error();
  const std::string key = "race/put.bin";
  std::vector<std::string> bodies;
  for (int i = 0; i < kWriters; ++i) bodies.push_back(WriterBytes(i));
  const Race race = RunRace(
      server, [](int, S3Client&) {},
      [&](int i, S3Client& client) {
        return client.Send(S3Call{"PUT", key, {}, {{"if-none-match", "*"}}, bodies[i]});
      });
  EXPECT_EQ(race.Count(200), 1) << "more than one 200 means two writers both created the key "
                                   "(the second overwrote the first); none means nobody did";
  EXPECT_EQ(race.Count(412), kWriters - 1) << "every loser must be told the key is taken";
  ASSERT_GE(race.Winner(), 0);
  EXPECT_TRUE(ReadFile(server.ObjectPath(key)) == bodies[race.Winner()])
      << "the object must be exactly the bytes of the one create that was told 200";
}

TEST(ConditionalCreate, OfTwentyConcurrentMultipartCompletionsOfOneKeyExactlyOneSucceeds) {
  S3Server server;
  ASSERT_TRUE(server.ok()) << server.error();
  const std::string key = "race/multipart.bin";
  std::vector<std::string> bodies, upload_ids(kWriters), etags(kWriters);
  for (int i = 0; i < kWriters; ++i) bodies.push_back(WriterBytes(i));
  const Race race = RunRace(
      server,
      [&](int i, S3Client& client) {
        Result<HttpResponse> made = client.Send(S3Call{"POST", key, {{"uploads", ""}}, {}, {}});
        ASSERT_TRUE(made.ok() && made->status == 200) << "CreateMultipartUpload failed";
        upload_ids[i] = XmlValue(made->body, "UploadId");
        Result<HttpResponse> piece = client.Send(S3Call{
            "PUT", key, {{"partNumber", "1"}, {"uploadId", upload_ids[i]}}, {}, bodies[i]});
        ASSERT_TRUE(piece.ok() && piece->status == 200) << "UploadPart failed";
        etags[i] = piece->Header("etag");
      },
      [&](int i, S3Client& client) {
        const std::string xml = "<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>" +
                                etags[i] + "</ETag></Part></CompleteMultipartUpload>";
        return client.Send(S3Call{"POST", key, {{"uploadId", upload_ids[i]}},
                                  {{"content-type", "application/xml"}, {"if-none-match", "*"}},
                                  xml});
      });
  EXPECT_EQ(race.Count(200), 1) << "more than one 200 means two completions both created the key";
  EXPECT_EQ(race.Count(412), kWriters - 1) << "every other completion must be told 412";
  ASSERT_GE(race.Winner(), 0);
  EXPECT_TRUE(ReadFile(server.ObjectPath(key)) == bodies[race.Winner()])
      << "the object must be exactly the winner's bytes";
}

}  // namespace
}  // namespace sinkd::s3
