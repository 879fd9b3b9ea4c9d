// A connection given a list of servers, and its first connect retried while no server answers,
// against real nats-servers on loopback (issue 25, §2): a drain whose NATS is down when it starts,
// or whose first server is, must still get to the stream.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <thread>

#include "jetstream/connection.h"
#include "support/nats_server.h"

namespace sinkd::jetstream {
namespace {

using namespace std::chrono_literals;
using testing::NatsServer;

std::string DownUrl() { return "nats://127.0.0.1:" + std::to_string(testing::FreeLoopbackPort()); }

// A Logger into a file the test reads back.
struct CapturedLog {
  testing::TempDir dir;
  std::FILE* file = std::fopen((dir / "log").c_str(), "w+");
  Logger log{file};
  ~CapturedLog() { std::fclose(file); }
  std::string Text() {
    std::fflush(file);
    return testing::ReadFile(dir / "log");
  }
};

TEST(ServerList, AListWhoseFirstServerIsDownConnectsToALiveOne) {
  NatsServer server;
  ASSERT_TRUE(server.ok()) << server.error();
  ConnectOptions o;
  // Blanks around the commas are allowed, as the nats CLI allows them.
  o.url = DownUrl() + " , " + DownUrl() + "," + server.url();
  o.reconnect_forever = false;
  // libnats shuffles the list: every order must end on the live server.
  for (int i = 0; i < 5; ++i) {
    auto c = Connection::Connect(o);
    ASSERT_TRUE(c.ok()) << c.status().ToString();
    EXPECT_EQ((*c)->connected_url(), server.url());
    EXPECT_EQ((*c)->url(), o.url);
  }
}

TEST(ServerList, AnEmptyEntryInTheListIsRefusedNamingIt) {
  ConnectOptions o;
  o.url = "nats://127.0.0.1:4222,,nats://u:secret@127.0.0.1:4223";
  auto c = Connection::Connect(o);
  ASSERT_FALSE(c.ok());
  EXPECT_TRUE(c.status().IsRefuse()) << c.status().ToString();
  EXPECT_NE(c.status().message().find("entry 2 is empty"), std::string::npos)
      << c.status().ToString();
  EXPECT_EQ(c.status().message().find("secret"), std::string::npos) << c.status().ToString();
  auto split = SplitServerList(" nats://a:1 ,tls://b:2");
  ASSERT_TRUE(split.ok());
  EXPECT_EQ(*split, (std::vector<std::string>{"nats://a:1", "tls://b:2"}));
  EXPECT_FALSE(SplitServerList("nats://a:1,").ok());
}

TEST(ServerList, AFirstConnectIsRetriedWithALogLinePerAttemptUntilAServerComesUp) {
  const int port = testing::FreeLoopbackPort();
  NatsServer late(port, {}, /*start=*/false);
  CapturedLog captured;
  ConnectOptions o;
  o.url = "nats://sinkd:listPassword@127.0.0.1:" + std::to_string(port);
  o.connect_timeout = 30s;
  o.log = &captured.log;
  // The server is started from this thread: its PDEATHSIG fires when the forking thread ends.
  const auto t0 = std::chrono::steady_clock::now();
  Result<std::unique_ptr<Connection>> c = Status::Internal("not run");
  std::thread connecting([&] { c = Connection::Connect(o); });
  std::this_thread::sleep_for(1500ms);
  const bool started = late.Restart();
  connecting.join();
  ASSERT_TRUE(started) << late.error();
  ASSERT_TRUE(c.ok()) << c.status().ToString() << "\n" << captured.Text();
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 1500ms);
  EXPECT_EQ((*c)->connected_url(), "nats://sinkd:***@127.0.0.1:" + std::to_string(port));
  const std::string log = captured.Text();
  EXPECT_NE(log.find("\"msg\":\"NATS connect failed; retrying\""), std::string::npos) << log;
  EXPECT_NE(log.find("\"attempt\":1"), std::string::npos) << log;
  EXPECT_NE(log.find("\"attempt\":2"), std::string::npos) << "waits start at 500 ms\n" << log;
  EXPECT_NE(log.find("\"retry_in\":"), std::string::npos) << log;
  EXPECT_EQ(log.find("listPassword"), std::string::npos) << log;
}

TEST(ServerList, AFirstConnectGivesUpAtTheConnectTimeout) {
  CapturedLog captured;
  ConnectOptions o;
  o.url = DownUrl() + ",nats://tok3nSecret@127.0.0.1:" +
          std::to_string(testing::FreeLoopbackPort());
  o.connect_timeout = 2s;
  o.log = &captured.log;
  const auto t0 = std::chrono::steady_clock::now();
  auto c = Connection::Connect(o);
  const auto took = std::chrono::steady_clock::now() - t0;
  ASSERT_FALSE(c.ok());
  EXPECT_TRUE(c.status().IsRetry()) << c.status().ToString();
  EXPECT_NE(c.status().message().find("gave up after"), std::string::npos)
      << c.status().ToString();
  EXPECT_GE(took, 1s);
  EXPECT_LE(took, 4s) << "the next wait would have passed the timeout: give up before it";
  EXPECT_EQ(c.status().message().find("tok3nSecret"), std::string::npos) << c.status().ToString();
  EXPECT_EQ(captured.Text().find("tok3nSecret"), std::string::npos) << captured.Text();

  // Zero tries each server once and says nothing of retries.
  o.connect_timeout = 0ms;
  auto once = Connection::Connect(o);
  ASSERT_FALSE(once.ok());
  EXPECT_EQ(once.status().message().find("gave up"), std::string::npos) << once.status().ToString();
}

TEST(ServerList, AStopEndsTheRetriesOfAConnectThatWouldWaitForever) {
  std::atomic<bool> stop{false};
  CapturedLog captured;
  ConnectOptions o;
  o.url = DownUrl();
  o.connect_timeout = kConnectForever;
  o.log = &captured.log;
  o.stop = &stop;
  std::thread stopper([&] {
    std::this_thread::sleep_for(1200ms);
    stop = true;
  });
  const auto t0 = std::chrono::steady_clock::now();
  auto c = Connection::Connect(o);
  stopper.join();
  ASSERT_FALSE(c.ok());
  EXPECT_LE(std::chrono::steady_clock::now() - t0, 3s);
  EXPECT_NE(c.status().message().find("NATS connect: stopped before it succeeded"),
            std::string::npos)
      << c.status().ToString();
}

}  // namespace
}  // namespace sinkd::jetstream
