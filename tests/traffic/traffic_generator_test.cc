#include "traffic/traffic_generator.h"

#include <google/protobuf/arena.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <sstream>
#include <vector>

#include "census.h"
#include "contract/delimited.h"
#include "support/support.h"

namespace sinkd::traffic {
namespace {

using testing::Census;

std::string Stream(const TrafficOptions& options, int ledger, int audit) {
  TrafficGenerator generator(options);
  std::string out;
  AppendDelimitedMessages(generator, StreamKind::kLedger, ledger, out);
  AppendDelimitedMessages(generator, StreamKind::kAudit, audit, out);
  return out;
}

// Prevents a demo, test or benchmark that is not reproducible: a seed must name one byte stream.
TEST(TrafficGenerator, TheSameSeedGivesAByteIdenticalStream) {
  TrafficOptions options;
  options.seed = 42;
  options.bad_share = 0.05;
  options.events_per_batch = 50;
  const std::string first = Stream(options, 40, 400);
  ASSERT_GT(first.size(), 100'000u) << "premise: the stream is not trivially small";
  EXPECT_EQ(first, Stream(options, 40, 400)) << "the same seed gave different bytes";
}

// Prevents a seed that is ignored, which would make every "independent" run the same traffic.
TEST(TrafficGenerator, DifferentSeedsGiveDifferentStreams) {
  TrafficOptions a, b;
  a.seed = 1;
  b.seed = 2;
  a.events_per_batch = b.events_per_batch = 20;
  EXPECT_NE(Stream(a, 5, 5), Stream(b, 5, 5)) << "the seed does not reach the output";
}

// Prevents a silent change of the byte stream across machines, compilers or library versions
// (std::distributions, libm, FMA contraction, hash-map order). When the generator is changed on
// purpose, update the digest and say so in the commit.
TEST(TrafficGenerator, TheDefaultStreamHasAPinnedDigestOnEveryMachine) {
  TrafficOptions options;
  options.bad_share = 0.01;
  const std::string stream = Stream(options, 4, 200);
  uint64_t digest = 0xCBF29CE484222325ULL;
  for (unsigned char c : stream) digest = (digest ^ c) * 0x100000001B3ULL;
  std::ostringstream hex;
  hex << std::hex << digest;
  EXPECT_EQ(hex.str(), "a1fc9ea7641a5756") << "stream of " << stream.size() << " bytes";
}

// Prevents bad records leaking into a run that asked for none: every event must parse and carry
// the two fields a row cannot exist without.
TEST(TrafficGenerator, WithNoBadShareEveryEventParsesWithAnIdAndATime) {
  TrafficOptions options;
  options.events_per_batch = 250;
  TrafficGenerator generator(options);
  Census census;
  for (int i = 0; i < 200; ++i)
    testing::CensusOfLedgerMessage(generator.NextLedgerMessage(), census);
  for (int i = 0; i < 10'000; ++i)
    testing::CensusOfAuditMessage(generator.NextAuditMessage(), census);
  EXPECT_EQ(census.bad_records(), 0) << "a bad record appeared with bad_share 0";
  EXPECT_EQ(census.good, 200 * 250 + 10'000);
  EXPECT_EQ(generator.stats().good_events, census.good);
  EXPECT_EQ(generator.stats().bad_records(), 0);
  EXPECT_EQ(generator.stats().ledger_messages, 200);
  EXPECT_EQ(generator.stats().audit_messages, 10'000);
}

// Prevents tests that assert exact reject counts from being built on a wrong count: the stats
// must match, kind by kind, what libprotobuf finds in the bytes, and the share must be as asked.
TEST(TrafficGenerator, BadRecordsComeAtTheRequestedShareAndAreCountedExactlyByKind) {
  TrafficOptions options;
  options.seed = 7;
  options.bad_share = 0.02;
  options.events_per_batch = 100;
  TrafficGenerator generator(options);
  Census census;
  for (int i = 0; i < 2'000; ++i)
    testing::CensusOfLedgerMessage(generator.NextLedgerMessage(), census);
  for (int i = 0; i < 20'000; ++i)
    testing::CensusOfAuditMessage(generator.NextAuditMessage(), census);
  ASSERT_FALSE(HasFatalFailure());
  const TrafficStats& stats = generator.stats();
  EXPECT_EQ(stats.good_events, census.good) << "good events miscounted: expected rows are wrong";
  for (int k = 0; k < kBadKindCount; ++k) {
    const std::string name(BadKindName(static_cast<BadKind>(k)));
    EXPECT_EQ(stats.bad[k], census.bad[k])
        << name << " miscounted: expected dead letters are wrong";
    EXPECT_GT(census.bad[k], 10) << name << " (almost) never generated, so never exercised";
  }
  const double share =
      static_cast<double>(census.bad_records()) / static_cast<double>(stats.records());
  EXPECT_NEAR(share, 0.02, 0.002) << "the bad share is not what was asked for";
}

// Prevents duplicate ids where the lake's dedup (PARTITION BY event_id) would silently drop
// distinct events; also pins the UUIDv7 shape, whose time prefix must be the event's own time.
TEST(TrafficGenerator, EventIdsAreUniqueOverAMillionEvents) {
  TrafficOptions options;
  TrafficGenerator generator(options);
  // 128-bit ids in a sorted vector: a hash set of a million strings takes seconds.
  std::vector<std::pair<uint64_t, uint64_t>> ids;
  std::vector<uint64_t> request_ids;
  ids.reserve(1'000'000);
  request_ids.reserve(1'000'000);
  auto hex = [](std::string_view digits) { return std::stoull(std::string(digits), nullptr, 16); };
  for (int m = 0; m < 2'000; ++m) {
    google::protobuf::Arena arena;  // parsing a million events one heap object at a time is slow
    auto* batch = google::protobuf::Arena::CreateMessage<garm::ledger::v1::Batch>(&arena);
    ASSERT_TRUE(batch->ParseFromString(generator.NextLedgerMessage()));
    for (const auto& event : batch->events()) {
      const std::string_view id = event.event_id();
      ASSERT_EQ(id.size(), 36u);
      ASSERT_TRUE(id[8] == '-' && id[13] == '-' && id[18] == '-' && id[23] == '-') << id;
      ASSERT_EQ(id[14], '7') << "not a version-7 UUID: " << id;
      ASSERT_NE(std::string_view("89ab").find(id[19]), std::string_view::npos) << id;
      const uint64_t ms = event.time().seconds() * 1000 + event.time().nanos() / 1'000'000;
      const uint64_t hi =
          (hex(id.substr(0, 8)) << 32) | (hex(id.substr(9, 4)) << 16) | hex(id.substr(14, 4));
      ASSERT_EQ(hi >> 16, ms)
          << "the id's time prefix is not the event's time, so ids do not sort by time";
      ids.emplace_back(hi, (hex(id.substr(19, 4)) << 48) | hex(id.substr(24, 12)));
      if (!event.provider_request_id().empty()) {
        uint64_t h = 0xCBF29CE484222325ULL;
        for (unsigned char c : event.provider_request_id()) h = (h ^ c) * 0x100000001B3ULL;
        request_ids.push_back(h);
      }
    }
  }
  ASSERT_EQ(ids.size(), 1'000'000u);
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end()) << "a duplicate event_id";
  ASSERT_GT(request_ids.size(), 900'000u) << "premise: most calls carry a provider request id";
  std::sort(request_ids.begin(), request_ids.end());
  EXPECT_EQ(std::adjacent_find(request_ids.begin(), request_ids.end()), request_ids.end())
      << "a duplicate provider_request_id";
}

// Prevents `sinkd import` and the demo from reading a different stream than was generated: the
// delimited form must split back into exactly the messages, in order, through the contract reader.
TEST(TrafficGenerator, TheDelimitedWriterRoundTripsThroughTheContractReader) {
  TrafficOptions options;
  options.seed = 9;
  options.bad_share = 0.1;
  options.events_per_batch = 30;
  TrafficGenerator writer(options), twin(options);
  std::string stream;
  AppendDelimitedMessages(writer, StreamKind::kLedger, 60, stream);
  contract::DelimitedReader reader(stream);
  for (int i = 0; i < 60; ++i) {
    auto next = reader.Next();
    ASSERT_TRUE(next.ok()) << next.status().ToString();
    ASSERT_TRUE(next->has_value()) << "the stream ended after " << i << " of 60 messages";
    ASSERT_EQ(**next, twin.NextLedgerMessage()) << "message " << i << " differs";
  }
  auto end = reader.Next();
  ASSERT_TRUE(end.ok() && !end->has_value()) << "bytes left after the last message";
  EXPECT_EQ(writer.stats().ledger_messages, 60);

  // The file form holds the same bytes.
  sinkd::testing::TempDir dir;
  TrafficGenerator file_writer(options), string_writer(options);
  const std::string path = (dir / "audit.pbd").string();
  ASSERT_TRUE(WriteDelimitedFile(file_writer, StreamKind::kAudit, 5'000, path).ok());
  std::string expected;
  AppendDelimitedMessages(string_writer, StreamKind::kAudit, 5'000, expected);
  std::ifstream in(path, std::ios::binary);
  const std::string written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(written, expected) << "the file differs from the in-memory stream";
  EXPECT_TRUE(WriteDelimitedFile(file_writer, StreamKind::kAudit, 1, (dir / "no/such/dir").string())
                  .IsRefuse())
      << "an impossible path must be refused, not reported as written";
}

// Prevents a generator too slow for the benchmarks that draw their input from it (two million
// events must take seconds). Prints the rate; the bound is loose enough for a sanitizer build on
// a busy machine, and it is CPU time, so other processes do not count.
TEST(TrafficGenerator, TwoMillionEventsAreGeneratedInSeconds) {
  TrafficOptions options;
  options.bad_share = 0.01;
  options.expected_events = 2'000'000;
  TrafficGenerator generator(options);
  std::string message;
  int64_t bytes = 0;
  const std::clock_t start = std::clock();
  for (int i = 0; i < 4'000; ++i) {
    message.clear();
    generator.AppendLedgerMessage(message);
    bytes += static_cast<int64_t>(message.size());
  }
  const double seconds = static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
  std::printf("[ rate     ] 2,000,000 events (%.0f MB) in %.2f s of CPU: %.0f events/s\n",
              static_cast<double>(bytes) / 1e6, seconds, 2e6 / seconds);
  RecordProperty("events_per_second", static_cast<int>(2e6 / seconds));
  EXPECT_LT(seconds, 30.0) << "generation is far slower than the ~1.5 s it takes in Release";
}

// Prevents a generator silently built from nonsense options (a negative share, empty batches,
// more apps than there are names).
TEST(TrafficGenerator, InvalidOptionsAreRefusedWithTheFieldNamed) {
  EXPECT_TRUE(TrafficOptions().Validate().ok()) << "the defaults must be valid";
  auto refused = [](auto mutate, const std::string& field) {
    TrafficOptions options;
    mutate(options);
    const Status status = options.Validate();
    EXPECT_TRUE(status.IsRefuse()) << field;
    EXPECT_NE(status.message().find(field), std::string::npos) << status.message();
  };
  refused([](TrafficOptions& o) { o.bad_share = -0.1; }, "bad_share");
  refused([](TrafficOptions& o) { o.bad_share = std::nan(""); }, "bad_share");
  refused([](TrafficOptions& o) { o.events_per_batch = 0; }, "events_per_batch");
  refused([](TrafficOptions& o) { o.apps = 26; }, "apps");
  refused([](TrafficOptions& o) { o.tools = 0; }, "tools");
  refused([](TrafficOptions& o) { o.span_micros = 0; }, "span_micros");
  refused([](TrafficOptions& o) { o.expected_events = 0; }, "expected_events");
}

}  // namespace
}  // namespace sinkd::traffic
