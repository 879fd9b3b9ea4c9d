#include "drain/batch.h"

#include <algorithm>
#include <iterator>
#include <string>

#include <fmt/format.h>

#include "row/ledger_columns.h"

namespace sinkd::drain {

Batch::Batch(std::unique_ptr<table::Acknowledger> acks)
    : rows(row::kLedgerColumns),
      acks_(acks != nullptr ? std::move(acks) : std::make_unique<table::NoAcknowledger>()),
      cap_(row::kLedgerColumns, 0) {}

void Batch::SetMaxPartitions(size_t max) { cap_ = partition::PartitionCap(row::kLedgerColumns, max); }

Added Batch::Add(const Record& record, contract::Envelope envelope,
                 std::chrono::steady_clock::time_point now) {
  scratch_.clear();
  const size_t rows_before = rows.rows();
  decoder_.Decode(envelope, record.payload, rows, scratch_);
  return Hold(record, rows_before, envelope, now);
}

Added Batch::AddDecoded(const Record& record, ParallelDecoder& decoded, size_t i,
                        std::chrono::steady_clock::time_point now) {
  scratch_.clear();
  const size_t rows_before = rows.rows();
  decoded.TakeInto(i, rows, scratch_);
  return Hold(record, rows_before, decoded.envelope(), now);
}

Added Batch::Hold(const Record& record, size_t rows_before, contract::Envelope envelope,
                  std::chrono::steady_clock::time_point now) {
  const uint64_t seq = record.sequence;
  if (cap_.max() != 0) {
    const size_t partitions_before = cap_.partitions();
    capped_.clear();
    for (size_t r = rows_before; r < rows.rows(); ++r) {
      if (!cap_.Take(rows, r)) capped_.push_back(static_cast<uint32_t>(r - rows_before));
    }
    // Into a batch that holds rows already, a message that does not fit is not taken at all: in
    // the next batch it may fit whole, and ordinary traffic that spans more partitions than the
    // cap over a batch's interval then costs a smaller batch, never an event.
    if (!capped_.empty() && partitions_before > 0) {
      cap_.RollBack(partitions_before);
      rows.TruncateRows(rows_before);
      turned_away_ = true;
      return Added{false, {}};
    }
    if (!capped_.empty()) RejectCapped(record.payload, rows_before, envelope);
  }
  const size_t added = rows.rows() - rows_before;
  if (held.empty()) {
    first_buffered_ = now;
    first_buffered_unix_ns_ = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                  std::chrono::system_clock::now().time_since_epoch())
                                  .count();
  }
  if (seq != 0) {
    if (first_sequence_ == 0 || seq < first_sequence_) first_sequence_ = seq;
    if (seq > last_sequence_) last_sequence_ = seq;
    sequences_.push_back(seq);
  }
  // Decoded, the payload is needed no more (a reject carries its own copy of its bytes) and the
  // batch keeps none of it: the caller frees it (drain/message_acks.h), so a batch holds its
  // rows, not its rows and their wire bytes too (250,000 ledger rows: ~140 MiB of payloads, held
  // by the batch that fills and the one that settles). bytes() still counts the payload, so
  // batches close where they always did.
  message_bytes_ += record.payload.size();
  const size_t first_reject = rejects.size();
  const uint32_t index = static_cast<uint32_t>(held.size());
  for (contract::Reject& r : scratch_) rejects.push_back({index, std::move(r)});
  held.push_back({std::string(record.subject), static_cast<uint32_t>(added),
                  static_cast<uint32_t>(scratch_.size()), false, seq});
  return Added{true, std::span<const HeldReject>(rejects.data() + first_reject,
                                                 rejects.size() - first_reject)};
}

// The message's rows are its readable events in event order, so row k is the k-th event index
// that no reject of the message names; under kEvent the one row is the whole message (index -1).
void Batch::RejectCapped(std::string_view message, size_t rows_before,
                         contract::Envelope envelope) {
  std::vector<std::string_view> events;
  if (envelope == contract::Envelope::kBatch) (void)decoder_.BatchEvents(message, events);
  std::vector<int> unreadable;
  for (const contract::Reject& r : scratch_) unreadable.push_back(r.index);
  std::sort(unreadable.begin(), unreadable.end());
  const std::string error =
      "the flush already holds " + std::to_string(cap_.max()) +
      " partitions (date and app), the most --max-partitions-per-flush allows; this event's "
      "would be one more";
  size_t next_capped = 0;
  int event = 0;
  auto skip = unreadable.begin();
  for (size_t k = 0; k < rows.rows() - rows_before && next_capped < capped_.size(); ++k, ++event) {
    while (skip != unreadable.end() && *skip == event) ++skip, ++event;
    if (capped_[next_capped] != k) continue;
    ++next_capped;
    if (envelope == contract::Envelope::kEvent) {
      scratch_.push_back(contract::Reject{contract::RejectReason::kTooManyPartitions, error, -1,
                                          std::string(message)});
    } else {
      const std::string_view bytes =
          static_cast<size_t>(event) < events.size() ? events[event] : std::string_view();
      scratch_.push_back(
          contract::Reject{contract::RejectReason::kTooManyPartitions, error, event,
                           std::string(bytes)});
    }
  }
  std::stable_sort(scratch_.begin(), scratch_.end(),
                   [](const contract::Reject& a, const contract::Reject& b) {
                     return a.index < b.index;
                   });
  // The kept rows close up behind the first refused one, in order.
  row::RowBuffer kept(rows.table());
  size_t k = 0;
  for (uint32_t capped : capped_) {
    if (capped > k) kept.AppendRows(rows, rows_before + k, capped - k);
    k = capped + 1;
  }
  const size_t message_rows = rows.rows() - rows_before;
  if (message_rows > k) kept.AppendRows(rows, rows_before + k, message_rows - k);
  rows.TruncateRows(rows_before);
  rows.AppendRows(kept, 0, kept.rows());
}

size_t Batch::DropCommitted(const table::CommittedPositions& committed) {
  auto is_committed = [&](uint64_t seq) { return committed.Holds(table::Position{seq, {}}); };
  std::vector<bool> dropped(held.size(), false);
  size_t count = 0;
  for (size_t i = 0; i < held.size(); ++i) {
    if (!held[i].settled && is_committed(held[i].sequence)) dropped[i] = true, ++count;
  }
  if (count == 0) return 0;
  // A message's rows are consecutive, in the order the messages were held: the kept ones close
  // up, in order.
  row::RowBuffer kept(rows.table());
  size_t row = 0;
  for (size_t i = 0; i < held.size(); ++i) {
    if (!dropped[i] && held[i].rows > 0) kept.AppendRows(rows, row, held[i].rows);
    row += held[i].rows;
    if (dropped[i]) held[i].rows = held[i].rejects = 0;
  }
  rows.Clear();
  rows.AppendRows(kept, 0, kept.rows());
  std::erase_if(rejects, [&](const HeldReject& r) { return dropped[r.message]; });
  std::erase_if(sequences_, is_committed);
  first_sequence_ = last_sequence_ = 0;
  for (uint64_t seq : sequences_) {
    if (first_sequence_ == 0 || seq < first_sequence_) first_sequence_ = seq;
    if (seq > last_sequence_) last_sequence_ = seq;
  }
  return count;
}

void Batch::Clear() {
  acks_->Clear();
  held.clear();
  rejects.clear();
  rows.Clear();
  cap_.Clear();
  turned_away_ = false;
  message_bytes_ = 0;
  first_sequence_ = last_sequence_ = 0;
  sequences_.clear();
  first_buffered_unix_ns_ = 0;
}

void LogRejects(const Batch& batch, Logger& log) {
  if (batch.rejects.empty()) return;
  uint64_t by_reason[4] = {};
  std::string sample;
  for (size_t i = 0; i < batch.rejects.size(); ++i) {
    const HeldReject& r = batch.rejects[i];
    ++by_reason[std::min<size_t>(static_cast<size_t>(r.reject.reason), 3)];
    if (i >= kRejectSample) continue;
    const Held& held = batch.held[r.message];
    if (!sample.empty()) sample += "; ";
    sample += fmt::format("seq {} ({}): {}", held.sequence, held.subject,
                          r.reject.ToString());
  }
  std::string reasons;
  for (size_t reason = 0; reason < 4; ++reason) {
    if (by_reason[reason] == 0) continue;
    if (!reasons.empty()) reasons += ' ';
    reasons += fmt::format(
        "{}={}", contract::ReasonName(static_cast<contract::RejectReason>(reason)),
        by_reason[reason]);
  }
  log.Error("unreadable records in this batch; dead-lettering them",
            {{"records", static_cast<uint64_t>(batch.rejects.size())},
             {"by_reason", reasons},
             {"first_seq", batch.first_sequence()},
             {"last_seq", batch.last_sequence()},
             {"sample", sample}});
}

}  // namespace sinkd::drain
