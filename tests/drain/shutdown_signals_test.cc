// ShutdownSignals in a forked child each (death tests): the handlers are process-wide state.
#include "drain/shutdown_signals.h"

#include <signal.h>

#include <cstdlib>

#include <gtest/gtest.h>

namespace sinkd::drain {
namespace {

// Exits 0 only if the flag and the count are what one signal should leave behind.
void InstallRaiseOnceAndCheck(int sig) {
  ShutdownSignals::Install();
  if (ShutdownSignals::stop().load()) std::_Exit(10);
  ::raise(sig);
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
        ::raise(SIGTERM);
        ::raise(SIGTERM);
        std::_Exit(0);  // not reached if the second signal exits
      },
      ::testing::ExitedWithCode(128 + SIGTERM), "second signal: exiting now");
  EXPECT_EXIT(
      {
        ShutdownSignals::Install();
        ::raise(SIGTERM);
        ::raise(SIGINT);
        std::_Exit(0);
      },
      ::testing::ExitedWithCode(128 + SIGINT), "second signal");
}

// `tail` has nothing to lose, so every signal only asks it to stop.
TEST(ShutdownSignals, WithoutExitOnSecondEverySignalOnlyCounts) {
  EXPECT_EXIT(
      {
        ShutdownSignals::Install(/*exit_on_second=*/false);
        for (int i = 0; i < 3; ++i) ::raise(SIGINT);
        std::_Exit(ShutdownSignals::stop().load() && ShutdownSignals::count() == 3 ? 0 : 11);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace sinkd::drain
