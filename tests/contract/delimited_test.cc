#include "contract/delimited.h"

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "support/support.h"

namespace sinkd::contract {
namespace {

// Writes `count` delimited messages to `path`, message i of (i * step % modulo) bytes of one
// letter, and returns them (and the file's bytes in `data`, when given).
std::vector<std::string> WriteMessages(const std::filesystem::path& path, int count, int step,
                                       int modulo, std::string* data = nullptr) {
  std::string bytes;
  std::vector<std::string> messages;
  for (int i = 0; i < count; ++i) {
    messages.push_back(
        std::string(static_cast<size_t>(i * step % modulo), static_cast<char>('a' + i % 26)));
    AppendDelimited(bytes, messages.back());
  }
  sinkd::testing::WriteFile(path, bytes);
  if (data != nullptr) *data = std::move(bytes);
  return messages;
}

// A file of delimited messages is what `sinkd import` replays: a framing error would shift every
// later message by some bytes and turn good records into garbage.
TEST(Delimited, MessagesRoundTripThroughTheVarintFraming) {
  std::string data;
  const std::string big(300, 'b');  // a two-byte length
  AppendDelimited(data, "a");
  AppendDelimited(data, "");
  AppendDelimited(data, big);
  EXPECT_EQ(data.substr(0, 2), std::string("\x01" "a", 2));
  EXPECT_EQ(static_cast<uint8_t>(data[3]), 0xAC) << "300 = 0xAC 0x02 as a varint";
  DelimitedReader reader(data);
  std::vector<std::string> got;
  while (true) {
    auto next = reader.Next();
    ASSERT_TRUE(next.ok()) << next.status().ToString();
    if (!next->has_value()) break;
    got.emplace_back(**next);
  }
  EXPECT_EQ(got, (std::vector<std::string>{"a", "", big}));
}

TEST(Delimited, ATruncatedInputIsRefusedWithItsOffset) {
  std::string data;
  AppendDelimited(data, "hello");
  data.pop_back();
  DelimitedReader reader(data);
  auto next = reader.Next();
  ASSERT_FALSE(next.ok());
  EXPECT_NE(next.status().message().find("byte 0"), std::string::npos) << next.status().message();
}

// The streaming reader must give the same messages as the in-memory one whatever its buffer size,
// including messages larger than the buffer and lengths split across reads.
TEST(Delimited, TheStreamReaderAgreesWithTheBufferReaderForAnyBufferSize) {
  sinkd::testing::TempDir tmp;
  std::string data;
  const std::vector<std::string> want = WriteMessages(tmp / "in.bin", 200, 37, 1000, &data);
  for (size_t buffer : {size_t{1}, size_t{7}, size_t{64}, size_t{4096}, size_t{1} << 20}) {
    int fd = ::open((tmp / "in.bin").c_str(), O_RDONLY);
    ASSERT_GE(fd, 0);
    DelimitedStreamReader reader(fd, buffer);
    std::vector<std::string> got;
    while (true) {
      auto next = reader.Next();
      ASSERT_TRUE(next.ok()) << next.status().ToString();
      if (!next->has_value()) break;
      got.emplace_back(**next);
    }
    ::close(fd);
    EXPECT_EQ(got, want) << "buffer " << buffer;
  }
  sinkd::testing::WriteFile(tmp / "cut.bin", data.substr(0, data.size() - 3));
  int fd = ::open((tmp / "cut.bin").c_str(), O_RDONLY);
  DelimitedStreamReader reader(fd, 64);
  Status last;
  while (true) {
    auto next = reader.Next();
    if (!next.ok()) {
      last = next.status();
      break;
    }
    if (!next->has_value()) break;
  }
  ::close(fd);
  EXPECT_TRUE(last.IsReject()) << "a cut-off last message must be an error, not a silent end";
}

// import decodes a run where the reader read it: every view of a run must hold its message until
// the next call, however small the buffer, and the runs together must be the input, in order.
TEST(Delimited, ARunsViewsAllHoldTheirMessagesAndTheRunsTogetherAreTheInput) {
  sinkd::testing::TempDir tmp;
  const std::vector<std::string> want = WriteMessages(tmp / "in.bin", 300, 53, 700);
  struct Way {
    size_t buffer, max_messages, max_bytes;
  };
  for (const Way way : {Way{1, 64, 1 << 20}, Way{700, 5, 1 << 20}, Way{4096, 64, 1000},
                        Way{4096, 1, 1 << 20}, Way{1 << 20, 64, 8 << 20}}) {
    int fd = ::open((tmp / "in.bin").c_str(), O_RDONLY);
    ASSERT_GE(fd, 0);
    DelimitedStreamReader reader(fd, way.buffer);
    std::vector<std::string> got;
    size_t runs = 0;
    while (true) {
      auto run = reader.NextRun(way.max_messages, way.max_bytes);
      ASSERT_TRUE(run.ok()) << run.status().ToString();
      if (run->empty()) break;
      ++runs;
      ASSERT_LE(run->size(), way.max_messages);
      size_t bytes = 0;
      for (size_t i = 0; i < run->size(); ++i) {
        if (i > 0) {
          ASSERT_LT(bytes, way.max_bytes) << "a run goes on only while under max_bytes";
        }
        bytes += (*run)[i].size();
      }
      // Read only now, once the whole run is taken: a buffer moved for a later message of the
      // run would show here as another message's bytes.
      for (std::string_view m : *run) got.emplace_back(m);
    }
    ::close(fd);
    EXPECT_EQ(got, want) << "buffer " << way.buffer << ", runs of " << way.max_messages;
    if (way.max_messages > 1) {
      EXPECT_LT(runs, want.size()) << "buffer " << way.buffer << ": runs of one message only";
    }
  }
}

}  // namespace
}  // namespace sinkd::contract
