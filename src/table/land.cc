#include "table/land.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace sinkd::table {

bool CommittedPositions::Holds(const Position& position) const {
  if (position.txid) {
    return through && OutboxPosition{*position.txid, position.sequence} <= *through;
  }
  if (position.sequence == 0) return false;
  auto it = std::upper_bound(
      ranges.begin(), ranges.end(), position.sequence,
      [](uint64_t s, const SequenceRange& r) { return s < r.first; });
  return it != ranges.begin() && position.sequence <= std::prev(it)->last;
}

Result<CommittedPositions> AskCommitted(Commit& commit, std::string_view table,
                                        const Provenance& positions) {
  CommittedPositions held;
  if (positions.scope == "outbox") {
    SINKD_ASSIGN_OR_RETURN(held.through, commit.CommittedThrough(table, positions));
  } else {
    SINKD_ASSIGN_OR_RETURN(held.ranges, commit.Committed(table, positions));
  }
  return held;
}

LandReport Land(Landing& batch, Store& store) {
  LandingSteps none;
  return Land(batch, store, none);
}

LandReport Land(Landing& batch, Store& store, LandingSteps& steps) {
  LandReport report;
  // 0. Records whose rows the table holds already (their commit landed, their acknowledgement was
  // lost) leave before anything is written. The `none` table never holds any.
  auto committed = store.Committed(batch.Positions());
  if (!committed.ok()) {
    report.status = committed.status();
    report.failed = LandStep::kCommitted;
    return report;
  }
  report.committed = std::move(committed).value();
  if (!report.committed.empty()) report.already_committed = batch.DropCommitted(report.committed);

  report.status = steps.BeforePlace();
  if (!report.status.ok()) {
    report.failed = LandStep::kBeforePlace;
    return report;
  }

  // 2. Durable and committed, or nothing is acknowledged.
  steps.PlaceBegins();
  auto placed = batch.Place(store);
  if (!steps.PlaceReturned()) {
    report.status = placed.ok() ? Status::OK() : placed.status();
    report.failed = LandStep::kAbandoned;
    return report;
  }
  if (!placed.ok()) {
    report.status = placed.status();
    report.failed = LandStep::kPlace;
    return report;
  }
  report.flushed = std::move(placed).value();

  // 3. Only now: records with rows, those the table held, and those that gave nothing (which
  // would otherwise come back forever).
  for (size_t i = 0; i < batch.records(); ++i) {
    if (batch.settled(i)) continue;
    if (batch.acks().Ack(i).ok()) {
      ++report.acked;
    } else {
      ++report.ack_failures;
    }
    batch.MarkSettled(i);
  }
  return report;
}

}  // namespace sinkd::table
