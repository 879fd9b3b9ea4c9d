// Drain moves one stream into the lake: it fetches from a durable pull consumer, decodes each
// message into rows and rejects, and hands closed batches to the Settler (drain/settler.h), which
// runs Settle (drain/settle.h), the only code that acks. Invariant: a message is acked only after
// its rows are durable, terminated only after its dead letters are stored, and nak'd (with a
// growing delay) otherwise; never acked because it was hard to read.
// A batch closes at batch_max_rows ROWS, at batch_max_bytes held, or batch_interval after its
// FIRST message was buffered (not after the last flush: an idle stream must not flush a lone
// message the moment it arrives, nor hold one longer than the interval).
// Ownership: borrows the consumer, sinks, logger and metrics (all must outlive Run).
// Keep-alives: every message Run holds unacked (fetched ahead, buffered, settling) is kept alive
// by one KeepAlive (drain/keep_alive.h) from its delivery until it is settled.
// Pipeline: Run decodes batch N+1 while batch N settles (is flushed to the lake and acknowledged)
// on the Settler's thread. At most one batch settles at a time: a batch that closes while the
// previous one still settles waits for it (and fetching waits with it), so the drain holds at most
// two batches, one filling and one settling, plus one prefetched fetch. Batches settle in the
// order they closed, each acked only once its own Parts are durable; a failed one is nak'd whole
// and, as before, fetching pauses for its nak delay.
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
#include <string>
#include <string_view>
#include <vector>

#include "base/backoff.h"
#include "base/log.h"
#include "base/status.h"
#include "base/work_pool.h"
#include "contract/reject.h"
#include "drain/batch.h"
#include "drain/keep_alive.h"
#include "drain/parallel_decoder.h"
#include "drain/prefetcher.h"
#include "drain/settler.h"
#include "drain/sink.h"
#include "jetstream/pull_consumer.h"
#include "metrics/drain_metrics.h"
#include "row/row_batch.h"

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
  // Expected time for one flush; only feeds the default ack wait.
  std::chrono::nanoseconds flush_timeout = std::chrono::minutes(5);
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

  // Refuse naming the first bad field.
  Status Validate() const;
  std::chrono::nanoseconds EffectiveAckWait() const;
  int64_t EffectiveMaxAckPending() const;
};

class Drain {
 public:
  Drain(DrainOptions options, jetstream::PullConsumer& source, DeadLetters& dead_letters,
        Sink& sink, Logger& log, metrics::DrainMetrics* metrics = nullptr);

  // Runs until `stop` is set, then flushes what is buffered under the same rules and returns OK.
  // Fetch and flush failures are logged, retried and never returned: only a bug ends Run early.
  Status Run(const std::atomic<bool>& stop);

 private:
  // Decodes each run of the fetch into the filling batch: shared out with the decode pool while
  // `settler` is idle, in place otherwise.
  void FetchOnce(Prefetcher& prefetcher, std::chrono::milliseconds timeout, const Settler& settler);
  // Adds `m` to the filling batch (decoding it here, or from `decoded`'s payload decoded_index),
  // counts it and logs its rejects.
  void Add(jetstream::Message& m, ParallelDecoder* decoded, size_t decoded_index,
           std::chrono::steady_clock::time_point now);
  bool ShouldClose(std::chrono::steady_clock::time_point now) const;
  std::chrono::milliseconds FetchTimeout(std::chrono::steady_clock::time_point now) const;
  // Hands the filling batch to the settler once the previous one has settled, and fills the other.
  void HandOver(Settler& settler);
  // After a batch settled: refresh the gauges, and pause fetching for the nak delay if it failed.
  void Settled(const SettleReport& report);
  // The buffered-rows gauges: the filling batch and the one settling.
  void PublishBuffered();
  void RefreshConsumerGauges(std::chrono::steady_clock::time_point now);
  void PauseFor(std::chrono::milliseconds delay, const std::atomic<bool>& stop);

  DrainOptions options_;
  jetstream::PullConsumer& source_;
  DeadLetters& dead_letters_;
  Sink& sink_;
  Logger& log_;
  metrics::DrainMetrics* metrics_;
  Batch batches_[2];                    // one filling, the other settling or idle
  Batch* filling_ = &batches_[0];
  size_t settling_rows_ = 0;            // of the batch handed to the Settler, until settled
  int64_t settling_first_unix_ns_ = 0;  // its first message's arrival; 0: none settling
  BackoffCounter nak_backoff_;
  BackoffCounter fetch_backoff_;
  std::chrono::milliseconds keepalive_every_;
  std::chrono::steady_clock::time_point last_gauges_{};
  std::vector<jetstream::Message> fetched_;
  std::unique_ptr<WorkPool> decode_pool_;
  ParallelDecoder decoder_;                 // on decode_pool_
  const std::atomic<bool>* stop_ = nullptr;  // set by Run
};

}  // namespace sinkd::drain
