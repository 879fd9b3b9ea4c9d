// Positions are the source positions a table holds, so that an at-least-once source gives each
// row once in the table (issue 26 §3): per stream, the committed sequence ranges keyed by the
// stream's identity (its name and creation time: a re-created stream starts its sequences again
// and must not have them filtered out); per outbox lake sink, the last position committed, the
// (txid, seq) of its last record, as the sink's cursor names it. A sink delivers its records in
// (txid, seq) order, never in seq order alone: two producers' transactions interleave their seqs
// (txid 100 holds seqs 5 and 7, txid 101 seq 6, delivered 5, 7, 6), so a mark of seq alone would
// take 6 for committed once 7 was. As a pair the mark is exact, where ranges of seqs would
// fragment at every hole of the bigserial.
//
// Where they live: in the summary of every snapshot sinkd writes, under sinkd.positions, as the
// whole set (the parent's merged with what the snapshot adds), never a delta. Why the summary
// and not a table property: a summary belongs to its snapshot, so the positions travel with the
// data they describe (time travel shows both at one point), a snapshot another engine writes
// cannot silently carry stale ones (sinkd then takes them from the nearest ancestor it wrote),
// and it is where Kafka Connect and Flink keep theirs, which Iceberg tools already show.
// Every snapshot sinkd writes carries them: FilesCatalog's commit adds its base's when the caller
// marks none (an import's append, a compaction's replace); expiry writes no snapshot and keeps
// the current one.
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
#include <utility>
#include <vector>

#include "base/result.h"
#include "iceberg/table_metadata.h"
#include "lake/stamp.h"

namespace sinkd::iceberg {

inline constexpr char kPositionsKey[] = "sinkd.positions";

struct Positions {
  // "<stream name>@<creation time>" → sorted, merged, disjoint ranges.
  std::map<std::string, std::vector<lake::SequenceRange>> streams;
  // outbox lake sink name → the seq of the last position committed, and its txid (JSON
  // "outbox_txid"; absent in tables written before it was kept: 0, which orders before every
  // record, so nothing is taken for committed there and at worst one batch is committed twice).
  std::map<std::string, uint64_t> outbox;
  std::map<std::string, uint64_t> outbox_txid;
  bool empty() const { return streams.empty() && outbox.empty(); }
  // The last position committed for `sink`, (txid, seq); (0, 0) when none.
  std::pair<uint64_t, uint64_t> OutboxMark(const std::string& sink) const;
  friend bool operator==(const Positions&, const Positions&) = default;
};

// A stream's identity: "<name>@<created>", created as the server gives it (RFC 3339).
std::string StreamIdentity(std::string_view name, std::string_view created);

// {"streams":{"GARM_LEDGER@…":[[1,200],[202,500]]},"outbox":{"ledger_lake":1234},
//  "outbox_txid":{"ledger_lake":880}}.
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
// committed mark when the batch's first position is at or before it (the batch's records up to
// the mark are committed: they are a prefix, in (txid, seq) order).
// `batch.positions.outbox`/`outbox_txid` give the batch's last position; `outbox_first` its
// first per sink.
struct BatchPositions {
  Positions positions;  // what the batch will acknowledge
  // per outbox sink, the batch's first position (txid, seq)
  std::map<std::string, std::pair<uint64_t, uint64_t>> outbox_first;
};
Positions AlreadyCommitted(const Positions& committed, const BatchPositions& batch);

// Append::marks for a batch: on every attempt, fails (Redeliver naming the positions) when the
// newest metadata already holds any of the batch's, else returns {kPositionsKey, committed ∪
// batch}.
std::function<Result<Summary>(const TableMetadata*)> Marks(BatchPositions batch);

}  // namespace sinkd::iceberg
