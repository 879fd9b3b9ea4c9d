#include "metrics/compact_metrics.h"

#include <cstdlib>
#include <initializer_list>
#include <optional>
#include <utility>

#include <fmt/format.h>

namespace sinkd::metrics {

std::string CompactMetrics::Render() const {
  std::string out;
  const std::string label = "table=\"" + table + "\"";
  auto metric = [&](const char* name, const char* type, const char* help, double v) {
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n{}{{{}}} {}\n", name, help, name, type, name,
                       label, v);
  };
  auto d = [](const auto& atomic) { return static_cast<double>(atomic.load()); };
  metric("sinkd_compact_passes_total", "counter", "Compaction passes that ended without an error.",
         d(passes));
  metric("sinkd_compact_pass_failures_total", "counter",
         "Compaction passes that failed, or refused a Part they could not read.", d(pass_failures));
  metric("sinkd_compact_partitions_failed_total", "counter",
         "Partitions a pass skipped because a delete or a merge in them failed.",
         d(partitions_failed));
  metric("sinkd_compact_outputs_total", "counter", "Compacted Parts written.", d(outputs));
  metric("sinkd_compact_inputs_deleted_total", "counter",
         "Parts deleted once an output superseding them was older than the grace.",
         d(inputs_deleted));
  metric("sinkd_compact_rows_in_total", "counter", "Rows read by merges.", d(rows_in));
  metric("sinkd_compact_rows_out_total", "counter", "Rows written by merges.", d(rows_out));
  metric("sinkd_compact_duplicates_dropped_total", "counter",
         "Rows dropped by merges as copies of a row kept (the same event_id; outbox tables: "
         "the same position).",
         d(duplicates_dropped));
  metric("sinkd_compact_bytes_written_total", "counter",
         "Parquet bytes of compacted Parts written.", d(bytes_written));
  metric("sinkd_compact_partitions_pending", "gauge",
         "Partitions the policy would still merge after the last pass (the backlog).",
         d(partitions_pending));
  const int64_t last = last_pass_success_unix_ns.load();
  metric("sinkd_compact_last_pass_success_timestamp_seconds", "gauge",
         "Unix time of the last successful compaction pass; 0 before the first.",
         static_cast<double>(last) / 1e9);
  return out;
}

void CompactMetrics::Restore(std::string_view previous) {
  const std::string suffix = "{table=\"" + table + "\"} ";
  auto value_of = [&](std::string_view name) -> std::optional<double> {
    const std::string head = std::string(name) + suffix;
    for (size_t at = 0; at < previous.size();) {
      size_t end = previous.find('\n', at);
      if (end == std::string_view::npos) end = previous.size();
      const std::string_view line = previous.substr(at, end - at);
      at = end + 1;
      if (line.substr(0, head.size()) != head) continue;
      const std::string number(line.substr(head.size()));
      char* parsed_to = nullptr;
      const double v = std::strtod(number.c_str(), &parsed_to);
      if (parsed_to == number.c_str() || *parsed_to != '\0' || !(v >= 0)) return std::nullopt;
      return v;
    }
    return std::nullopt;
  };
  for (auto& [name, counter] : std::initializer_list<std::pair<const char*, std::atomic<uint64_t>*>>{
           {"sinkd_compact_passes_total", &passes},
           {"sinkd_compact_pass_failures_total", &pass_failures},
           {"sinkd_compact_partitions_failed_total", &partitions_failed},
           {"sinkd_compact_outputs_total", &outputs},
           {"sinkd_compact_inputs_deleted_total", &inputs_deleted},
           {"sinkd_compact_rows_in_total", &rows_in},
           {"sinkd_compact_rows_out_total", &rows_out},
           {"sinkd_compact_duplicates_dropped_total", &duplicates_dropped},
           {"sinkd_compact_bytes_written_total", &bytes_written}}) {
    if (auto v = value_of(name)) counter->store(static_cast<uint64_t>(*v));
  }
  if (auto v = value_of("sinkd_compact_partitions_pending")) {
    partitions_pending.store(static_cast<int64_t>(*v));
  }
  if (auto v = value_of("sinkd_compact_last_pass_success_timestamp_seconds")) {
    last_pass_success_unix_ns.store(static_cast<int64_t>(*v * 1e9));
  }
}

std::string CompactMetrics::Readiness() const {
  return std::string("destination_reachable=") + (destination_reachable ? "true" : "false");
}

}  // namespace sinkd::metrics
