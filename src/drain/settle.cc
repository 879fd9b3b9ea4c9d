#include "drain/settle.h"

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

  // 0. Messages whose rows the table holds already (their commit landed, their acks were lost)
  // leave the batch before anything is written, and are acked with it (table/commit.h). A table
  // that cannot say fails the batch like a failed flush. The `none` table never holds any.
  auto committed = c.store.Committed(ProvenanceOf(batch, c.source, c.scope));
  if (!committed.ok()) {
    report.status = committed.status().IsInternal() ? committed.status()
                                                    : committed.status().As(Status::Redeliver);
    NakRest(batch, c, report, "commit", "reading the table's committed positions failed; nak");
    batch.Clear();
    return report;
  }
  if (!committed->empty()) {
    report.already_committed = batch.DropCommitted(*committed);
    if (report.already_committed > 0) {
      c.log.Info("messages already in the table; acked without writing them again",
                 {{"messages", report.already_committed},
                  {"committed", lake::FormatRanges(*committed)}});
    }
  }

  // 1. Dead letters first: they are small, they go to the broker we are already talking to, and a
  // record must never be terminated before its dead letter is stored. One failure naks the whole
  // batch, good rows included, so the next attempt replays every record; the Msg-Id makes the
  // dead letters already stored this time duplicates the stream drops.
  if (!batch.rejects.empty()) {
    for (const HeldReject& r : batch.rejects) {
      const Held& from = batch.held[r.message];
      auto stored = c.dead_letters.Publish({&r.reject, c.source, from.subject, from.sequence});
      if (!stored.ok()) {
        report.status = stored.status();
        break;
      }
      ++report.dead_letters;
      if (*stored) CountDeadLetter(c.metrics, r.reject.reason);
    }
    if (report.status.ok()) {
      report.status = c.dead_letters.Sync(batch.first_sequence(), batch.last_sequence());
    }
  }
  if (!report.status.ok()) {
    NakRest(batch, c, report, "dead-letter", "dead-letter write failed; nak for redelivery");
    batch.Clear();
    return report;
  }

  // 2. Term what produced only rejects: everything it held is on the dead-letter stream now. A
  // Term lost on the way costs one more delivery and a dead letter the Msg-Id de-duplicates.
  for (size_t i = 0; i < batch.held.size(); ++i) {
    Held& h = batch.held[i];
    if (h.rows == 0 && h.rejects > 0) {
      if (batch.acks().Term(i).ok()) {
        ++report.terminated;
      } else {
        ++report.settle_failures;
      }
      h.settled = true;
    }
  }

  // 3. The rows. Flush returns only when every Part is durable (fsync'd and renamed, or stored).
  // Any failure is a redelivery, except a bug, which keeps its kind so it is reported as one.
  if (!batch.rows.empty()) {
    const lake::Provenance provenance = ProvenanceOf(batch, c.source, c.scope);
    if (c.watch != nullptr) c.watch->Begin(std::chrono::steady_clock::now() + c.flush_timeout);
    auto flushed = c.store.Flush(batch.rows, provenance);
    // Abandoned meanwhile: its messages were nak'd by Abandon and are someone else's now. Even an
    // OK here acks nothing, and the batch is left for its owner, who clears it.
    if (c.watch != nullptr && !c.watch->Landed()) {
      report.late = true;
      report.status = flushed.ok() ? Status::OK() : flushed.status();
      return report;
    }
    if (!flushed.ok()) {
      report.status = flushed.status().IsInternal() ? flushed.status()
                                                    : flushed.status().As(Status::Redeliver);
    } else {
      report.flushed = std::move(flushed).value();
      if (c.metrics != nullptr) c.metrics->flush_in_time = true;
    }
  }
  if (!report.status.ok()) {
    NakRest(batch, c, report, "flush", "flush failed; nak for redelivery");
    batch.Clear();
    return report;
  }

  // 4. Only now is anything acked: messages with rows, mixed ones, and empty Batches (which hold
  // nothing and would otherwise come back forever).
  for (size_t i = 0; i < batch.held.size(); ++i) {
    Held& h = batch.held[i];
    if (h.settled) continue;
    if (batch.acks().Ack(i).ok()) {
      ++report.acked;
    } else {
      ++report.settle_failures;
    }
    h.settled = true;
  }
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
