#include "outbox/event_worker.h"

#include <span>

#include "outbox/reader.h"

namespace sinkd::outbox {

namespace {

double Seconds(Duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

EventWorker::EventWorker(std::unique_ptr<sinks::EventSink> sink, int read_size,
                         StoreTables tables, WorkerContext context)
    : Worker("events", sink->id(), EventLeaseName(sink->id()),
             SinkStore(SinkKind::kEvents, sink->id(), tables), std::move(context)),
      sink_(std::move(sink)),
      plan_(read_size),
      ahead_(context_.conninfo, "sinkd-dispatch-events:" + id_ + ":ahead") {}

Progress EventWorker::CurrentProgress(const std::string& error) const {
  Progress p;
  p.at = cursor_;
  p.suspect = plan_.suspect();
  p.attempts = plan_.attempts();
  p.next_size = plan_.NextSize();
  p.last_error = error;
  return p;
}

Status EventWorker::MarkInFlight(int n) {
  Progress p = CurrentProgress("");
  p.in_flight = true;
  p.next_size = n;  // with `at`, the delivery's first and last position: nothing commits behind
  return store_.SaveProgress(*conn_, p, fence());
}

Status EventWorker::TakeOver(int64_t epoch) {
  ahead_.Drop();
  SINKD_ASSIGN_OR_RETURN(Cursor cursor, store_.LoadCursor(*conn_));
  SINKD_ASSIGN_OR_RETURN(std::optional<Progress> progress, store_.LoadProgress(*conn_));
  plan_ = DeliveryPlan(plan_.max_size());
  retry_at_ = TimePoint{};
  bool counted_lost = false;
  if (progress && progress->at == cursor) {
    plan_.Restore(progress->suspect, progress->attempts, progress->next_size);
    last_error_ = progress->last_error;
    if (progress->in_flight) {
      // The last holder died inside a delivery of this sink (the record made right before it
      // was never cleared): that delivery failed. A holder that died anywhere else left nothing.
      plan_.Failed(std::max(1, progress->next_size));
      if (plan_.suspect() == 1) last_error_ = "the previous holder died delivering this event";
      counted_lost = true;
    }
  }
  epoch_ = epoch;
  cursor_ = cursor;
  save_pending_ = false;
  log().Info("outbox: lease acquired; resuming from the saved cursor",
             {{"sink", id_}, {"lease", lease_}, {"epoch", epoch},
              {"cursor", FormatCursor(cursor)}, {"lone_failures", plan_.attempts()},
              {"suspect", plan_.suspect()}, {"previous_holder_died", counted_lost}});
  // Written at once (and not in flight), so the lost delivery is counted exactly once.
  Status s = store_.SaveProgress(*conn_, CurrentProgress(counted_lost ? last_error_ : ""), fence());
  Publish(plan_.attempts(), plan_.suspect());
  return s;
}

PassResult EventWorker::Pass() {
  if (!Connected()) return PassResult::kError;
  if (HolderEpoch() == 0) return conn_ ? PassResult::kNotHolder : PassResult::kError;
  if (save_pending_) {
    Status s = store_.Save(*conn_, cursor_, CurrentProgress(""), fence());
    if (!s.ok()) return DatabaseError(s);
    save_pending_ = false;
  }
  if (plan_.probe_due()) return Probe();
  if (Now() < retry_at_) return PassResult::kWaiting;
  // While a suspect run is known the whole run is read (it exists: nothing commits behind the
  // cursor), so a run restored from a dead holder can be clamped to what is really there.
  const int want = std::max(plan_.suspect(), plan_.NextSize());
  std::optional<std::vector<sinks::Event>> ahead = ahead_.Take(cursor_, want);
  Result<std::vector<sinks::Event>> events =
      ahead ? Result<std::vector<sinks::Event>>(std::move(*ahead)) : ReadEvents(*conn_, cursor_, want);
  if (!events.ok()) return DatabaseError(events.status().WithContext("read outbox"));
  if (events->empty()) return PassResult::kIdle;
  plan_.Clamp(static_cast<int>(events->size()));
  const int asked = plan_.NextSize();
  if (static_cast<int>(events->size()) > asked) events->resize(static_cast<size_t>(asked));
  // A full batch with nothing failing: there is probably more, so read it while this one goes.
  const Status marked = MarkInFlight(static_cast<int>(events->size()));
  if (!marked.ok()) return DatabaseError(marked);  // no delivery that a crash could not count
  if (plan_.suspect() == 0 && asked == plan_.max_size() && static_cast<int>(events->size()) == asked) {
    ahead_.Start(PositionOf(events->back()), asked);
  }
  BeginDelivery();
  const Status st = sink_->Deliver(*events);
  if (!EndDelivery()) return PassResult::kAbandoned;
  if (st.ok()) return Delivered(*events, asked);
  return Failed(*events, st);
}

PassResult EventWorker::Delivered(const std::vector<sinks::Event>& events, int asked) {
  const int n = static_cast<int>(events.size());
  cursor_ = PositionOf(events.back());
  plan_.Delivered(n);
  delivered_ += static_cast<uint64_t>(n);
  retry_at_ = TimePoint{};
  Status s = store_.Save(*conn_, cursor_, CurrentProgress(""), fence());
  Publish(plan_.attempts(), plan_.suspect());
  if (!s.ok()) {
    save_pending_ = true;  // delivered again if this process dies before a save succeeds
    return DatabaseError(s);
  }
  return n >= asked || plan_.suspect() > 0 ? PassResult::kMore : PassResult::kDelivered;
}

void EventWorker::Backoff() {
  retry_at_ = Now() + context_.backoff.Wait(std::max(1, plan_.attempts()));
}

void EventWorker::SaveFailure() {
  Status s = store_.SaveProgress(*conn_, CurrentProgress(last_error_), fence());
  if (!s.ok()) {
    log().Warn("outbox: could not save the failure count; it is kept in memory",
               {{"sink", id_}, {"error", s.message()}});
  }
  Publish(plan_.attempts(), plan_.suspect());
}

PassResult EventWorker::Failed(const std::vector<sinks::Event>& events, const Status& status) {
  const int n = static_cast<int>(events.size());
  ++failures_;
  last_error_ = status.message().empty() ? status.ToString() : status.message();
  if (n > 1) {
    plan_.Failed(n);
    log().Warn("outbox: delivery failed; bisecting the batch",
               {{"sink", id_}, {"events", n}, {"first", events.front().sequence},
                {"next_size", plan_.NextSize()}, {"error", last_error_}});
    SaveFailure();
    return PassResult::kMore;
  }
  if (status.IsReject()) {
    log().Error("outbox: the sink rejected an event permanently; dead-lettering it",
                {{"sink", id_}, {"sequence", events[0].sequence}, {"event_id", events[0].id},
                 {"error", last_error_}});
    return DeadLetter(events[0], last_error_, plan_.attempts() + 1, PositionOf(events[0]), 1);
  }
  plan_.Failed(1);
  Backoff();
  log().Warn("outbox: lone event failed; retrying after a back-off",
             {{"sink", id_}, {"sequence", events[0].sequence}, {"event_id", events[0].id},
              {"attempt", plan_.attempts()},
              {"retry_in_seconds", Seconds(retry_at_ - Now())}, {"error", last_error_}});
  SaveFailure();
  if (plan_.probe_due()) return Probe();
  return PassResult::kWaiting;
}

PassResult EventWorker::Probe() {
  plan_.Probed();
  if (retry_at_ <= Now()) Backoff();
  auto events = ReadEvents(*conn_, cursor_, 2);
  if (!events.ok()) return DatabaseError(events.status().WithContext("read outbox"));
  if (events->size() < 2) {
    log().Info("outbox: no next event yet to test the failing one against; retrying it",
               {{"sink", id_}, {"attempt", plan_.attempts()}});
    Publish(plan_.attempts(), plan_.suspect());
    return PassResult::kWaiting;
  }
  const sinks::Event& lone = (*events)[0];
  const Status marked = MarkInFlight(1);  // a crash in the probe counts against the lone event
  if (!marked.ok()) return DatabaseError(marked);
  BeginDelivery();
  const Status st = sink_->Deliver(std::span<const sinks::Event>(&(*events)[1], 1));
  if (!EndDelivery()) return PassResult::kAbandoned;
  if (st.ok()) {
    log().Error("outbox: poison event dead-lettered: it failed alone and the next event went "
                "through",
                {{"sink", id_}, {"sequence", lone.sequence}, {"event_id", lone.id},
                 {"attempts", plan_.attempts()}, {"error", last_error_}});
    return DeadLetter(lone, last_error_, plan_.attempts(), PositionOf((*events)[1]), 2);
  }
  ++failures_;
  last_error_ = st.message().empty() ? st.ToString() : st.message();
  log().Warn("outbox: the next event failed too: the sink is down; nothing is dead-lettered",
             {{"sink", id_}, {"sequence", lone.sequence}, {"attempt", plan_.attempts()},
              {"retry_in_seconds", Seconds(retry_at_ - Now())}, {"error", last_error_}});
  SaveFailure();
  return PassResult::kWaiting;
}

PassResult EventWorker::DeadLetter(const sinks::Event& event, const std::string& error,
                                   int attempts, const Cursor& past, int moved) {
  DeliveryPlan after = plan_;
  after.Delivered(moved);
  Progress progress;
  progress.at = past;
  progress.suspect = after.suspect();
  progress.attempts = after.attempts();
  progress.next_size = after.NextSize();
  Status s = store_.DeadLetter(*conn_, event, error, attempts, past, progress, fence());
  if (!s.ok()) return DatabaseError(s);  // nothing moved: the event is tried again
  if (!store_.tables().dead_letters) {
    log().Error("outbox: no outbox_dead_letters table; the poison event is only logged here",
                {{"sink", id_}, {"event", sinks::EventJson(event)}, {"attempts", attempts},
                 {"error", error}});
  }
  plan_ = after;
  cursor_ = past;
  delivered_ += static_cast<uint64_t>(moved - 1);
  ++dead_letters_;
  retry_at_ = TimePoint{};
  Publish(plan_.attempts(), plan_.suspect());
  return PassResult::kMore;
}

}  // namespace sinkd::outbox
