#include "drain/parallel_decoder.h"

#include <algorithm>
#include <utility>

namespace sinkd::drain {

ParallelDecoder::ParallelDecoder(WorkPool& pool) : pool_(pool), slots_(pool.threads()) {}

void ParallelDecoder::Decode(std::span<const std::string_view> payloads,
                             contract::Envelope envelope) {
  for (Slot& slot : slots_) {
    slot.rows.Clear();
    slot.rejects.clear();
  }
  decoded_.assign(payloads.size(), Decoded{});
  envelope_ = envelope;
  // Each payload goes to whichever slot is free; its rows land at the end of that slot's batch,
  // and decoded_ remembers where, so the order of taking never depends on the order of decoding.
  pool_.ParallelFor(payloads.size(), [&](size_t i, size_t s) {
    Slot& slot = slots_[s];
    Decoded& d = decoded_[i];
    d.slot = static_cast<uint32_t>(s);
    d.first_row = slot.rows.rows();
    d.first_reject = slot.rejects.size();
    d.rows = slot.decoder.Decode(envelope, payloads[i], slot.rows, slot.rejects);
    d.rejects = slot.rejects.size() - d.first_reject;
  });
}

size_t ParallelDecoder::InPlace(size_t run) const {
  return std::max<size_t>(1, run / pool_.threads());
}

void ParallelDecoder::DecodeAlongside(std::span<const std::string_view> payloads,
                                      contract::Envelope envelope,
                                      const std::function<void()>& alongside) {
  pool_.ParallelFor(2, [&](size_t part, size_t) {
    if (part == 0) {
      alongside();
    } else {
      Decode(payloads, envelope);
    }
  });
}

size_t ParallelDecoder::TakeInto(size_t i, row::RowBuffer& rows,
                                 std::vector<contract::Reject>& rejects) {
  const Decoded& d = decoded_[i];
  Slot& slot = slots_[d.slot];
  rows.AppendRows(slot.rows, d.first_row, d.rows);
  for (size_t r = d.first_reject; r < d.first_reject + d.rejects; ++r) {
    rejects.push_back(std::move(slot.rejects[r]));
  }
  return d.rows;
}

}  // namespace sinkd::drain
