// ShutdownSignals in a forked child each (death tests): the handlers are process-wide state.
#include "base/shutdown_signals.h"

#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include <gtest/gtest.h>

namespace sinkd {
namespace {

// Raises `sig` and waits (bounded) until its handler has run. A handler need not run inside
// raise(): ThreadSanitizer defers it to the next call it intercepts, and two raises of one
// signal before then are one delivery. Separate signals from an operator are separate in time.
void RaiseAndWait(int sig) {
  const int before = ShutdownSignals::count();
  ::raise(sig);
  for (int i = 0; i < 2000 && ShutdownSignals::count() == before; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

// Exits 0 only if the flag and the count are what one signal should leave behind.
void InstallRaiseOnceAndCheck(int sig) {
  ShutdownSignals::Install();
  if (ShutdownSignals::stop().load()) std::_Exit(10);
  RaiseAndWait(sig);
  std::_Exit(ShutdownSignals::stop().load() && ShutdownSignals::count() == 1 ? 0 : 11);
}

TEST(ShutdownSignals, OneSigtermOnlySetsTheStopFlag) {
  EXPECT_EXIT(InstallRaiseOnceAndCheck(SIGTERM), ::testing::ExitedWithCode(0), "");
}

TEST(ShutdownSignals, OneSigintOnlySetsTheStopFlag) {
  EXPECT_EXIT(InstallRaiseOnceAndCheck(SIGINT), ::testing::ExitedWithCode(0), "");
}

// The operator's way out of a shutdown that is taking too long (a store that does not answer):
// the second signal exits at once with 128+signal and says why on stderr.
TEST(ShutdownSignals, ASecondSignalExitsAtOnceWith128PlusTheSignal) {
  EXPECT_EXIT(
      {
        ShutdownSignals::Install();
        RaiseAndWait(SIGTERM);
        RaiseAndWait(SIGTERM);
        std::_Exit(0);  // not reached if the second signal exits
      },
      ::testing::ExitedWithCode(128 + SIGTERM), "second signal: exiting now");
  EXPECT_EXIT(
      {
        ShutdownSignals::Install();
        RaiseAndWait(SIGTERM);
        RaiseAndWait(SIGINT);
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(128 + SIGINT), "second signal");
}

// `tail` has nothing to lose, so every signal only asks it to stop.
TEST(ShutdownSignals, WithoutExitOnSecondEverySignalOnlyCounts) {
  EXPECT_EXIT(
      {
        ShutdownSignals::Install(/*exit_on_second=*/false);
        for (int i = 0; i < 3; ++i) RaiseAndWait(SIGINT);
        std::_Exit(ShutdownSignals::stop().load() && ShutdownSignals::count() == 3 ? 0 : 11);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace sinkd
