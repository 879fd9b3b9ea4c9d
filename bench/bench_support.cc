#include "bench_support.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>

extern char** environ;

namespace sinkd::bench {

double Seconds(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

Spread SpreadOf(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  const double median = n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  return {median, values.front(), values.back()};
}

Spread RatioSpread(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> ratios;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) ratios.push_back(b[i] > 0 ? a[i] / b[i] : 0);
  return SpreadOf(std::move(ratios));
}

std::string Format(const Spread& s, const char* format) {
  char a[64], b[64], c[64];
  std::snprintf(a, sizeof a, format, s.median);
  std::snprintf(b, sizeof b, format, s.min);
  std::snprintf(c, sizeof c, format, s.max);
  return std::string(a) + " (" + b + "–" + c + ")";
}

std::string RatioLine(const Spread& ratio, double target) {
  char text[128];
  std::snprintf(text, sizeof text, "%.2f× (%.2f–%.2f)  target >= %.2f×: %s", ratio.median,
                ratio.min, ratio.max, target, ratio.median >= target ? "MET" : "MISSED");
  return text;
}

unsigned Cores() {
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<unsigned>(n) : 1;
}

std::string LoadAverage() {
  std::string text = ReadFile("/proc/loadavg");
  size_t end = 0;
  for (int field = 0; field < 3 && end != std::string::npos; ++field) {
    end = text.find(' ', end == 0 ? 0 : end + 1);
  }
  return end == std::string::npos ? text : text.substr(0, end);
}

void PrintMachine(const char* bench) {
  std::string model = "unknown CPU";
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) model = line.substr(line.find_first_not_of(' ', colon + 1));
      break;
    }
  }
  utsname u{};
  uname(&u);
  std::printf("%s: machine: %u cores (nproc), %s, %s %s; load average before: %s\n", bench,
              Cores(), model.c_str(), u.sysname, u.release, LoadAverage().c_str());
}

void PrintLoadAfter() { std::printf("load average after: %s\n", LoadAverage().c_str()); }

pid_t Spawn(const std::vector<std::string>& argv, const std::string& log,
            const std::vector<std::string>& env) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::vector<char*> envp;
  for (char** e = environ; *e != nullptr; ++e) envp.push_back(*e);
  for (const auto& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  const char* out = log.empty() ? "/dev/null" : log.c_str();
  posix_spawn_file_actions_addopen(&actions, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  return rc == 0 ? pid : -1;
}

ChildRun Wait(pid_t pid, Clock::time_point started) {
  ChildRun run;
  if (pid <= 0) return run;
  int status = 0;
  struct rusage usage {};
  if (wait4(pid, &status, 0, &usage) != pid) return run;
  run.wall = Seconds(started);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  run.cpu = usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 + usage.ru_stime.tv_sec +
            usage.ru_stime.tv_usec / 1e6;
  run.max_rss_kib = usage.ru_maxrss;
  return run;
}

ChildRun Run(const std::vector<std::string>& argv, const std::string& log,
             const std::vector<std::string>& env) {
  const Clock::time_point start = Clock::now();
  return Wait(Spawn(argv, log, env), start);
}

ChildGuard::~ChildGuard() { Stop(); }

void ChildGuard::Stop() {
  if (pid_ <= 0) return;
  kill(pid_, SIGTERM);
  waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<std::string> EncodeThreadsFlag(const std::string& sinkd,
                                           const std::vector<std::string>& command,
                                           unsigned threads) {
  char log[] = "/tmp/bench-help-XXXXXX";
  const int fd = mkstemp(log);
  if (fd < 0) return {};
  close(fd);
  std::vector<std::string> argv = {sinkd};
  argv.insert(argv.end(), command.begin(), command.end());
  argv.push_back("--help");
  Run(argv, log);
  const bool listed = ReadFile(log).find("--encode-threads") != std::string::npos;
  unlink(log);
  if (!listed) return {};
  return {"--encode-threads", std::to_string(threads)};
}

nlohmann::json RunNodePeer(const std::string& script, const std::vector<std::string>& args,
                           const std::vector<std::string>& env, const std::string& log,
                           std::string& error) {
  std::vector<std::string> argv = {"node", std::string(SINKD_SOURCE_DIR) + "/bench/" + script};
  argv.insert(argv.end(), args.begin(), args.end());
  const ChildRun run = Run(argv, log, env);
  const std::string out = ReadFile(log);
  if (run.exit_code != 0) {
    error = script + " exited " + std::to_string(run.exit_code) + ": " + out.substr(0, 2000);
    return nlohmann::json::value_t::discarded;
  }
  size_t end = out.find_last_not_of('\n');
  const size_t start = end == std::string::npos ? 0 : out.rfind('\n', end);
  const std::string last = out.substr(start == std::string::npos ? 0 : start + 1);
  nlohmann::json j = nlohmann::json::parse(last, nullptr, false);
  if (j.is_discarded()) error = script + " printed no JSON: " + out.substr(0, 2000);
  return j;
}

}  // namespace sinkd::bench
