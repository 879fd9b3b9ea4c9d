#include "drain/batch.h"

#include "row/ledger_columns.h"

namespace sinkd::drain {

Batch::Batch() : rows(row::kLedgerColumns) {}

std::span<const HeldReject> Batch::Add(jetstream::Message message, uint64_t seq,
                                       contract::Envelope envelope,
                                       std::chrono::steady_clock::time_point now) {
  scratch_.clear();
  const size_t added = decoder_.Decode(envelope, message.data(), rows, scratch_);
  return Hold(std::move(message), seq, added, now);
}

std::span<const HeldReject> Batch::AddDecoded(jetstream::Message message, uint64_t seq,
                                              ParallelDecoder& decoded, size_t i,
                                              std::chrono::steady_clock::time_point now) {
  scratch_.clear();
  const size_t added = decoded.TakeInto(i, rows, scratch_);
  return Hold(std::move(message), seq, added, now);
}

std::span<const HeldReject> Batch::Hold(jetstream::Message message, uint64_t seq, size_t added,
                                        std::chrono::steady_clock::time_point now) {
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
  message_bytes_ += message.data().size();
  // Decoded, the payload is needed no more: a reject carries its own copy of its bytes, and
  // settling needs only the ack address. Freed now rather than at the ack, a batch holds its
  // rows, not its rows and their wire bytes too (250,000 ledger rows: ~140 MiB of payloads, held
  // by the batch that fills and the one that settles). bytes() still counts the payload, so
  // batches close where they always did.
  message.ReleasePayload();
  const size_t first_reject = rejects.size();
  const uint32_t index = static_cast<uint32_t>(held.size());
  for (contract::Reject& r : scratch_) rejects.push_back({index, std::move(r)});
  held.push_back({std::move(message), static_cast<uint32_t>(added),
                  static_cast<uint32_t>(scratch_.size()), false});
  return std::span<const HeldReject>(rejects.data() + first_reject, rejects.size() - first_reject);
}

void Batch::Clear() {
  held.clear();
  rejects.clear();
  rows.Clear();
  message_bytes_ = 0;
  first_sequence_ = last_sequence_ = 0;
  sequences_.clear();
  first_buffered_unix_ns_ = 0;
}

}  // namespace sinkd::drain
