// Positions are the source positions a table holds, so that an at-least-once source gives each
// row once in the table (issue 26 §3): per stream, the committed sequence ranges keyed by the
// stream's identity (its name and creation time: a re-created stream starts its sequences again
// and must not have them filtered out); per outbox lake sink, the highest outbox seq committed
// (a sink delivers its records in seq order, and seq is a bigserial with holes, so a high-water
// mark is exact where ranges would fragment at every hole).
//
// Where they live: in the summary of every snapshot sinkd writes, under sinkd.positions, as the
// whole set (the parent's merged with what the snapshot adds), never a delta. Why the summary
// and not a table property: a summary belongs to its snapshot, so the positions travel with the
// data they describe (time travel shows both at one point), a snapshot another engine writes
// cannot silently carry stale ones (sinkd then takes them from the nearest ancestor it wrote),
// and it is where Kafka Connect and Flink keep theirs, which Iceberg tools already show.
// Compaction's and expiry's snapshots must copy them too (CommittedPositions of their base).
//
// The check runs inside the commit's retry loop (Marks): each attempt reads the newest metadata's
// positions and fails the commit when any of the batch's is already there, so two drains racing
// with one redelivered message cannot both commit it; the caller's flush then fails, and the
// redelivery is filtered (AlreadyCommitted) before its Parts are written.
// Threads: plain values and pure functions.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "iceberg/table_metadata.h"
#include "lake/stamp.h"

namespace sinkd::iceberg {

inline constexpr char kPositionsKey[] = "sinkd.positions";

struct Positions {
  // "<stream name>@<creation time>" → sorted, merged, disjoint ranges.
  std::map<std::string, std::vector<lake::SequenceRange>> streams;
  // outbox lake sink name → highest seq committed.
  std::map<std::string, uint64_t> outbox;
  bool empty() const { return streams.empty() && outbox.empty(); }
  friend bool operator==(const Positions&, const Positions&) = default;
};

// A stream's identity: "<name>@<created>", created as the server gives it (RFC 3339).
std::string StreamIdentity(std::string_view name, std::string_view created);

// {"streams":{"GARM_LEDGER@…":[[1,200],[202,500]]},"outbox":{"ledger_lake":1234}}.
std::string PositionsJson(const Positions& positions);
// Reject naming what is wrong (not that shape, a range whose first is past its last).
Result<Positions> ParsePositions(std::string_view json);

// The positions `base` holds: those of its current snapshot, or of the nearest ancestor sinkd
// wrote when the current one carries none (a snapshot of another engine); empty for no table or
// no snapshot. Reject when the value found does not parse.
Result<Positions> CommittedPositions(const TableMetadata* base);

// Sorted, merged (adjacent ones joined) ranges.
std::vector<lake::SequenceRange> MergeRanges(std::vector<lake::SequenceRange> ranges);
// Everything in `a` or `b`.
Positions Merge(Positions a, const Positions& b);

// What of `batch` `committed` holds already: per stream the ranges in both; per outbox sink the
// batch's range up to the committed mark ([first, min(last, mark)] when first <= mark).
// `batch.outbox` gives the batch's highest seq; `outbox_first` its lowest per sink.
struct BatchPositions {
  Positions positions;                           // what the batch will acknowledge
  std::map<std::string, uint64_t> outbox_first;  // per outbox sink, the batch's lowest seq
};
Positions AlreadyCommitted(const Positions& committed, const BatchPositions& batch);

// Append::marks for a batch: on every attempt, fails (Redeliver naming the positions) when the
// newest metadata already holds any of the batch's, else returns {kPositionsKey, committed ∪
// batch}.
std::function<Result<Summary>(const TableMetadata*)> Marks(BatchPositions batch);

}  // namespace sinkd::iceberg
