// DrainMetrics is what a running drain tells an operator, as Prometheus text: counters of messages,
// rows, bytes, dead letters (by reason), naks and redeliveries; histograms of flush duration and
// rows per flush; gauges of the consumer's pending and ack-pending counts, GARM_SINK_DEAD's
// messages and bytes with their limits (how close it is to refusing dead letters), the age of the oldest
// buffered row and the time of the last successful flush; whether a flush abandoned past
// --flush-timeout is still running; and the readiness facts /readyz reports (connected, consumer
// bound, destination reachable, flushes in time: false from an abandoned flush until a flush
// succeeds again).
// Ownership: plain atomics, owned by whoever runs the drain; the HTTP listener borrows it.
// Threads: safe for concurrent use because every field is an atomic (the drain writes, the
// listener reads); a scrape may see one flush half-counted, never a torn value.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string>

namespace sinkd::metrics {

// A fixed-bucket histogram, cumulative on render as Prometheus wants.
template <size_t N>
struct Histogram {
  std::array<double, N> bounds;  // upper bounds, increasing; +Inf is implicit
  std::array<std::atomic<uint64_t>, N + 1> counts{};
  std::atomic<uint64_t> count{0};
  std::atomic<double> sum{0};

  void Observe(double v) {
    size_t i = 0;
    while (i < N && v > bounds[i]) ++i;
    counts[i].fetch_add(1);
    count.fetch_add(1);
    double old = sum.load();
    while (!sum.compare_exchange_weak(old, old + v)) {
    }
  }
};

struct DrainMetrics {
  std::string origin;  // label origin="ledger"|"audit"

  std::atomic<uint64_t> messages{0};         // fetched
  std::atomic<uint64_t> rows_flushed{0};     // rows made durable
  std::atomic<uint64_t> bytes_flushed{0};    // Parquet bytes made durable
  std::atomic<uint64_t> flushes{0};          // successful flushes
  std::atomic<uint64_t> flush_failures{0};   // flushes that ended in a nak
  std::atomic<uint64_t> dead_unmarshal{0};   // dead letters newly stored, by reason
  std::atomic<uint64_t> dead_missing_event_id{0};
  std::atomic<uint64_t> dead_missing_time{0};
  std::atomic<uint64_t> dead_too_many_partitions{0};
  std::atomic<uint64_t> flushes_abandoned{0};  // flushes that ran past --flush-timeout
  std::atomic<uint64_t> naks{0};             // messages nak'd
  std::atomic<uint64_t> redeliveries{0};     // messages delivered more than once
  std::atomic<uint64_t> ack_failures{0};     // acks or terms the client could not send
  std::atomic<uint64_t> fetch_errors{0};

  std::atomic<int64_t> consumer_pending{0};
  std::atomic<int64_t> consumer_ack_pending{0};
  std::atomic<int64_t> oldest_buffered_unix_ns{0};  // 0 when no batch holds a row
  std::atomic<int64_t> last_flush_unix_ns{0};       // 0 before the first successful flush
  std::atomic<int64_t> buffered_rows{0};
  // GARM_SINK_DEAD as last read (every consumer check); a limit of -1 is none, or not read yet.
  std::atomic<int64_t> dead_stream_messages{0};
  std::atomic<int64_t> dead_stream_bytes{0};
  std::atomic<int64_t> dead_stream_max_messages{-1};
  std::atomic<int64_t> dead_stream_max_bytes{-1};

  std::atomic<bool> connected{false};
  std::atomic<bool> consumer_bound{false};
  std::atomic<bool> destination_reachable{false};
  std::atomic<bool> flush_in_time{true};  // false from an abandoned flush to the next success
  std::atomic<bool> flush_stuck{false};   // a thread is still inside an abandoned flush

  // Up to --flush-timeout's default (5 min) and twice it: a flush of minutes that still ended in
  // time lands in a bucket that says how close it came, not in +Inf with all over a minute.
  Histogram<13> flush_seconds{{0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 60, 120, 300, 600}};
  Histogram<8> flush_rows{{1, 10, 100, 1000, 10000, 50000, 100000, 250000}};

  bool ready() const {
    return connected && consumer_bound && destination_reachable && flush_in_time;
  }
  // The Prometheus text exposition (version 0.0.4) of every metric; `now_unix_ns` dates the
  // oldest-buffered-row age.
  std::string Render(int64_t now_unix_ns) const;
  // "connected=true consumer_bound=true destination_reachable=false flush_in_time=true".
  std::string Readiness() const;
};

}  // namespace sinkd::metrics
