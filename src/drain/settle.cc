#include "drain/settle.h"

#include <utility>

#include "table/land.h"

namespace sinkd::drain {

namespace {

void CountDeadLetter(metrics::DrainMetrics* m, contract::RejectReason reason) {
  if (m == nullptr) return;
  switch (reason) {
    case contract::RejectReason::kUnmarshal: ++m->dead_unmarshal; break;
    case contract::RejectReason::kMissingEventId: ++m->dead_missing_event_id; break;
    case contract::RejectReason::kMissingTime: ++m->dead_missing_time; break;
    case contract::RejectReason::kTooManyPartitions: ++m->dead_too_many_partitions; break;
  }
}

// Naks every message not yet settled, with the backoff's delay, and logs why: an Internal status
// as a bug with the stage it came from, anything else as the redelivery it is.
void NakRest(Batch& batch, SettleContext& c, SettleReport& report, const char* stage,
             const char* what) {
  report.nak_delay = c.backoff.Next();
  for (size_t i = 0; i < batch.held.size(); ++i) {
    Held& h = batch.held[i];
    if (h.settled) continue;
    if (batch.acks().Nak(i, report.nak_delay).ok()) {
      ++report.naked;
    } else {
      ++report.settle_failures;
    }
    h.settled = true;
  }
  if (report.status.IsInternal()) {
    c.log.Error("bug: internal error in the drain; batch nak'd for redelivery",
                {{"stage", std::string_view(stage)},
                 {"rows", static_cast<uint64_t>(batch.rows.rows())},
                 {"messages", static_cast<uint64_t>(batch.messages())},
                 {"first_seq", batch.first_sequence()},
                 {"last_seq", batch.last_sequence()},
                 {"nak_delay_ms", static_cast<int64_t>(report.nak_delay.count())},
                 {"error", report.status.message()},
                 {"report", kReportBug}});
  } else {
    c.log.Error(what, {{"stage", std::string_view(stage)},
                       {"rows", static_cast<uint64_t>(batch.rows.rows())},
                       {"messages", static_cast<uint64_t>(batch.messages())},
                       {"first_seq", batch.first_sequence()},
                       {"last_seq", batch.last_sequence()},
                       {"nak_delay_ms", static_cast<int64_t>(report.nak_delay.count())},
                       {"error", report.status.message()}});
  }
  if (c.metrics != nullptr) {
    c.metrics->naks += report.naked;
    ++c.metrics->flush_failures;
    c.metrics->destination_reachable = !report.status.IsRedeliver();
  }
}

// The positions `batch` covers, as its Parts' footers and the table's commit name them.
lake::Provenance ProvenanceOf(const Batch& batch, const std::string& source,
                              const std::string& scope) {
  lake::Provenance provenance{source, batch.first_sequence(), batch.last_sequence()};
  provenance.source_created = batch.source_created;
  provenance.acknowledged = batch.Acknowledged();
  provenance.scope = scope;
  return provenance;
}

// The batch as table::Land sees it: one flush of its rows, stamped with the batch's positions.
class BatchLanding final : public table::Landing {
 public:
  BatchLanding(Batch& batch, SettleContext& c) : batch_(batch), c_(c) {}
  size_t records() const override { return batch_.held.size(); }
  table::Provenance Positions() const override {
    return ProvenanceOf(batch_, c_.source, c_.scope);
  }
  size_t DropCommitted(const table::CommittedPositions& committed) override {
    const size_t dropped = batch_.DropCommitted(committed);
    if (dropped > 0) {
      c_.log.Info("messages already in the table; acked without writing them again",
                  {{"messages", static_cast<uint64_t>(dropped)},
                   {"committed", lake::FormatRanges(committed.ranges)}});
    }
    return dropped;
  }
  Result<table::FlushReport> Place(table::Store& store) override {
    if (batch_.rows.empty()) return table::FlushReport{};
    placed_ = true;
    return store.Flush(batch_.rows, Positions());
  }
  // Place had rows to flush.
  bool placed() const { return placed_; }
  bool settled(size_t record) const override { return batch_.held[record].settled; }
  void MarkSettled(size_t record) override { batch_.held[record].settled = true; }
  table::Acknowledger& acks() override { return batch_.acks(); }

 private:
  Batch& batch_;
  SettleContext& c_;
  bool placed_ = false;
};

// What a drain does in a landing besides the table's steps: its dead letters and terms before
// anything is placed, and the flush's deadline around the place step.
class DrainSteps final : public table::LandingSteps {
 public:
  DrainSteps(Batch& batch, SettleContext& c, SettleReport& report)
      : batch_(batch), c_(c), report_(report) {}

  Status BeforePlace() override {
    // Dead letters first: they are small, they go to the broker we are already talking to, and a
    // record must never be terminated before its dead letter is stored. One failure naks the
    // whole batch, good rows included, so the next attempt replays every record; the Msg-Id
    // makes the dead letters already stored this time duplicates the stream drops.
    if (!batch_.rejects.empty()) {
      for (const HeldReject& r : batch_.rejects) {
        const Held& from = batch_.held[r.message];
        auto stored = c_.dead_letters.Publish({&r.reject, c_.source, from.subject, from.sequence});
        if (!stored.ok()) return stored.status();
        ++report_.dead_letters;
        if (*stored) CountDeadLetter(c_.metrics, r.reject.reason);
      }
      SINKD_RETURN_IF_ERROR(c_.dead_letters.Sync(batch_.first_sequence(), batch_.last_sequence()));
    }
    // Term what produced only rejects: everything it held is on the dead-letter stream now. A
    // Term lost on the way costs one more delivery and a dead letter the Msg-Id de-duplicates.
    for (size_t i = 0; i < batch_.held.size(); ++i) {
      Held& h = batch_.held[i];
      if (h.rows == 0 && h.rejects > 0) {
        if (batch_.acks().Term(i).ok()) {
          ++report_.terminated;
        } else {
          ++report_.settle_failures;
        }
        h.settled = true;
      }
    }
    return Status::OK();
  }

  void PlaceBegins() override {
    watching_ = c_.watch != nullptr && !batch_.rows.empty();
    if (watching_) c_.watch->Begin(std::chrono::steady_clock::now() + c_.flush_timeout);
  }
  bool PlaceReturned() override { return !watching_ || c_.watch->Landed(); }

 private:
  Batch& batch_;
  SettleContext& c_;
  SettleReport& report_;
  bool watching_ = false;
};

}  // namespace

void FlushWatch::Begin(std::chrono::steady_clock::time_point deadline) {
  std::lock_guard<std::mutex> lock(mu_);
  flushing_ = true;
  abandoned_ = false;
  deadline_ = deadline;
}

bool FlushWatch::Landed() {
  std::lock_guard<std::mutex> lock(mu_);
  flushing_ = false;
  return !abandoned_;
}

bool FlushWatch::AbandonIfOverdue(std::chrono::steady_clock::time_point now) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!flushing_ || abandoned_ || now < deadline_) return false;
  abandoned_ = true;
  return true;
}

SettleReport Abandon(Batch& batch, SettleContext& c) {
  SettleReport report;
  report.abandoned = true;
  report.status = Status::Redeliver(
      "the flush ran past --flush-timeout (" +
      std::to_string(std::chrono::duration_cast<std::chrono::seconds>(c.flush_timeout).count()) +
      "s) and was abandoned; it may still land a Part, which is then another copy of rows the "
      "redelivery writes again");
  NakRest(batch, c, report, "flush", "flush abandoned; nak for redelivery");
  if (c.metrics != nullptr) {
    ++c.metrics->flushes_abandoned;
    c.metrics->flush_stuck = true;
    c.metrics->flush_in_time = false;
  }
  return report;
}

SettleReport Settle(Batch& batch, SettleContext& c) {
  SettleReport report;
  const auto started = std::chrono::steady_clock::now();
  BatchLanding landing(batch, c);
  DrainSteps steps(batch, c, report);
  table::LandReport landed = table::Land(landing, c.store, steps);
  report.already_committed = landed.already_committed;
  // A failed step naks every record not settled yet and clears the batch.
  const auto nak_all = [&](Status status, const char* stage, const char* what) {
    report.status = std::move(status);
    NakRest(batch, c, report, stage, what);
    batch.Clear();
    return report;
  };
  // A table's or a store's failure is a redelivery, except a bug, which keeps its kind so it is
  // reported as one.
  const Status redeliver =
      landed.status.IsInternal() ? landed.status : landed.status.As(Status::Redeliver);
  switch (landed.failed) {
    case table::LandStep::kNone:
      break;
    case table::LandStep::kCommitted:
      // A table that cannot say fails the batch like a failed flush.
      return nak_all(redeliver, "commit", "reading the table's committed positions failed; nak");
    case table::LandStep::kBeforePlace:
      return nak_all(landed.status, "dead-letter", "dead-letter write failed; nak for redelivery");
    case table::LandStep::kAbandoned:
      // Its messages were nak'd by Abandon and are someone else's now. Even an OK here acks
      // nothing, and the batch is left for its owner, who clears it.
      report.late = true;
      report.status = landed.status;
      return report;
    case table::LandStep::kPlace:
      return nak_all(redeliver, "flush", "flush failed; nak for redelivery");
  }
  report.flushed = std::move(landed.flushed);
  report.acked = landed.acked;
  report.settle_failures += landed.ack_failures;
  if (c.metrics != nullptr && landing.placed()) c.metrics->flush_in_time = true;
  c.backoff.Reset();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  c.log.Info("flushed batch", {{"rows", report.flushed.rows},
                               {"messages", static_cast<uint64_t>(batch.messages())},
                               {"first_seq", batch.first_sequence()},
                               {"last_seq", batch.last_sequence()},
                               {"parts", static_cast<uint64_t>(report.flushed.parts.size())},
                               {"bytes", report.flushed.bytes},
                               {"dead_letters", report.dead_letters},
                               {"acked", report.acked},
                               {"terminated", report.terminated},
                               {"seconds", seconds}});
  if (report.settle_failures > 0) {
    c.log.Warn("acks failed; those messages will be redelivered and written again",
               {{"failed", report.settle_failures}});
  }
  if (c.metrics != nullptr) {
    c.metrics->rows_flushed += report.flushed.rows;
    c.metrics->bytes_flushed += report.flushed.bytes;
    ++c.metrics->flushes;
    c.metrics->ack_failures += report.settle_failures;
    c.metrics->flush_seconds.Observe(seconds);
    c.metrics->flush_rows.Observe(static_cast<double>(report.flushed.rows));
    c.metrics->last_flush_unix_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                        std::chrono::system_clock::now().time_since_epoch())
                                        .count();
    c.metrics->destination_reachable = true;
  }
  batch.Clear();
  return report;
}

}  // namespace sinkd::drain
