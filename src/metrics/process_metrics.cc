#include "metrics/process_metrics.h"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <sstream>
#include <vector>

#include <fmt/format.h>

#include "base/build_info.h"

namespace sinkd::metrics {

namespace {

std::string ReadAll(const char* path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The seconds since the epoch at which the machine booted: /proc/self/stat dates the process's
// start in clock ticks after boot.
std::optional<double> BootTime() {
  std::istringstream stat(ReadAll("/proc/stat"));
  std::string line;
  while (std::getline(stat, line)) {
    if (line.rfind("btime ", 0) == 0) return std::stod(line.substr(6));
  }
  return std::nullopt;
}

std::optional<double> OpenFds() {
  DIR* dir = ::opendir("/proc/self/fd");
  if (dir == nullptr) return std::nullopt;
  double count = 0;
  while (const dirent* e = ::readdir(dir)) {
    if (e->d_name[0] != '.') ++count;
  }
  ::closedir(dir);
  return count - 1;  // the descriptor opendir holds while we count
}

}  // namespace

ProcessFigures ReadProcessFigures() {
  ProcessFigures f;
  // Fields after the command name, which is in parentheses and may itself hold spaces or ')':
  // state(3) ... utime(14) stime(15) ... starttime(22) vsize(23) rss(24), numbered as proc(5).
  const std::string stat = ReadAll("/proc/self/stat");
  const size_t close = stat.rfind(')');
  if (close != std::string::npos) {
    std::istringstream rest(stat.substr(close + 1));
    std::vector<std::string> fields;
    for (std::string field; rest >> field;) fields.push_back(field);
    // fields[0] is field 3 (state).
    auto at = [&](size_t number) { return std::stod(fields.at(number - 3)); };
    if (fields.size() >= 22) {
      const double ticks = static_cast<double>(::sysconf(_SC_CLK_TCK));
      const double page = static_cast<double>(::sysconf(_SC_PAGESIZE));
      f.cpu_seconds = (at(14) + at(15)) / ticks;
      f.virtual_bytes = at(23);
      f.resident_bytes = at(24) * page;
      if (const std::optional<double> boot = BootTime()) {
        f.start_time_unix_seconds = *boot + at(22) / ticks;
      }
    }
  }
  f.open_fds = OpenFds();
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    f.max_fds = static_cast<double>(limit.rlim_cur);
  }
  return f;
}

std::string RenderProcessMetrics() {
  std::string out = fmt::format(
      "# HELP sinkd_build_info The version and git revision of the sinkd binary; always 1.\n"
      "# TYPE sinkd_build_info gauge\n"
      "sinkd_build_info{{version=\"{}\",revision=\"{}\"}} 1\n",
      kVersion, kBuildId);
  const ProcessFigures f = ReadProcessFigures();
  auto metric = [&out](const char* name, const char* type, const char* help,
                       const std::optional<double>& v) {
    if (!v) return;
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n{} {}\n", name, help, name, type, name,
                       *v);
  };
  metric("process_cpu_seconds_total", "counter",
         "CPU time this process used, user and system, in seconds.", f.cpu_seconds);
  metric("process_resident_memory_bytes", "gauge",
         "Bytes of this process in physical memory (RSS).", f.resident_bytes);
  metric("process_virtual_memory_bytes", "gauge", "Bytes of this process's address space (VSZ).",
         f.virtual_bytes);
  metric("process_open_fds", "gauge", "File descriptors this process has open.", f.open_fds);
  metric("process_max_fds", "gauge", "The soft limit on open file descriptors (RLIMIT_NOFILE).",
         f.max_fds);
  metric("process_start_time_seconds", "gauge", "Unix time at which this process started.",
         f.start_time_unix_seconds);
  return out;
}

}  // namespace sinkd::metrics
