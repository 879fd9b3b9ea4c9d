// Drain moves one stream into the lake: it fetches from a durable pull consumer, decodes each
// message into rows and rejects, and hands closed batches to the Settler (drain/settler.h), which
// runs Settle (drain/settle.h), the only code that acks. Invariant: a message is acked only after
// its rows are durable, terminated only after its dead letters are stored, and nak'd (with a
// growing delay) otherwise; never acked because it was hard to read.
// A batch closes at batch_max_rows ROWS, at batch_max_bytes held, batch_interval after its
// FIRST message was buffered (not after the last flush: an idle stream must not flush a lone
// message the moment it arrives, nor hold one longer than the interval), or at
// max_partitions_per_flush partitions; a message that would take it past that waits, fetched,
// for the next batch (drain/batch.h: only a message spanning more partitions alone loses events,
// each to a dead letter of its own).
// Ownership: borrows the consumer, the row and dead-letter stores, logger and metrics (all must outlive Run).
// Keep-alives: every message Run holds unacked (fetched ahead, buffered, settling) is kept alive
// by one KeepAlive (drain/keep_alive.h) from its delivery until it is settled.
// Pipeline: Run decodes batch N+1 while batch N settles (is flushed to the lake and acknowledged)
// on the Settler's thread. At most one batch settles at a time: a batch that closes while the
// previous one still settles waits for it (and fetching waits with it), so the drain holds at most
// two batches, one filling and one settling, plus one prefetched fetch. Batches settle in the
// order they closed, each acked only once its own Parts are durable; a failed one is nak'd whole
// and, as before, fetching pauses for its nak delay.
// A stuck flush: one still running flush_timeout after it started is abandoned (drain/settler.h:
// its batch is nak'd at once and nothing of it is ever acked), and until it returns the drain
// holds nothing and fetches nothing: it naks the batch it was filling and what was fetched ahead,
// so every message it had goes to another drain after the nak delay rather than staying kept
// alive here for as long as the store hangs; memory is the stuck batch alone. Readiness
// (metrics flush_in_time) stays false until a flush succeeds again. A thread inside a hung write
// cannot be interrupted, so on stop Run waits kStuckShutdownWait for it and then returns Retry with
// flush_stuck() true, leaving that thread in the flush: the caller must then neither destroy the
// Drain nor its RowStore (sinkd drain exits the process instead, as a second SIGTERM does).
// A lost durable: one deleted under the running drain (fetches from it only time out) is found
// by the next consumer check and made again with the drain's settings, delivering from past the
// last ack floor the drain saw (everything at or below it is in the lake; messages acked since
// come again, as duplicates); while it cannot be made (the stream is gone too) the drain is not
// ready (metrics consumer_bound) and says so once, naming the durable, until it can.
// Threads: one thread at a time; `stop` may be set from any thread or a signal handler. Run
// fetches on a second thread of its own (drain/prefetcher.h), so the next fetch overlaps the
// decode of this one, settles on a third (drain/settler.h) and sends InProgress acks on a fourth
// (the KeepAlive). While no batch settles, each run of a fetch's messages (ParallelDecoder's
// kRunMessages or kRunBytes) is decoded on a pool of
// decode_threads (Run's thread and decode_threads - 1 workers), so the cores the settle would use
// are not left idle; while one settles, Run decodes them alone, straight into the batch, since
// the settle's encode has the other cores and moving rows out of a pool's scratch costs ~8% more
// CPU than decoding in place.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/backoff.h"
#include "base/log.h"
#include "base/status.h"
#include "base/work_pool.h"
#include "partition/partition_cap.h"
#include "contract/reject.h"
#include "drain/batch.h"
#include "drain/keep_alive.h"
#include "drain/message_acks.h"
#include "drain/parallel_decoder.h"
#include "drain/prefetcher.h"
#include "drain/settler.h"
#include "drain/row_store.h"
#include "jetstream/pull_consumer.h"
#include "metrics/drain_metrics.h"
#include "row/row_buffer.h"

namespace sinkd::drain {

struct DrainOptions {
  std::string origin = "ledger";             // ledger | audit: log context, dead-letter subject
  contract::Envelope envelope = contract::Envelope::kBatch;
  std::string stream = "GARM_LEDGER";
  // Rows per batch. 250,000 rows make Parquet files worth querying (below ~100k a file is mostly
  // footer); cost: up to that many records unacked in JetStream at once.
  size_t batch_max_rows = 250'000;
  // Bytes a batch may hold (message payloads + decoded rows) before it closes: bounds memory when
  // messages are much larger than usual. A typical full ledger batch holds ~350 MB. At most
  // row::kMaxBatchBytes (2 GiB): a column's offsets are 32-bit.
  size_t batch_max_bytes = row::kDefaultBatchBytes;
  // Longest a buffered message waits for its batch to close.
  std::chrono::nanoseconds batch_interval = std::chrono::minutes(5);
  // Messages asked for per fetch; a batch may overshoot its row limit by one fetch.
  int fetch_max = 512;
  // Threads decoding a fetch's messages (drain/parallel_decoder.h); 1 decodes on Run's thread.
  // The command sets it to --encode-threads: decode and encode together use the cores given.
  size_t decode_threads = 1;
  // The longest one flush may run: past it the flush is abandoned and its batch nak'd (above).
  // Also feeds the default ack wait.
  std::chrono::nanoseconds flush_timeout = std::chrono::minutes(5);
  // Partitions (date and app) one flush may write, so Parts per flush: a publisher controls both,
  // and one 250,000-event message of distinct apps or dates would otherwise be 250,000 Parts.
  size_t max_partitions_per_flush = partition::kDefaultMaxPartitionsPerFlush;
  // The consumer's AckWait; 0 = batch_interval + flush_timeout + 1 minute (11m by default).
  // Keep-alives (one InProgress per held message every ack_wait/3, from its delivery until it is
  // settled) cover messages held longer, so a shorter value only shortens how long a crashed
  // drain's messages wait before another drain gets them.
  std::chrono::nanoseconds ack_wait{0};
  // MaxAckPending of the durable; 0 = 2 × (batch_max_rows + fetch_max): two full batches of
  // one-event messages (audit), one filling while the other settles, fit in flight.
  int64_t max_ack_pending = 0;
  // Delay of a nak'd batch's redelivery, and the pause after it: 1 s doubling to 2 min.
  Backoff nak_backoff{std::chrono::seconds(1), std::chrono::minutes(2)};
  // Pause after a failed fetch: 100 ms doubling to 5 s.
  Backoff fetch_backoff{std::chrono::milliseconds(100), std::chrono::seconds(5)};
  // How often the durable is asked for its counts (the pending gauges) and whether it still
  // exists: a fetch from a deleted durable only times out, as from an idle one.
  std::chrono::milliseconds consumer_check_every{std::chrono::seconds(5)};

  // Refuse naming the first bad field.
  Status Validate() const;
  std::chrono::nanoseconds EffectiveAckWait() const;
  int64_t EffectiveMaxAckPending() const;
};

class Drain {
 public:
  Drain(DrainOptions options, jetstream::PullConsumer& source, DeadLetters& dead_letters,
        RowStore& store, Logger& log, metrics::DrainMetrics* metrics = nullptr);

  // How long a stop waits for a flush abandoned past flush_timeout before Run gives up on it.
  // Short: everything was nak'd already, so waiting longer only delays the exit.
  static constexpr std::chrono::seconds kStuckShutdownWait{10};

  // Runs until `stop` is set, then flushes what is buffered under the same rules and returns OK.
  // Fetch and flush failures are logged, retried and never returned: only a bug, or a flush still
  // stuck kStuckShutdownWait after the stop (Retry, flush_stuck()), ends Run with an error.
  // Called once.
  Status Run(const std::atomic<bool>& stop);
  // A thread is inside a flush abandoned past flush_timeout (see the header comment).
  bool flush_stuck() const { return settler_ != nullptr && settler_->stuck(); }

  // What the stop did, for the shutdown summary: rows its last flushes made durable, and the
  // messages it handed back to the stream (nak'd: fetched and never added, or in a batch whose
  // last flush failed), which another drain or the next start delivers again.
  struct StopSummary {
    uint64_t rows_flushed = 0;
    uint64_t messages_held_back = 0;
  };
  const StopSummary& stop_summary() const { return stop_summary_; }

 private:
  // Takes a fetch and adds it to the filling batch (AddFetched).
  void FetchOnce(Prefetcher& prefetcher, std::chrono::milliseconds timeout);
  // Decodes each run of the fetched messages not added yet into the filling batch (shared out
  // with the decode pool while no batch settles, in place otherwise), up to the first message
  // the batch turns away for want of partitions, which waits for the next batch.
  void AddFetched();
  // Adds `m` to the filling batch (decoding it here, or from `decoded`'s payload decoded_index),
  // counts it and logs its rejects; false (`m` untouched) when the batch turned it away.
  bool Add(jetstream::Message& m, ParallelDecoder* decoded, size_t decoded_index,
           std::chrono::steady_clock::time_point now);
  bool ShouldClose(std::chrono::steady_clock::time_point now) const;
  std::chrono::milliseconds FetchTimeout(std::chrono::steady_clock::time_point now) const;
  // Hands the filling batch to the settler and fills the other, or, while the previous batch
  // still settles, waits up to a second for it (so a stop or an overdue flush is seen).
  void HandOver();
  // Waits until no batch settles, or the one settling is stuck.
  void WaitSettled();
  // After a batch settled (or was abandoned, or its abandoned flush returned): refresh the
  // gauges, and pause fetching for the nak delay if it failed.
  void Settled(const SettleReport& report);
  // While a flush is stuck: nak everything held (fetched ahead, not yet added, the filling
  // batch) and stop fetching.
  void HoldNothing(std::optional<Prefetcher>& prefetcher);
  // Releases and naks at once (no delay: they were never tried) messages never settled.
  void NakUntried(std::span<jetstream::Message> messages);
  // The stop: nak what was fetched and not added, land what is buffered, wait for it.
  Status Shutdown(std::optional<Prefetcher>& prefetcher);
  // The buffered-rows gauges: the filling batch and the one settling.
  void PublishBuffered();
  // Every consumer_check_every: the pending gauges and the ack floor, or, when the durable is
  // gone, its re-creation (see the header comment).
  void CheckConsumer(std::chrono::steady_clock::time_point now);
  // With each consumer check: GARM_SINK_DEAD's fill gauges.
  void ReadDeadStream();
  void PauseFor(std::chrono::milliseconds delay, const std::atomic<bool>& stop);

  DrainOptions options_;
  jetstream::PullConsumer& source_;
  DeadLetters& dead_letters_;
  RowStore& store_;
  Logger& log_;
  metrics::DrainMetrics* metrics_;
  Batch batches_[2];                    // one filling, the other settling or idle
  Batch* filling_ = &batches_[0];
  MessageAcks* message_acks_[2] = {};   // batches_[i]'s acknowledger, made by Run
  size_t settling_rows_ = 0;            // of the batch handed to the Settler, until settled
  int64_t settling_first_unix_ns_ = 0;  // its first message's arrival; 0: none settling
  BackoffCounter nak_backoff_;
  BackoffCounter fetch_backoff_;
  std::chrono::milliseconds keepalive_every_;
  std::chrono::steady_clock::time_point last_check_{};
  uint64_t ack_floor_ = 0;        // the durable's, as last seen
  bool durable_missing_ = false;  // told the operator; cleared once it exists again
  std::vector<jetstream::Message> fetched_;
  size_t next_fetched_ = 0;  // fetched_[next_fetched_..] wait for the filling batch
  std::unique_ptr<WorkPool> decode_pool_;
  ParallelDecoder decoder_;                 // on decode_pool_
  const std::atomic<bool>* stop_ = nullptr;  // set by Run
  uint64_t rows_flushed_ = 0;  // by every settled batch
  uint64_t naked_ = 0;         // messages nak'd, by settles and NakUntried
  StopSummary stop_summary_;
  // Made by Run. Members rather than Run's locals because a stuck flush's thread keeps using the
  // Settler after a Retry return (flush_stuck()); declared last, so destroyed first.
  std::unique_ptr<KeepAlive> keepalive_;
  std::unique_ptr<Settler> settler_;
};

}  // namespace sinkd::drain
