// `sinkd tail --follow` stops through ShutdownSignals (base/shutdown_signals.h): Ctrl-C or a
// SIGTERM ends it with exit 0 instead of killing it mid-line.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "jetstream/jetstream_test_support.h"

namespace sinkd {
namespace {

using namespace std::chrono_literals;

// The exit status of a following tail sent `sig` once its header says it is reading, or -1.
int FollowingTailStatusAfter(int sig) {
  testing::NatsServer server;
  if (!server.ok()) return -1;
  testing::TempDir dir;
  const std::string url = server.url();
  if (testing::RunCommand({testing::SinkdBinary().string(), "provision", "--nats-url", url}, "",
                          30s).exit_code != 0) {
    return -1;
  }
  const std::string log = (dir / "tail.err").string();
  const pid_t pid = fork();
  if (pid == 0) {
    if (freopen(log.c_str(), "w", stderr) == nullptr) _exit(126);
    execl(testing::SinkdBinary().c_str(), "sinkd", "tail", "ledger", "--nats-url", url.c_str(),
          "--follow", nullptr);
    _exit(127);
  }
  // The header is printed after the handlers are installed: from then on a signal is a stop.
  const bool reading = testing::WaitUntil(
      [&] { return testing::ReadFile(log).find("follow=true") != std::string::npos; }, 30s);
  kill(pid, reading ? sig : SIGKILL);
  int status = 0;
  bool ended = testing::WaitUntil([&] { return waitpid(pid, &status, WNOHANG) == pid; }, 20s);
  if (!ended) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
  }
  if (!reading || !ended) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(TailCli, SigintEndsAFollowingTailWithExitZero) {
  EXPECT_EQ(FollowingTailStatusAfter(SIGINT), 0);
}

TEST(TailCli, SigtermEndsAFollowingTailWithExitZero) {
  EXPECT_EQ(FollowingTailStatusAfter(SIGTERM), 0);
}

}  // namespace
}  // namespace sinkd
