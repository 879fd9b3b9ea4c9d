#include "metrics/compact_metrics.h"

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

std::string CompactMetrics::Readiness() const {
  return std::string("destination_reachable=") + (destination_reachable ? "true" : "false");
}

}  // namespace sinkd::metrics
