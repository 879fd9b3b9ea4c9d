// Settle is the only code that acknowledges anything. It lands one closed Batch, all or nothing,
// in this order:
//   1. dead letters, synchronously, one per reject;        any failure: nak the whole batch
//   2. Term every message that produced only rejects;      (its record is stored elsewhere now)
//   3. write the rows to the lake (returns when durable);  any failure: nak everything not termed
//   4. Ack every other message (rows, mixed, empty Batch).
// A nak carries the Backoff's growing delay, so a batch that cannot land comes back slower each
// time instead of spinning. While steps 1 and 3 run, a keep-alive thread sends InProgress for the
// batch's messages every `keepalive_every`, so a slow store never makes JetStream redeliver a
// batch that is still being written.
// Threads: one thread at a time (plus the keep-alive thread it owns while it runs).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "base/log.h"
#include "base/status.h"
#include "drain/backoff.h"
#include "drain/batch.h"
#include "drain/sink.h"
#include "lake/lake_writer.h"
#include "metrics/drain_metrics.h"

namespace sinkd::drain {

struct SettleContext {
  DeadLetters& dead_letters;
  Sink& sink;
  Logger& log;
  Backoff& backoff;                         // Next() on failure, Reset() on success
  metrics::DrainMetrics* metrics = nullptr;  // may be null
  std::string source;                       // "GARM_LEDGER": footers and Part provenance
  std::chrono::milliseconds keepalive_every{60'000};
};

struct SettleReport {
  Status status;                        // OK, or why the batch was nak'd
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
