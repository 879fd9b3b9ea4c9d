// CompactMetrics is what `sinkd compact --follow` tells an operator, as Prometheus text (the names
// of design §5, every one labelled table="ledger"|…): passes and failed passes, partitions a
// failure skipped, outputs written, inputs deleted after their grace, rows in and out, duplicates
// dropped and bytes written (all counters); the partitions left to merge after the last pass (the backlog) and the time of the
// last successful pass (gauges). Ready (/readyz) once the destination answered.
// A one-shot pass (the hourly timer) has no page to be scraped from: it writes the same text as a
// node_exporter textfile-collector file after the pass (WriteTextfile), carrying the counters of
// the passes before it forward from the file it replaces (Restore), so that they only grow.
// Ownership: plain atomics, owned by the command; the HTTP listener borrows it.
// Threads: safe for concurrent use (the pass writes, the listener reads); a scrape may see one
// pass half-counted, never a torn value.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

namespace sinkd::metrics {

struct CompactMetrics {
  std::string table;  // label table="ledger"|"audit"|"outbox_events"|"outbox_audit"

  std::atomic<uint64_t> passes{0};         // passes that ended OK
  std::atomic<uint64_t> pass_failures{0};  // passes that failed or refused a Part
  std::atomic<uint64_t> partitions_failed{0};  // partitions a failed delete or merge skipped
  std::atomic<uint64_t> outputs{0};
  std::atomic<uint64_t> inputs_deleted{0};
  std::atomic<uint64_t> rows_in{0};
  std::atomic<uint64_t> rows_out{0};
  std::atomic<uint64_t> duplicates_dropped{0};
  std::atomic<uint64_t> bytes_written{0};
  std::atomic<int64_t> partitions_pending{0};
  std::atomic<int64_t> last_pass_success_unix_ns{0};  // 0 before the first successful pass

  std::atomic<bool> destination_reachable{false};

  bool ready() const { return destination_reachable; }
  // The Prometheus text exposition (version 0.0.4) of every metric.
  std::string Render() const;
  // "destination_reachable=true".
  std::string Readiness() const;
  // Takes every figure of this table from `previous`, a text Render() wrote (other tables' lines
  // and anything unparseable are ignored), so that the counters of one-shot passes accumulate
  // across runs and a failed pass keeps the last success's time. Call before any pass counts.
  void Restore(std::string_view previous);
};

}  // namespace sinkd::metrics
