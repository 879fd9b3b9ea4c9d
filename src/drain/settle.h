// Settle lands a closed Batch of a drain's JetStream messages or `import`'s recording
// (backfill/backfill.h), all or nothing, through table::Land (table/land.h), the one landing path
// the outbox lake sinks take too. Steps 0, 3 and 4 are Land's; 1 and 2 are the drain's, which
// Land runs before anything is placed (LandingSteps::BeforePlace):
//   0. ask the table what it holds already (RowStore::Committed, asked by sequence ranges): those
//      records leave the batch unwritten, to be acked in 4;  any failure: nak the whole batch
//   1. dead letters, one per reject, then DeadLetters::Sync; any failure: nak the whole batch
//   2. Term every record that produced only rejects;      (its record is stored elsewhere now)
//   3. place the rows' Parts and commit them (RowStore::Flush, one flush: returns when durable
//      and committed);                                    any failure: nak everything not termed
//   4. Ack every other record (rows, mixed, empty Batch).
// Acks, terms and naks go to the batch's Acknowledger (table/acknowledger.h): for a drain
// drain::MessageAcks, which settles the JetStream messages; for import a count of its progress.
// Land acks, Settle terms and naks; nothing else of the drain acks or terminates, and the one
// other settle call is the drain's nak, at shutdown, of messages fetched and never taken
// (drain.cc).
// A nak carries the Backoff's growing delay, so a batch that cannot land comes back slower each
// time instead of spinning. Keep-alives are not Settle's: the drain's KeepAlive (keep_alive.h)
// has kept every message alive since its delivery and goes on through steps 1 to 3, however slow
// the store; its MessageAcks releases each message from it right before its Term, Ack or Nak.
// An Internal status (a bug in sinkd) from the dead-letter or the lake step naks like any other
// failure, so nothing is lost, and is logged as a bug to report, with the stage and the batch's
// sequence range, not as the ordinary "nak for redelivery" line.
// A flush that does not return (a hung NFS mount, a store that accepts and never answers with no
// request timeout) cannot be interrupted, so it is abandoned instead (FlushWatch): once past its
// deadline another thread naks what the flush would have acked (Abandon), and when the flush
// does return Settle settles nothing, whatever the flush says: the batch's messages are on their
// way to another delivery, and an ack now could only race it. A Part that lands late is another
// copy of rows the redelivery writes again, under this instance's keys (never over another
// writer's Part: lake::Place never replaces a key); readers deduplicate on event_id, and
// compaction removes the copy.
// Threads: one thread at a time (the KeepAlive's own thread runs beside it), except Abandon,
// which runs on another thread while Settle is inside the flush it abandons.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>

#include "base/backoff.h"
#include "base/log.h"
#include "base/status.h"
#include "drain/batch.h"
#include "drain/row_store.h"
#include "lake/lake_writer.h"
#include "metrics/drain_metrics.h"

namespace sinkd::drain {

// What every log line of an Internal status in the drain says besides its context.
inline constexpr std::string_view kReportBug =
    "this is a bug in sinkd, not a fault of the broker or the lake: please report it with this line";

// FlushWatch decides, for each flush, whether Settle settles its batch or the flush is abandoned:
// exactly one of Landed (the flush returned in time) and AbandonIfOverdue (it did not) wins.
// Threads: safe for concurrent use because one mutex guards it.
class FlushWatch {
 public:
  // The settling thread, as a flush starts.
  void Begin(std::chrono::steady_clock::time_point deadline);
  // The settling thread, as the flush returns: true when the batch is still its to settle, false
  // when the flush was abandoned meanwhile (then it must not touch the batch's messages).
  bool Landed();
  // Any thread: abandons the flush running past its deadline at `now`; true when it did (the
  // caller then settles the batch's messages: Abandon).
  bool AbandonIfOverdue(std::chrono::steady_clock::time_point now);

 private:
  std::mutex mu_;
  bool flushing_ = false;
  bool abandoned_ = false;
  std::chrono::steady_clock::time_point deadline_{};
};

struct SettleContext {
  DeadLetters& dead_letters;
  RowStore& store;
  Logger& log;
  BackoffCounter& backoff;                  // Next() on failure, Reset() on success
  metrics::DrainMetrics* metrics = nullptr;  // may be null
  std::string source;                       // "GARM_LEDGER": footers, Part provenance, dead letters
  std::string scope = "stream";             // what numbers the sequences (lake/stamp.h)
  FlushWatch* watch = nullptr;              // null: no flush is ever abandoned
  std::chrono::nanoseconds flush_timeout{0};  // a flush's deadline (with `watch`)
};

struct SettleReport {
  Status status;                        // OK, or why the batch was nak'd (Internal: a bug)
  lake::FlushReport flushed;
  uint64_t dead_letters = 0;
  uint64_t already_committed = 0;  // messages the table held already: acked, nothing written
  uint64_t terminated = 0;
  uint64_t acked = 0;
  uint64_t naked = 0;
  uint64_t settle_failures = 0;         // acks, terms or naks the client failed to send
  std::chrono::milliseconds nak_delay{0};  // when nak'd
  // Abandon's report: the flush ran past flush_timeout and the batch was nak'd while it went on.
  bool abandoned = false;
  // Settle's report of an abandoned flush that has now returned (`status` is what it returned):
  // nothing was settled, and the batch is left as it was for its owner to clear.
  bool late = false;
};

// Settles every message of `batch` and clears it (but for a `late` report). REQUIRES:
// !batch.empty().
SettleReport Settle(Batch& batch, SettleContext& context);

// Naks every record of `batch` not settled yet, with the backoff's delay, counts the flush as failed and logs it; touches nothing else of the batch (its
// rows are still being flushed). REQUIRES: context.watch->AbandonIfOverdue returned true for the
// flush of `batch`.
SettleReport Abandon(Batch& batch, SettleContext& context);

}  // namespace sinkd::drain
