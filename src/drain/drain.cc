#include "drain/drain.h"

#include <algorithm>
#include <span>
#include <thread>

#include "base/duration.h"
#include "drain/settle.h"

namespace sinkd::drain {

namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

// The longest a fetch may block: how quickly a signal is noticed.
constexpr milliseconds kMaxFetchWait{1000};
// How often the consumer's pending counts are read for the metrics.
constexpr std::chrono::seconds kGaugeEvery{5};

}  // namespace

Status DrainOptions::Validate() const {
  if (batch_max_rows < 1) return Status::Refuse("--batch-max-rows must be at least 1");
  SINKD_RETURN_IF_ERROR(row::CheckBatchMaxBytes("--batch-max-bytes", batch_max_bytes));
  if (batch_interval <= std::chrono::nanoseconds(0)) {
    return Status::Refuse("--batch-interval must be positive");
  }
  if (fetch_max < 1) return Status::Refuse("--fetch-max must be at least 1");
  if (flush_timeout <= std::chrono::nanoseconds(0)) {
    return Status::Refuse("--flush-timeout must be positive");
  }
  if (ack_wait.count() != 0 && ack_wait < std::chrono::seconds(3)) {
    return Status::Refuse("--ack-wait " + FormatDuration(ack_wait) +
                          ": must be at least 3s (keep-alives go out every third of it)");
  }
  if (max_ack_pending < 0) return Status::Refuse("--max-ack-pending must not be negative");
  if (decode_threads < 1) return Status::Refuse("decode threads must be at least 1");
  SINKD_RETURN_IF_ERROR(nak_backoff.Validate("nak back-off"));
  return fetch_backoff.Validate("fetch back-off");
}

std::chrono::nanoseconds DrainOptions::EffectiveAckWait() const {
  return ack_wait.count() != 0 ? ack_wait : batch_interval + flush_timeout + std::chrono::minutes(1);
}

int64_t DrainOptions::EffectiveMaxAckPending() const {
  if (max_ack_pending != 0) return max_ack_pending;
  return 2 * (static_cast<int64_t>(batch_max_rows) + fetch_max);
}

Drain::Drain(DrainOptions options, jetstream::PullConsumer& source, DeadLetters& dead_letters,
             Sink& sink, Logger& log, metrics::DrainMetrics* metrics)
    : options_(std::move(options)),
      source_(source),
      dead_letters_(dead_letters),
      sink_(sink),
      log_(log),
      metrics_(metrics),
      nak_backoff_(options_.nak_backoff),
      fetch_backoff_(options_.fetch_backoff),
      keepalive_every_(std::chrono::duration_cast<milliseconds>(options_.EffectiveAckWait()) / 3),
      decode_pool_(std::make_unique<WorkPool>(std::max<size_t>(1, options_.decode_threads))),
      decoder_(*decode_pool_) {}

Status Drain::Run(const std::atomic<bool>& stop) {
  stop_ = &stop;
  // Declared first, so it outlives the Settler and the Prefetcher (whose leftovers it releases).
  KeepAlive keepalive(keepalive_every_);
  Settler settler(SettleContext{dead_letters_, sink_, log_, nak_backoff_, keepalive, metrics_,
                                options_.stream});
  Prefetcher prefetcher(source_, keepalive, options_.fetch_max, kMaxFetchWait);
  while (!stop.load()) {
    const auto now = steady_clock::now();
    RefreshConsumerGauges(now);
    if (auto report = settler.TakeFinished()) {
      Settled(*report);
      continue;
    }
    if (ShouldClose(now)) {
      HandOver(settler);
      continue;
    }
    FetchOnce(prefetcher, FetchTimeout(now), settler);
  }
  // Stop fetching, land what is buffered under the same rules. A failed shutdown flush naks, so
  // nothing is lost: the next drain gets those messages after the nak delay. A fetch that came
  // in after the last take was never buffered: nak it, so it is redelivered now rather than
  // after the ack wait.
  for (jetstream::Message& m : prefetcher.Stop()) {
    keepalive.Release(m);
    const bool naked = m.Nak(std::chrono::milliseconds(0)).ok();
    if (metrics_ != nullptr) ++(naked ? metrics_->naks : metrics_->ack_failures);
  }
  if (!filling_->empty()) HandOver(settler);
  if (auto report = settler.WaitIdle()) Settled(*report);
  if (metrics_ != nullptr) metrics_->oldest_buffered_unix_ns = 0;
  return Status::OK();
}

bool Drain::ShouldClose(steady_clock::time_point now) const {
  if (filling_->empty()) return false;
  return filling_->rows.rows() >= options_.batch_max_rows ||
         filling_->bytes() >= options_.batch_max_bytes ||
         now - filling_->first_buffered() >= options_.batch_interval;
}

milliseconds Drain::FetchTimeout(steady_clock::time_point now) const {
  if (filling_->empty()) return kMaxFetchWait;
  const auto left = std::chrono::duration_cast<milliseconds>(
      filling_->first_buffered() + options_.batch_interval - now);
  return std::clamp(left, milliseconds(1), kMaxFetchWait);
}

void Drain::FetchOnce(Prefetcher& prefetcher, milliseconds timeout, const Settler& settler) {
  fetched_.clear();
  Status s = prefetcher.Take(timeout, fetched_);
  if (metrics_ != nullptr) metrics_->connected = source_.connected();
  if (!s.ok()) {
    if (metrics_ != nullptr) ++metrics_->fetch_errors;
    const milliseconds pause = fetch_backoff_.Next();
    if (s.IsInternal()) {
      log_.Error("bug: internal error in the drain; fetching again",
                 {{"stage", std::string_view("fetch")},
                  {"err", s.message()},
                  {"retry_in_ms", static_cast<int64_t>(pause.count())},
                  {"report", kReportBug}});
    } else {
      log_.Warn("fetch error",
                {{"err", s.message()}, {"retry_in_ms", static_cast<int64_t>(pause.count())}});
    }
    PauseFor(pause, *stop_);
  } else {
    fetch_backoff_.Reset();
  }
  const auto now = steady_clock::now();
  // In runs, so that the pool's scratch holds at most one run's rows and a settle that starts
  // or ends meanwhile is noticed at the next run.
  for (size_t begin = 0; begin < fetched_.size();) {
    size_t end = begin, bytes = 0;
    while (end < fetched_.size() && end - begin < ParallelDecoder::kRunMessages &&
           bytes < ParallelDecoder::kRunBytes) {
      bytes += fetched_[end++].data().size();
    }
    // While no batch settles the other threads would idle: the run is shared out.
    decoder_.AddRun(
        end - begin, !settler.busy(), options_.envelope,
        [&](size_t i) { return fetched_[begin + i].data(); },
        [&](size_t i, ParallelDecoder* decoded, size_t index) {
          Add(fetched_[begin + i], decoded, index, now);
          return true;
        });
    begin = end;
  }
  PublishBuffered();
}

void Drain::Add(jetstream::Message& m, ParallelDecoder* decoded, size_t decoded_index,
               steady_clock::time_point now) {
  if (metrics_ != nullptr) {
    ++metrics_->messages;
    if (m.delivered() > 1) ++metrics_->retries;
  }
  const std::span<const HeldReject> rejects =
      decoded != nullptr ? filling_->AddDecoded(std::move(m), *decoded, decoded_index, now)
                         : filling_->Add(std::move(m), options_.envelope, now);
  // The subject is read only for a reject's line: a copy per message is an allocation per event
  // on the audit stream.
  for (const HeldReject& r : rejects) {
    const jetstream::Message& held = filling_->held[r.message].message;
    log_.Error("unreadable record; dead-lettering", {{"subject", held.subject()},
                                                     {"seq", held.stream_sequence()},
                                                     {"reject", r.reject.ToString()}});
  }
}

void Drain::HandOver(Settler& settler) {
  if (auto report = settler.WaitIdle()) Settled(*report);
  Batch& closed = *filling_;
  filling_ = filling_ == &batches_[0] ? &batches_[1] : &batches_[0];
  settling_rows_ = closed.rows.rows();
  settling_first_unix_ns_ = closed.first_buffered_unix_ns();
  PublishBuffered();
  settler.Start(closed);
}

void Drain::Settled(const SettleReport& report) {
  settling_rows_ = 0;
  settling_first_unix_ns_ = 0;
  PublishBuffered();
  last_gauges_ = {};  // refresh the pending counts now that they changed
  if (!report.status.ok()) PauseFor(report.nak_delay, *stop_);
}

// Held means not yet acked: the settling batch counts until its report is taken, and its first
// message is the oldest (it closed before the filling batch got its first).
void Drain::PublishBuffered() {
  if (metrics_ == nullptr) return;
  metrics_->buffered_rows = static_cast<int64_t>(filling_->rows.rows() + settling_rows_);
  metrics_->oldest_buffered_unix_ns =
      settling_first_unix_ns_ != 0 ? settling_first_unix_ns_
      : filling_->empty()          ? 0
                                   : filling_->first_buffered_unix_ns();
}

void Drain::RefreshConsumerGauges(steady_clock::time_point now) {
  if (metrics_ == nullptr || now - last_gauges_ < kGaugeEvery) return;
  last_gauges_ = now;
  auto state = source_.State();
  if (!state.ok()) return;
  metrics_->consumer_pending = static_cast<int64_t>(state->pending);
  metrics_->consumer_ack_pending = state->ack_pending;
}

void Drain::PauseFor(milliseconds delay, const std::atomic<bool>& stop) {
  const auto until = steady_clock::now() + delay;
  while (!stop.load() && steady_clock::now() < until) {
    std::this_thread::sleep_for(std::min(milliseconds(50), delay));
  }
}

}  // namespace sinkd::drain
