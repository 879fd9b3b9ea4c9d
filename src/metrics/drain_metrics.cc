#include "metrics/drain_metrics.h"

#include <fmt/format.h>

namespace sinkd::metrics {

namespace {

class Writer {
 public:
  explicit Writer(const std::string& origin) : label_("origin=\"" + origin + "\"") {}

  void Head(const char* name, const char* type, const char* help) {
    out_ += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
  }
  void Value(const char* name, double v, const std::string& extra = "") {
    out_ += fmt::format("{}{{{}{}}} {}\n", name, label_, extra, v);
  }
  void Metric(const char* name, const char* type, const char* help, double v) {
    Head(name, type, help);
    Value(name, v);
  }
  template <size_t N>
  void Hist(const char* name, const char* help, const Histogram<N>& h) {
    Head(name, "histogram", help);
    uint64_t cumulative = 0;
    for (size_t i = 0; i <= N; ++i) {
      cumulative += h.counts[i].load();
      const std::string le = i < N ? fmt::format("{}", h.bounds[i]) : "+Inf";
      out_ += fmt::format("{}_bucket{{{},le=\"{}\"}} {}\n", name, label_, le, cumulative);
    }
    out_ += fmt::format("{}_sum{{{}}} {}\n", name, label_, h.sum.load());
    out_ += fmt::format("{}_count{{{}}} {}\n", name, label_, h.count.load());
  }
  std::string& out() { return out_; }

 private:
  std::string label_;
  std::string out_;
};

double D(const std::atomic<uint64_t>& v) { return static_cast<double>(v.load()); }
double D(const std::atomic<int64_t>& v) { return static_cast<double>(v.load()); }

}  // namespace

std::string DrainMetrics::Render(int64_t now_unix_ns) const {
  Writer w(origin);
  w.Metric("sinkd_messages_total", "counter", "Messages fetched from the stream.", D(messages));
  w.Metric("sinkd_rows_flushed_total", "counter", "Rows written durably to the lake.",
           D(rows_flushed));
  w.Metric("sinkd_bytes_flushed_total", "counter", "Parquet bytes written durably to the lake.",
           D(bytes_flushed));
  w.Metric("sinkd_flushes_total", "counter", "Batches flushed and acknowledged.", D(flushes));
  w.Metric("sinkd_flush_failures_total", "counter",
           "Batches whose flush or dead-letter write failed and were nak'd.", D(flush_failures));
  w.Metric("sinkd_flushes_abandoned_total", "counter",
           "Flushes abandoned past --flush-timeout (their batches nak'd).", D(flushes_abandoned));
  w.Metric("sinkd_flush_stuck", "gauge",
           "1 while an abandoned flush has not returned: the drain holds and fetches nothing.",
           flush_stuck.load() ? 1 : 0);
  w.Hist("sinkd_flush_duration_seconds", "Time to write one batch durably.", flush_seconds);
  w.Hist("sinkd_flush_rows", "Rows in one flushed batch.", flush_rows);
  w.Head("sinkd_dead_letters_total", "counter",
         "Records stored on GARM_SINK_DEAD, by reason.");
  w.Value("sinkd_dead_letters_total", D(dead_unmarshal), ",reason=\"unmarshal\"");
  w.Value("sinkd_dead_letters_total", D(dead_missing_event_id), ",reason=\"missing_event_id\"");
  w.Value("sinkd_dead_letters_total", D(dead_missing_time), ",reason=\"missing_time\"");
  w.Value("sinkd_dead_letters_total", D(dead_too_many_partitions),
          ",reason=\"too_many_partitions\"");
  w.Metric("sinkd_naks_total", "counter", "Messages negatively acknowledged for redelivery.",
           D(naks));
  w.Metric("sinkd_redeliveries_total", "counter",
           "Messages delivered more than once (redeliveries after a nak or an ack wait).",
           D(redeliveries));
  w.Metric("sinkd_ack_failures_total", "counter", "Acks and terms the client failed to send.",
           D(ack_failures));
  w.Metric("sinkd_fetch_errors_total", "counter", "Fetches that failed.", D(fetch_errors));
  w.Metric("sinkd_consumer_pending", "gauge", "Messages on the stream not yet delivered.",
           D(consumer_pending));
  w.Metric("sinkd_consumer_ack_pending", "gauge",
           "Messages delivered to the durable and not yet acknowledged.", D(consumer_ack_pending));
  // Both gauges and their limits rather than a ratio: the alert divides, and a dashboard shows
  // how much room is left in bytes.
  w.Metric("sinkd_dead_stream_messages", "gauge", "Messages GARM_SINK_DEAD holds.",
           D(dead_stream_messages));
  w.Metric("sinkd_dead_stream_bytes", "gauge", "Bytes GARM_SINK_DEAD holds.", D(dead_stream_bytes));
  w.Metric("sinkd_dead_stream_max_messages", "gauge",
           "GARM_SINK_DEAD's max_msgs; -1 when unlimited or not read yet.",
           D(dead_stream_max_messages));
  w.Metric("sinkd_dead_stream_max_bytes", "gauge",
           "GARM_SINK_DEAD's max_bytes (full: dead letters refused, batches nak'd); -1 when "
           "unlimited or not read yet.",
           D(dead_stream_max_bytes));
  w.Metric("sinkd_buffered_rows", "gauge", "Rows held unacked in the batch being built and the one settling.",
           D(buffered_rows));
  const int64_t oldest = oldest_buffered_unix_ns.load();
  w.Metric("sinkd_oldest_buffered_row_age_seconds", "gauge",
           "Age of the oldest buffered message's row; 0 when nothing is buffered.",
           oldest == 0 ? 0.0 : static_cast<double>(now_unix_ns - oldest) / 1e9);
  w.Metric("sinkd_last_flush_timestamp_seconds", "gauge",
           "Unix time of the last successful flush; 0 before the first.",
           static_cast<double>(last_flush_unix_ns.load()) / 1e9);
  w.Metric("sinkd_up", "gauge",
           "1 when connected, bound, the destination is reachable and no flush was abandoned "
           "since the last one that succeeded.",
           ready() ? 1 : 0);
  return std::move(w.out());
}

std::string DrainMetrics::Readiness() const {
  auto b = [](bool v) { return v ? "true" : "false"; };
  return fmt::format("connected={} consumer_bound={} destination_reachable={} flush_in_time={}",
                     b(connected), b(consumer_bound), b(destination_reachable), b(flush_in_time));
}

}  // namespace sinkd::metrics
