// sinkd_build_info and the process_* metrics on a /metrics page, checked against what the kernel
// says of this very process: each figure moves when the process opens descriptors, touches
// memory, burns CPU or has its descriptor limit lowered.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "base/build_info.h"
#include "http/listener.h"
#include "outbox/process.h"

namespace sinkd {
namespace {

// When this test binary was loaded, as Unix seconds: its process started just before.
const double kLoadedAt =
    std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();

struct Page {
  Page()
      : listener([] { return std::string("sinkd_up 1\n"); },
                 [](std::string* why) {
                   *why = "";
                   return true;
                 }) {
    started = listener.Start("127.0.0.1:0").ok();
  }
  // The value of the unlabelled sample `name`, or -1 when the page does not have it.
  double Sample(const std::string& name) {
    const std::string body = "\n" + outbox::testing::HttpGet(listener.port(), "/metrics").body;
    const size_t at = body.find("\n" + name + " ");
    return at == std::string::npos ? -1 : std::stod(body.substr(at + name.size() + 2));
  }
  http::Listener listener;
  bool started = false;
};

// A /proc/self/status figure in bytes ("VmRSS:   1234 kB").
double StatusBytes(const std::string& key) {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(key + ":", 0) == 0) return std::stod(line.substr(key.size() + 1)) * 1024;
  }
  return -1;
}

TEST(ProcessMetrics, EveryPageSaysWhichBuildAnswers) {
  Page page;
  ASSERT_TRUE(page.started);
  const std::string body = outbox::testing::HttpGet(page.listener.port(), "/metrics").body;
  EXPECT_EQ(body.rfind("sinkd_up 1\n", 0), 0u) << "the command's own figures come first\n" << body;
  const std::string info = std::string("\nsinkd_build_info{version=\"") + kVersion +
                           "\",revision=\"" + kBuildId + "\"} 1\n";
  EXPECT_NE(body.find(info), std::string::npos) << body;
  EXPECT_NE(body.find("\n# TYPE sinkd_build_info gauge\n"), std::string::npos) << body;
}

TEST(ProcessMetrics, OpenDescriptorsAndTheirLimitAreThisProcesss) {
  Page page;
  ASSERT_TRUE(page.started);
  // What this process has open as it asks: the page also counts the scrape's two ends.
  double mine = -1;  // the directory being listed is no descriptor of ours
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    (void)entry;
    ++mine;
  }
  const double before = page.Sample("process_open_fds");
  EXPECT_EQ(before, mine + 2);
  std::vector<int> fds(100);
  for (int& fd : fds) fd = ::dup(2);
  const double after = page.Sample("process_open_fds");
  for (int fd : fds) ::close(fd);
  EXPECT_EQ(after - before, 100);

  rlimit limit{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &limit), 0);
  EXPECT_EQ(page.Sample("process_max_fds"), static_cast<double>(limit.rlim_cur));
  rlimit lowered = limit;
  lowered.rlim_cur = 777;
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &lowered), 0);
  const double lowered_max = page.Sample("process_max_fds");
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &limit), 0);
  EXPECT_EQ(lowered_max, 777);
}

TEST(ProcessMetrics, MemoryIsWhatTheKernelCountsAndGrowsWithWhatIsTouched) {
  Page page;
  ASSERT_TRUE(page.started);
  const double rss = page.Sample("process_resident_memory_bytes");
  const double vsz = page.Sample("process_virtual_memory_bytes");
  EXPECT_NEAR(rss, StatusBytes("VmRSS"), 8 << 20);
  EXPECT_NEAR(vsz, StatusBytes("VmSize"), 64 << 20);
  EXPECT_GT(vsz, rss);
  constexpr size_t kTouched = 96 << 20;
  std::unique_ptr<char[]> block(new char[kTouched]);
  std::memset(block.get(), 1, kTouched);
  const double grown = page.Sample("process_resident_memory_bytes");
  EXPECT_EQ(block[kTouched - 1], 1);
  EXPECT_GT(grown - rss, 90 << 20) << "the 96 MiB just touched are resident";
  EXPECT_GT(page.Sample("process_virtual_memory_bytes") - vsz, 90 << 20);
}

TEST(ProcessMetrics, CpuSecondsCountWhatThisProcessBurnsAndTheStartIsItsOwn) {
  Page page;
  ASSERT_TRUE(page.started);
  const double cpu = page.Sample("process_cpu_seconds_total");
  ASSERT_GE(cpu, 0);
  // A quarter second of this thread's CPU in user mode and another in the kernel (reading
  // /dev/zero), by the thread's own clocks, so a busy machine only makes it take longer.
  const auto burnt = [](bool user) {
    rusage u{};
    ::getrusage(RUSAGE_THREAD, &u);
    const timeval& t = user ? u.ru_utime : u.ru_stime;
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  volatile uint64_t spin = 0;
  for (const double until = burnt(true) + 0.25; burnt(true) < until;) {
    for (int i = 0; i < 100000; ++i) spin = spin + static_cast<uint64_t>(i);
  }
  const int zero = ::open("/dev/zero", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(zero, 0);
  std::vector<char> buffer(1 << 20);
  for (const double until = burnt(false) + 0.25; burnt(false) < until;) {
    ASSERT_GT(::read(zero, buffer.data(), buffer.size()), 0);
  }
  ::close(zero);
  rusage self{};
  ::getrusage(RUSAGE_SELF, &self);
  const double total = static_cast<double>(self.ru_utime.tv_sec + self.ru_stime.tv_sec) +
                       static_cast<double>(self.ru_utime.tv_usec + self.ru_stime.tv_usec) / 1e6;
  const double now = page.Sample("process_cpu_seconds_total");
  EXPECT_GE(now - cpu, 0.45) << "both halves counted";
  EXPECT_NEAR(now, total, 0.05) << "what getrusage says the process used, user and system";

  const double started = page.Sample("process_start_time_seconds");
  EXPECT_LE(started, kLoadedAt + 0.05) << "started before this binary's statics ran";
  EXPECT_GE(started, kLoadedAt - 5) << "and not long before (a clock tick is 10 ms)";
}

}  // namespace
}  // namespace sinkd
