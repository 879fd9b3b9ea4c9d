// Settle acknowledges a closed Batch, all or nothing, in this order:
//   1. dead letters, synchronously, one per reject;        any failure: nak the whole batch
//   2. Term every message that produced only rejects;      (its record is stored elsewhere now)
//   3. write the rows to the lake (returns when durable);  any failure: nak everything not termed
//   4. Ack every other message (rows, mixed, empty Batch).
// It is the only code that acks or terminates; the one other settle call is the drain's nak, at
// shutdown, of messages fetched and never taken (drain.cc).
// A nak carries the Backoff's growing delay, so a batch that cannot land comes back slower each
// time instead of spinning. Keep-alives are not Settle's: the drain's KeepAlive (keep_alive.h)
// has kept every message alive since its delivery and goes on through steps 1 to 3, however slow
// the store; Settle releases each message from it right before that message's Term, Ack or Nak.
// An Internal status (a bug in sinkd) from the dead-letter or the lake step naks like any other
// failure, so nothing is lost, and is logged as a bug to report, with the stage and the batch's
// sequence range, not as the ordinary "nak for redelivery" line.
// Threads: one thread at a time (the KeepAlive's own thread runs beside it).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/backoff.h"
#include "base/log.h"
#include "base/status.h"
#include "drain/batch.h"
#include "drain/keep_alive.h"
#include "drain/sink.h"
#include "lake/lake_writer.h"
#include "metrics/drain_metrics.h"

namespace sinkd::drain {

// What every log line of an Internal status in the drain says besides its context.
inline constexpr std::string_view kReportBug =
    "this is a bug in sinkd, not a fault of the broker or the lake: please report it with this line";

struct SettleContext {
  DeadLetters& dead_letters;
  Sink& sink;
  Logger& log;
  BackoffCounter& backoff;                  // Next() on failure, Reset() on success
  KeepAlive& keepalive;                     // tracks every message of the batch
  metrics::DrainMetrics* metrics = nullptr;  // may be null
  std::string source;                       // "GARM_LEDGER": footers and Part provenance
};

struct SettleReport {
  Status status;                        // OK, or why the batch was nak'd (Internal: a bug)
  lake::FlushReport flushed;
  uint64_t dead_letters = 0;
  uint64_t terminated = 0;
  uint64_t acked = 0;
  uint64_t naked = 0;
  uint64_t settle_failures = 0;         // acks, terms or naks the client failed to send
  std::chrono::milliseconds nak_delay{0};  // when nak'd
};

// Settles every message of `batch` and clears it. REQUIRES: !batch.empty().
SettleReport Settle(Batch& batch, SettleContext& context);

}  // namespace sinkd::drain
