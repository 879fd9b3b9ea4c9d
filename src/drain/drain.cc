#include "drain/drain.h"

#include <algorithm>
#include <span>
#include <thread>

#include "base/duration.h"
#include "contract/reject.h"
#include "drain/message_acks.h"
#include "drain/settle.h"

namespace sinkd::drain {

namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

// The longest a fetch may block: how quickly a signal is noticed.
constexpr milliseconds kMaxFetchWait{1000};
// How often the consumer's pending counts are read for the metrics.

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
  if (max_partitions_per_flush < 1) {
    return Status::Refuse("--max-partitions-per-flush must be at least 1");
  }
  if (ack_wait.count() != 0 && ack_wait < std::chrono::seconds(3)) {
    return Status::Refuse("--ack-wait " + FormatDuration(ack_wait) +
                          ": must be at least 3s (keep-alives go out every third of it)");
  }
  if (max_ack_pending < 0) return Status::Refuse("--max-ack-pending must not be negative");
  if (decode_threads < 1) return Status::Refuse("decode threads must be at least 1");
  if (consumer_check_every <= std::chrono::milliseconds(0)) {
    return Status::Refuse("the consumer check interval must be positive");
  }
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
             RowStore& store, Logger& log, metrics::DrainMetrics* metrics)
    : options_(std::move(options)),
      source_(source),
      dead_letters_(dead_letters),
      store_(store),
      log_(log),
      metrics_(metrics),
      nak_backoff_(options_.nak_backoff),
      fetch_backoff_(options_.fetch_backoff),
      keepalive_every_(std::chrono::duration_cast<milliseconds>(options_.EffectiveAckWait()) / 3),
      decode_pool_(std::make_unique<WorkPool>(std::max<size_t>(1, options_.decode_threads))),
      decoder_(*decode_pool_) {
  for (Batch& b : batches_) b.SetMaxPartitions(options_.max_partitions_per_flush);
}

Status Drain::Run(const std::atomic<bool>& stop) {
  stop_ = &stop;
  keepalive_ = std::make_unique<KeepAlive>(keepalive_every_);
  for (size_t i = 0; i < 2; ++i) {
    auto acks = std::make_unique<MessageAcks>(*keepalive_);
    message_acks_[i] = acks.get();
    batches_[i].SetAcknowledger(std::move(acks));
  }
  settler_ = std::make_unique<Settler>(
      SettleContext{dead_letters_, store_, log_, nak_backoff_, metrics_, options_.stream},
      options_.flush_timeout);
  // Stopped (and emptied) while a flush is stuck, started again once it returned.
  std::optional<Prefetcher> prefetcher;
  while (!stop.load()) {
    const auto now = steady_clock::now();
    CheckConsumer(now);
    if (auto report = settler_->TakeFinished()) {
      Settled(*report);
      continue;
    }
    if (settler_->stuck()) {
      HoldNothing(prefetcher);
      if (auto report = settler_->WaitFor(kMaxFetchWait)) Settled(*report);
      continue;
    }
    if (!prefetcher) prefetcher.emplace(source_, *keepalive_, options_.fetch_max, kMaxFetchWait);
    if (ShouldClose(now)) {
      HandOver();
      continue;
    }
    if (next_fetched_ < fetched_.size()) {
      AddFetched();
      continue;
    }
    FetchOnce(*prefetcher, FetchTimeout(now));
  }
  return Shutdown(prefetcher);
}

// Stop fetching, land what is buffered under the same rules. A failed shutdown flush naks, so
// nothing is lost: the next drain gets those messages after the nak delay. Messages fetched and
// never added to a batch (a fetch that came in after the last take, or ones waiting for the next
// batch) are nak'd, so they are redelivered now rather than after the ack wait.
Status Drain::Shutdown(std::optional<Prefetcher>& prefetcher) {
  log_.Info("stop requested; landing what is held",
            {{"buffered_rows", static_cast<uint64_t>(filling_->rows.rows() + settling_rows_)},
             {"buffered_messages", static_cast<uint64_t>(filling_->held.size())}});
  const uint64_t rows_before = rows_flushed_, naked_before = naked_;
  if (prefetcher) {
    std::vector<jetstream::Message> ahead = prefetcher->Stop();
    NakUntried(ahead);
    prefetcher.reset();
  }
  NakUntried(std::span<jetstream::Message>(fetched_).subspan(next_fetched_));
  fetched_.clear();
  next_fetched_ = 0;
  WaitSettled();
  if (!settler_->stuck() && !filling_->empty()) {
    HandOver();
    WaitSettled();
  }
  if (settler_->stuck()) {
    HoldNothing(prefetcher);
    log_.Error("stopping with a flush abandoned past --flush-timeout still running; every "
               "message was nak'd; waiting a little for it before exiting without it",
               {{"wait_seconds", static_cast<int64_t>(kStuckShutdownWait.count())}});
    const auto until = steady_clock::now() + kStuckShutdownWait;
    while (settler_->stuck() && steady_clock::now() < until) {
      if (auto report = settler_->WaitFor(kMaxFetchWait)) Settled(*report);
    }
  }
  if (metrics_ != nullptr) metrics_->oldest_buffered_unix_ns = 0;
  stop_summary_.rows_flushed = rows_flushed_ - rows_before;
  stop_summary_.messages_held_back = naked_ - naked_before;
  if (settler_->stuck()) {
    return Status::Retry("stopped with a flush still stuck past --flush-timeout (the store or "
                         "mount does not answer); nothing of its batch was acked, every message "
                         "held was nak'd");
  }
  return Status::OK();
}

bool Drain::ShouldClose(steady_clock::time_point now) const {
  if (filling_->empty()) return false;
  return filling_->rows.rows() >= options_.batch_max_rows ||
         filling_->bytes() >= options_.batch_max_bytes || filling_->partitions_full() ||
         now - filling_->first_buffered() >= options_.batch_interval;
}

milliseconds Drain::FetchTimeout(steady_clock::time_point now) const {
  if (filling_->empty()) return kMaxFetchWait;
  const auto left = std::chrono::duration_cast<milliseconds>(
      filling_->first_buffered() + options_.batch_interval - now);
  return std::clamp(left, milliseconds(1), kMaxFetchWait);
}

void Drain::FetchOnce(Prefetcher& prefetcher, milliseconds timeout) {
  fetched_.clear();
  next_fetched_ = 0;
  Status s = prefetcher.Take(timeout, fetched_);
  if (metrics_ != nullptr) metrics_->connected = source_.connected();
  if (!s.ok()) {
    if (metrics_ != nullptr) ++metrics_->fetch_errors;
    const milliseconds pause = fetch_backoff_.Next();
    if (s.IsInternal()) {
      log_.Error("bug: internal error in the drain; fetching again",
                 {{"stage", std::string_view("fetch")},
                  {"error", s.message()},
                  {"retry_in_ms", static_cast<int64_t>(pause.count())},
                  {"report", kReportBug}});
    } else {
      log_.Warn("fetch error",
                {{"error", s.message()}, {"retry_in_ms", static_cast<int64_t>(pause.count())}});
    }
    PauseFor(pause, *stop_);
  } else {
    fetch_backoff_.Reset();
  }
  AddFetched();
}

void Drain::AddFetched() {
  const auto now = steady_clock::now();
  // In runs, so that the pool's scratch holds at most one run's rows and a settle that starts
  // or ends meanwhile is noticed at the next run.
  bool turned_away = false;
  while (next_fetched_ < fetched_.size() && !turned_away) {
    const size_t begin = next_fetched_;
    size_t end = begin, bytes = 0;
    while (end < fetched_.size() && end - begin < ParallelDecoder::kRunMessages &&
           bytes < ParallelDecoder::kRunBytes) {
      bytes += fetched_[end++].data().size();
    }
    // While no batch settles the other threads would idle: the run is shared out.
    decoder_.AddRun(
        end - begin, !settler_->busy(), options_.envelope,
        [&](size_t i) { return fetched_[begin + i].data(); },
        [&](size_t i, ParallelDecoder* decoded, size_t index) {
          turned_away = !Add(fetched_[begin + i], decoded, index, now);
          if (!turned_away) ++next_fetched_;
          return !turned_away;
        });
  }
  if (next_fetched_ == fetched_.size()) {
    fetched_.clear();
    next_fetched_ = 0;
  }
  PublishBuffered();
}

bool Drain::Add(jetstream::Message& m, ParallelDecoder* decoded, size_t decoded_index,
               steady_clock::time_point now) {
  const bool redelivered = m.delivered() > 1;
  const Record record{m.data(), m.subject(), m.stream_sequence()};
  const Added added = decoded != nullptr
                          ? filling_->AddDecoded(record, *decoded, decoded_index, now)
                          : filling_->Add(record, options_.envelope, now);
  if (!added.held) return false;
  message_acks_[filling_ - batches_]->Hold(std::move(m));
  if (metrics_ != nullptr) {
    ++metrics_->messages;
    if (redelivered) ++metrics_->redeliveries;
  }
  return true;
}


void Drain::HandOver() {
  if (settler_->busy()) {
    if (auto report = settler_->WaitFor(kMaxFetchWait)) Settled(*report);
    return;
  }
  Batch& closed = *filling_;
  LogRejects(closed, log_);
  filling_ = filling_ == &batches_[0] ? &batches_[1] : &batches_[0];
  settling_rows_ = closed.rows.rows();
  settling_first_unix_ns_ = closed.first_buffered_unix_ns();
  closed.source_created = source_.stream_created();
  PublishBuffered();
  settler_->Start(closed);
}

void Drain::WaitSettled() {
  while (settler_->busy() && !settler_->stuck()) {
    if (auto report = settler_->WaitFor(kMaxFetchWait)) Settled(*report);
  }
  if (auto report = settler_->TakeFinished()) Settled(*report);
}

void Drain::Settled(const SettleReport& report) {
  naked_ += report.naked;
  if (report.late) {
    // The abandoned batch's messages were nak'd when it was abandoned; its flush's outcome
    // changes nothing of that, and the sink is free again.
    log_.Warn("the flush abandoned past --flush-timeout returned; nothing of its batch was acked "
              "(it was nak'd); fetching again",
              {{"flush_ok", report.status.ok()}, {"error", report.status.message()}});
    return;
  }
  if (report.status.ok()) rows_flushed_ += report.flushed.rows;
  settling_rows_ = 0;
  settling_first_unix_ns_ = 0;
  PublishBuffered();
  last_check_ = {};  // refresh the pending counts and the ack floor now that they changed
  // An abandoned flush pauses nothing: HoldNothing stops fetching until it returns.
  if (!report.status.ok() && !report.abandoned) PauseFor(report.nak_delay, *stop_);
}

// While the flush is stuck nothing can be written (the Sink is one thread at a time, and that
// thread is in it), so whatever this drain held would only be kept alive here, away from every
// other drain, for as long as the store hangs.
void Drain::HoldNothing(std::optional<Prefetcher>& prefetcher) {
  size_t naked = fetched_.size() - next_fetched_ + filling_->messages();
  if (prefetcher) {
    std::vector<jetstream::Message> ahead = prefetcher->Stop();
    naked += ahead.size();
    NakUntried(ahead);
    prefetcher.reset();
  }
  NakUntried(std::span<jetstream::Message>(fetched_).subspan(next_fetched_));
  fetched_.clear();
  next_fetched_ = 0;
  for (size_t i = 0; i < filling_->messages(); ++i) {
    const bool nak_sent = filling_->acks().Nak(i, milliseconds(0)).ok();
    ++naked_;
    if (metrics_ != nullptr) ++(nak_sent ? metrics_->naks : metrics_->ack_failures);
  }
  filling_->Clear();
  PublishBuffered();
  if (naked > 0) {
    log_.Warn("a flush is stuck past --flush-timeout: nak'd every message held and stopped "
              "fetching until it returns",
              {{"naked", static_cast<uint64_t>(naked)}});
  }
}

void Drain::NakUntried(std::span<jetstream::Message> messages) {
  for (jetstream::Message& m : messages) {
    keepalive_->Release(m);
    const bool naked = m.Nak(std::chrono::milliseconds(0)).ok();
    ++naked_;
    if (metrics_ != nullptr) ++(naked ? metrics_->naks : metrics_->ack_failures);
  }
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

void Drain::CheckConsumer(steady_clock::time_point now) {
  if (now - last_check_ < options_.consumer_check_every) return;
  last_check_ = now;
  ReadDeadStream();
  auto state = source_.State();
  if (state.ok()) {
    ack_floor_ = state->ack_floor_stream;
    if (durable_missing_) {
      log_.Info("durable consumer is back", {{"durable", source_.config().durable}});
      durable_missing_ = false;
    }
    if (metrics_ != nullptr) {
      metrics_->consumer_bound = true;
      metrics_->consumer_pending = static_cast<int64_t>(state->pending);
      metrics_->consumer_ack_pending = state->ack_pending;
    }
    return;
  }
  if (!state.status().IsNotFound()) return;  // the connection: asked again next time
  // Past the floor: everything at or below it is acked, so in the lake. 0: all of the stream.
  const uint64_t start = ack_floor_ == 0 ? 0 : ack_floor_ + 1;
  const Status made = source_.Recreate(start);
  if (made.ok()) {
    log_.Warn("durable consumer was gone; re-created it with this drain's settings",
              {{"durable", source_.config().durable},
               {"stream", source_.config().stream},
               {"start_sequence", start}});
    durable_missing_ = false;
    last_check_ = {};  // read its counts at once
    if (metrics_ != nullptr) metrics_->consumer_bound = true;
    return;
  }
  if (!durable_missing_) {
    log_.Error("durable consumer is gone and cannot be re-created; not ready until it can",
               {{"durable", source_.config().durable},
                {"stream", source_.config().stream},
                {"error", made.message()}});
    durable_missing_ = true;
  }
  if (metrics_ != nullptr) metrics_->consumer_bound = false;
}

void Drain::ReadDeadStream() {
  if (metrics_ == nullptr) return;
  auto state = dead_letters_.State();
  if (!state.ok()) return;  // the gauges keep the last reading; a failed write says more
  metrics_->dead_stream_messages = static_cast<int64_t>(state->messages);
  metrics_->dead_stream_bytes = static_cast<int64_t>(state->bytes);
  // The server reports -1 (or 0 when it was sent 0) for no limit.
  metrics_->dead_stream_max_messages = state->config.max_msgs > 0 ? state->config.max_msgs : -1;
  metrics_->dead_stream_max_bytes = state->config.max_bytes > 0 ? state->config.max_bytes : -1;
}

void Drain::PauseFor(milliseconds delay, const std::atomic<bool>& stop) {
  const auto until = steady_clock::now() + delay;
  while (!stop.load() && steady_clock::now() < until) {
    std::this_thread::sleep_for(std::min(milliseconds(50), delay));
  }
}

}  // namespace sinkd::drain
