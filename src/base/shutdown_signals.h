// ShutdownSignals turns SIGINT and SIGTERM into a stop flag for the commands that run until
// stopped (drain, dispatch, tail): the first one sets it (a drain stops fetching, flushes what it
// holds under the usual rules and exits 0; dispatch finishes each sink's pass and releases its
// leases); a second one exits the process at once with 128+signal, acking nothing more. Nothing
// unacked is lost by that: messages whose Parts were not durable were never acked and come back
// after the ack wait, and an outbox cursor moves only after its delivery returned.
// The flag lives in a process-wide atomic because a signal handler can reach nothing else; this is
// the one piece of global state sinkd has, and only the commands that run until stopped install it.
// Threads: Install once from main's thread; stop() is safe to read from any thread.
#pragma once

#include <atomic>

namespace sinkd {

class ShutdownSignals {
 public:
  // Installs the handlers (SA_RESTART); `exit_on_second` false makes every signal only set the
  // flag (tail, which has nothing to lose).
  static void Install(bool exit_on_second = true);
  static const std::atomic<bool>& stop();
  static int count();
};

}  // namespace sinkd
