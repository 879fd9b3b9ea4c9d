// EventWorker delivers the outbox to one EventSink: each pass reads up to NextSize() events after
// the cursor (4 × batch_size, 128 by default, when nothing is failing) with the xmin fence, hands
// them to one Deliver call, and saves the cursor forward-only after it returns OK.
// A failing batch is bisected pass by pass (DeliveryPlan). A lone failure is retried after
// 1 s, 2 s, 4 s … 300 s with a warning carrying the attempt count. After the 5th lone failure
// (and after each later one) the next event is delivered alone: if it goes through, the lone
// event is dead-lettered (event as delivered, last error, attempts), logged as an error, and the
// cursor moves past both; if it fails too, the sink is down and nothing is dead-lettered; when
// there is no next event yet, the lone event keeps being retried. A lone event the sink rejects
// permanently (Status::Reject) is dead-lettered at once.
// Failure counts survive a restart (sinkd_sink_progress). Right before each Deliver the delivery
// is recorded in flight (its first position, the cursor, and its size) and the save after it
// clears the record; a holder that finds the record left by a dead one counts that delivery as
// failed, so a process that crash-loops on a poison event still bisects down to it and
// dead-letters it. A holder that died anywhere else (idle, reading, killed for another sink's
// sake) leaves no record and costs no count, however often it happens.
// While nothing fails, the next full batch is read on a second connection during each delivery
// (ReadAhead), so the database and the sink work at the same time.
// Threads: see Worker.
#pragma once

#include <memory>

#include "outbox/read_ahead.h"
#include "outbox/worker.h"
#include "sinks/event_sink.h"

namespace sinkd::outbox {

class EventWorker final : public Worker {
 public:
  // REQUIRES: read_size >= 1 (4 × batch_size).
  EventWorker(std::unique_ptr<sinks::EventSink> sink, int read_size, StoreTables tables,
              WorkerContext context);

  PassResult Pass() override;
  sinks::EventSink& sink() { return *sink_; }

 private:
  Status TakeOver(int64_t epoch) override;
  PassResult Delivered(const std::vector<sinks::Event>& events, int asked);
  PassResult Failed(const std::vector<sinks::Event>& events, const Status& status);
  PassResult Probe();
  PassResult DeadLetter(const sinks::Event& event, const std::string& error, int attempts,
                        const Cursor& past, int moved);
  // Not in flight: what every save after a delivery (or a failure) writes.
  Progress CurrentProgress(const std::string& error) const;
  // Records the delivery of the next `n` events after the cursor as in flight.
  Status MarkInFlight(int n);
  // Saves the failure state; a failed save is only logged (the count is still in memory).
  void SaveFailure();
  void Backoff();

  std::unique_ptr<sinks::EventSink> sink_;
  DeliveryPlan plan_;
  ReadAhead ahead_;  // the next full batch, read while this one is delivered
};

}  // namespace sinkd::outbox
