#include "base/shutdown_signals.h"

#include <signal.h>
#include <unistd.h>

#include <cstring>

namespace sinkd {

namespace {

std::atomic<bool> g_stop{false};
std::atomic<int> g_count{0};
std::atomic<bool> g_exit_on_second{true};

void OnSignal(int sig) {
  const int n = g_count.fetch_add(1) + 1;
  g_stop.store(true);
  if (n >= 2 && g_exit_on_second.load()) {
    static const char kMessage[] =
        "sinkd: second signal: exiting now; nothing that is not durable was acked\n";
    (void)!::write(2, kMessage, sizeof kMessage - 1);
    ::_exit(128 + sig);
  }
}

}  // namespace

void ShutdownSignals::Install(bool exit_on_second) {
  g_exit_on_second = exit_on_second;
  struct sigaction sa;
  std::memset(&sa, 0, sizeof sa);
  sa.sa_handler = OnSignal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
}

const std::atomic<bool>& ShutdownSignals::stop() { return g_stop; }

int ShutdownSignals::count() { return g_count.load(); }

}  // namespace sinkd
