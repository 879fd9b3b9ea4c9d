// ParallelDecoder decodes a run of messages on a WorkPool, each message into rows and rejects of
// its own, so that the caller can then move them into batches one message at a time, in order
// (Batch::AddDecoded). Why: a batch's decode was one thread's work, and while nothing else was
// running — a drain's or an import's first batch, a fetch that arrives while no batch settles —
// the other core sat idle. Moving rows costs a copy of each row's bytes (an import's CPU rose ~8%
// when every message went through it), so callers use it only while the cores would idle.
// Determinism: what a message decodes to does not depend on the thread that decoded it, nor on
// its neighbours, so a batch built from a run holds the same rows, rejects and boundaries as one
// built by decoding the messages one by one on one thread, at any thread count.
// Ownership: borrows the pool; owns one WireDecoder and scratch batch per pool slot. Threads: one
// caller at a time (the work inside Decode runs on the pool).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>
#include <vector>

#include "base/work_pool.h"
#include "contract/reject.h"
#include "contract/wire_decoder.h"
#include "row/ledger_columns.h"
#include "row/row_buffer.h"

namespace sinkd::drain {

class ParallelDecoder {
 public:
  explicit ParallelDecoder(WorkPool& pool);

  // What callers give one Decode: this many messages, or fewer once they hold kRunBytes. Enough
  // work to share (a ledger message of 250 events decodes in ~0.2 ms), little enough scratch.
  static constexpr size_t kRunMessages = 64;
  static constexpr size_t kRunBytes = size_t{8} << 20;

  // Decodes every payload; what an earlier Decode produced and was not taken is dropped.
  // The payloads need not outlive the call (each reject keeps its own copy of its bytes).
  void Decode(std::span<const std::string_view> payloads, contract::Envelope envelope);

  // How a caller shares out a run of `run` messages: it decodes the first InPlace(run) straight
  // into its batch, alongside a Decode of the rest (DecodeAlongside), and then takes the rest.
  // Decoding all of a run here and then moving every row into the batch kept the caller's
  // thread busy moving (a copy of each row into fresh memory) while the pool's other threads
  // waited. 1/threads of the run, at least one message.
  size_t InPlace(size_t run) const;
  // Decode(payloads, envelope) on the pool while `alongside` runs on one of its threads (the
  // caller's or a worker's; the other workers help with the decode). Returns when both are done.
  void DecodeAlongside(std::span<const std::string_view> payloads, contract::Envelope envelope,
                       const std::function<void()>& alongside);

  // Adds a run of `n` messages to the caller's batch, in order: `add(i, decoded, index)` adds
  // message i, decoding it itself when `decoded` is null, or taking payload `index` of `decoded`,
  // and returns false to stop the run there. When `may_share` (the cores would otherwise idle)
  // and there is something to share, the first InPlace(n) are added alongside a Decode of the
  // rest (`payload_of(i)`: message i's bytes), which are then taken from here. The one place the
  // drain and the import share out a run.
  template <typename PayloadOf, typename Add>
  void AddRun(size_t n, bool may_share, contract::Envelope envelope, const PayloadOf& payload_of,
              const Add& add) {
    const bool share = may_share && pool_.threads() > 1 && n > 1;
    const size_t in_place = share ? InPlace(n) : n;
    bool going = true;
    const auto add_in_place = [&] {
      for (size_t i = 0; i < in_place && going; ++i) going = add(i, nullptr, size_t{0});
    };
    if (share) {
      payloads_.clear();
      for (size_t i = in_place; i < n; ++i) payloads_.push_back(payload_of(i));
      DecodeAlongside(payloads_, envelope, add_in_place);
    } else {
      add_in_place();
    }
    for (size_t i = in_place; i < n && going; ++i) going = add(i, this, i - in_place);
  }

  // How many payloads the last Decode was given, and as what.
  size_t size() const { return decoded_.size(); }
  contract::Envelope envelope() const { return envelope_; }
  // Appends payload i's rows to `rows` and its rejects to `rejects` (moved: once per payload);
  // returns the number of rows appended.
  size_t TakeInto(size_t i, row::RowBuffer& rows, std::vector<contract::Reject>& rejects);

 private:
  struct Slot {
    contract::WireDecoder decoder;
    row::RowBuffer rows{row::kLedgerColumns};
    std::vector<contract::Reject> rejects;
  };
  struct Decoded {
    uint32_t slot = 0;
    size_t first_row = 0, rows = 0;
    size_t first_reject = 0, rejects = 0;
  };

  WorkPool& pool_;
  std::vector<Slot> slots_;  // one per pool slot
  std::vector<Decoded> decoded_;
  contract::Envelope envelope_ = contract::Envelope::kBatch;
  std::vector<std::string_view> payloads_;  // AddRun's shared part, for Decode
};

}  // namespace sinkd::drain
