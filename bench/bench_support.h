// What every benchmark needs and none should write again: a figure as the median of its runs with
// the min–max spread, per-run ratios, the machine printed with its load, and child processes
// (sinkd itself, nats-server, the Node.js peers) timed by wall clock with their CPU and peak RSS.
// Threads: one thread at a time. Errors: a child that fails is reported in its ChildRun, never
// thrown; callers decide whether the benchmark can go on.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace sinkd::bench {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point start);

// A figure over several runs. The median, not the best: on a shared machine the best run is luck.
struct Spread {
  double median = 0, min = 0, max = 0;
};
// REQUIRES: !values.empty().
Spread SpreadOf(std::vector<double> values);
// The spread of a[i] / b[i]: the runs are interleaved, so run i of each side saw the same load.
// REQUIRES: a.size() == b.size() > 0.
Spread RatioSpread(const std::vector<double>& a, const std::vector<double>& b);
// "123456 (120001–130222)" with `format` for each number.
std::string Format(const Spread& s, const char* format = "%.0f");
// "0.83× (0.80–0.85)  target >= 1.5×: MISSED" (MET when the median reaches the target).
std::string RatioLine(const Spread& ratio, double target);

// Online processors (what `nproc` prints).
unsigned Cores();
// The first three fields of /proc/loadavg.
std::string LoadAverage();
// One line: cores, CPU model (/proc/cpuinfo), kernel, the load average now. Call at the start;
// PrintLoadAfter at the end.
void PrintMachine(const char* bench);
void PrintLoadAfter();

struct ChildRun {
  int exit_code = -1;     // 128 + signal when killed
  double wall = 0;        // seconds from Spawn to exit
  double cpu = 0;         // user + system seconds of the child (its own threads, not its children)
  long max_rss_kib = 0;   // ru_maxrss
};

// Starts argv[0] (searched in PATH) with `env` ("K=V") added to this process's environment,
// stdout and stderr to `log` (or /dev/null when empty). posix_spawn, not fork: a forked child's
// ru_maxrss would start at this process's size. Returns -1 when it cannot start.
pid_t Spawn(const std::vector<std::string>& argv, const std::string& log,
            const std::vector<std::string>& env = {});
// Waits for `pid`, started at `started`.
ChildRun Wait(pid_t pid, Clock::time_point started);
// Spawn and Wait.
ChildRun Run(const std::vector<std::string>& argv, const std::string& log,
             const std::vector<std::string>& env = {});

// Kills (SIGTERM) and reaps a child when it goes out of scope, on every return path.
class ChildGuard {
 public:
  explicit ChildGuard(pid_t pid) : pid_(pid) {}
  ~ChildGuard();
  ChildGuard(const ChildGuard&) = delete;
  ChildGuard& operator=(const ChildGuard&) = delete;
  pid_t pid() const { return pid_; }
  // The child has been reaped by the caller: nothing to do.
  void Release() { pid_ = -1; }
  // Kills and reaps it now.
  void Stop();

 private:
  pid_t pid_;
};

std::string ReadFile(const std::string& path);

// `{"--encode-threads", "N"}` when `sinkd <command…> --help` lists the flag, else nothing: the
// benches run on a sinkd with or without a parallel encode and use every core once it has one.
std::vector<std::string> EncodeThreadsFlag(const std::string& sinkd,
                                           const std::vector<std::string>& command,
                                           unsigned threads);

// Runs `node <script> args…` (script relative to the source tree's bench/) with `env` added, and
// parses the last line it prints as JSON; on failure returns a discarded value and sets `error`.
nlohmann::json RunNodePeer(const std::string& script, const std::vector<std::string>& args,
                           const std::vector<std::string>& env, const std::string& log,
                           std::string& error);

}  // namespace sinkd::bench
