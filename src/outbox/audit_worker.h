// AuditWorker copies committed audit_events rows to one AuditSink: a pass reads 500 rows after
// the sink's cursor (audit_sink_cursors, forward-only) with the same xmin fence as the outbox,
// writes them in one Write call, saves the cursor, and goes on until a batch comes back short, so
// one pass drains a backlog. A failed write is retried whole after 1 s, doubling to 5 minutes,
// for this sink only: no bisection and no dead letters (an audit row is never skipped), so a
// row the sink can never take stalls this sink until someone intervenes, by design.
// Each audit sink has its own lease (singleton:audit-sinks:<key>) and loop; the dispatcher runs
// a pass every 5 s.
// Threads: see Worker.
#pragma once

#include <memory>

#include "outbox/worker.h"
#include "sinks/event_sink.h"

namespace sinkd::outbox {

inline constexpr int kAuditBatch = 500;

class AuditWorker final : public Worker {
 public:
  // REQUIRES: batch >= 1 (500 unless a test says otherwise).
  AuditWorker(std::unique_ptr<sinks::AuditSink> sink, int batch, StoreTables tables,
              WorkerContext context);

  PassResult Pass() override;
  sinks::AuditSink& sink() { return *sink_; }

 private:
  Status TakeOver(int64_t epoch) override;
  Progress CurrentProgress(const std::string& error) const;

  std::unique_ptr<sinks::AuditSink> sink_;
  const int batch_;
  int failures_in_a_row_ = 0;
};

}  // namespace sinkd::outbox
