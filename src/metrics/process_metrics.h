// What every /metrics page carries besides its command's own figures: sinkd_build_info (which
// binary answers: version and git revision, value 1) and the process_* metrics Prometheus client
// libraries export under the same names (CPU seconds, resident and virtual memory, open and
// maximum file descriptors, start time), so the dashboards and alerts written for any other
// exporter work on sinkd too. The process figures are read from /proc/self at each render.
// Threads: safe for concurrent use (it reads the kernel's files and holds no state).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace sinkd::metrics {

// One reading of /proc/self. A figure the kernel did not give is left out of the page rather
// than reported as 0 (0 open descriptors would be a lie an alert could fire on).
struct ProcessFigures {
  std::optional<double> cpu_seconds;             // user + system, since start
  std::optional<double> resident_bytes;
  std::optional<double> virtual_bytes;
  std::optional<double> open_fds;
  std::optional<double> max_fds;                 // the soft limit (what open() runs into)
  std::optional<double> start_time_unix_seconds;
};

ProcessFigures ReadProcessFigures();

// The Prometheus text (version 0.0.4) of sinkd_build_info and the process_* metrics.
std::string RenderProcessMetrics();

}  // namespace sinkd::metrics
