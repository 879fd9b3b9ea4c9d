// An outbox lake sink's delivery as table::Land (table/land.h) lands it: the landing of the drain
// and import, with the outbox's positions and acknowledgement (sinks/lake_sink.h uses it).
// Positions: each record's (txid, seq), asked of the table as a (txid, seq) prefix, never by seq
// alone (seqs interleave across transactions). The flush stamp's sequences are the outbox's seq
// (a bigserial, unique across the outbox, with holes where transactions rolled back), its txids
// the range of positions.
// Acknowledgement: CursorAcks counts; the sink returns OK only once every record was acked, and
// the dispatcher's cursor save that follows is the acknowledgement.
// Ownership: OutboxLanding copies the sink id and borrows the rest (records, rows, cap, push,
// acks), for one Land. Threads: one thread at a time.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "base/status.h"
#include "lake/stamp.h"
#include "partition/partition_cap.h"
#include "row/row_buffer.h"
#include "table/acknowledger.h"
#include "table/land.h"

namespace sinkd::sinks {

inline uint64_t SeqOf(int64_t seq) { return static_cast<uint64_t>(std::max<int64_t>(seq, 0)); }

// The positions of records[i] for each i of `taken` (in order), as a flush names them.
template <typename Record>
table::Provenance ProvenanceOf(const std::string& id, std::span<const Record> records,
                              std::span<const size_t> taken) {
  table::Provenance p;
  p.source = "outbox:" + id;
  p.scope = "outbox";
  std::vector<uint64_t> seqs;
  seqs.reserve(taken.size());
  for (size_t i : taken) seqs.push_back(SeqOf(records[i].seq));
  p.first_sequence = SeqOf(records[taken.front()].seq);
  p.last_sequence = SeqOf(records[taken.back()].seq);
  p.first_txid = records[taken.front()].txid;
  p.last_txid = records[taken.back()].txid;
  p.acknowledged = lake::ToRanges(std::move(seqs));
  return p;
}

// The outbox's acknowledger is its cursor, which the dispatcher saves once Deliver/Write returns
// OK (or the commit saved it in its transaction): the landing's acks are counted.
class CursorAcks final : public table::Acknowledger {
 public:
  Status Ack(size_t) override {
    ++acked_;
    return Status::OK();
  }
  // An outbox delivery holds no reject and the landing naks nothing: the call's failure is its
  // nak (the cursor stays).
  Status Term(size_t) override { return Status::Internal("an outbox record cannot be termed"); }
  Status Nak(size_t, std::chrono::milliseconds) override { return Status::OK(); }
  void Clear() override { acked_ = 0; }
  size_t acked() const { return acked_; }

 private:
  size_t acked_ = 0;
};

// One delivery as table::Land sees it, its records pushed one row each by `push` (record, its
// index). Those the table holds already leave `taken` before a row is built. Place flushes the
// rest in consecutive sub-ranges, each under keys of its own: a sub-range ends once its rows reach
// batch_max_bytes, or before the record whose partition would be one more than `cap` allows
// (Parts per flush stay bounded: a record's type and time are the producer's). The same records
// always split at the same places, so a redelivery writes the same keys.
template <typename Record, typename Push>
class OutboxLanding final : public table::Landing {
 public:
  OutboxLanding(std::span<const Record> records, std::string id, row::RowBuffer& rows,
                partition::PartitionCap& cap, size_t batch_max_bytes, const Push& push,
                table::Acknowledger& acks)
      : records_(records),
        id_(std::move(id)),
        rows_(rows),
        cap_(cap),
        batch_max_bytes_(batch_max_bytes),
        push_(push),
        acks_(acks),
        taken_(records.size()),
        settled_(records.size(), false) {
    for (size_t i = 0; i < records.size(); ++i) taken_[i] = i;
  }

  size_t records() const override { return records_.size(); }
  table::Provenance Positions() const override { return ProvenanceOf(id_, records_, taken_); }
  size_t DropCommitted(const table::CommittedPositions& committed) override {
    return std::erase_if(taken_, [&](size_t i) {
      return committed.Holds(table::Position{SeqOf(records_[i].seq), records_[i].txid});
    });
  }
  Result<table::FlushReport> Place(table::Store& store) override {
    table::FlushReport placed;
    rows_.Reserve(taken_.size());
    size_t first = 0;  // index into `taken_` of the first record in `rows_`
    auto flush = [&](size_t end) -> Status {
      SINKD_ASSIGN_OR_RETURN(
          table::FlushReport report,
          store.Flush(rows_, ProvenanceOf(id_, records_, std::span<const size_t>(taken_).subspan(
                                                               first, end - first))));
      placed.rows += report.rows;
      placed.bytes += report.bytes;
      std::move(report.parts.begin(), report.parts.end(), std::back_inserter(placed.parts));
      rows_.Clear();
      cap_.Clear();
      first = end;
      return Status::OK();
    };
    for (size_t t = 0; t < taken_.size(); ++t) {
      const size_t i = taken_[t];
      push_(records_[i], i);
      if (!cap_.Take(rows_, rows_.rows() - 1)) {
        rows_.TruncateRows(rows_.rows() - 1);
        SINKD_RETURN_IF_ERROR(flush(t));
        push_(records_[i], i);
        (void)cap_.Take(rows_, 0);  // the first of a batch always fits
      }
      if (rows_.bytes() < batch_max_bytes_ && t + 1 < taken_.size()) continue;
      SINKD_RETURN_IF_ERROR(flush(t + 1));
    }
    return placed;
  }
  bool settled(size_t record) const override { return settled_[record]; }
  void MarkSettled(size_t record) override { settled_[record] = true; }
  table::Acknowledger& acks() override { return acks_; }

 private:
  std::span<const Record> records_;
  std::string id_;
  row::RowBuffer& rows_;
  partition::PartitionCap& cap_;
  size_t batch_max_bytes_;
  const Push& push_;
  table::Acknowledger& acks_;
  std::vector<size_t> taken_;
  std::vector<bool> settled_;
};

}  // namespace sinkd::sinks
