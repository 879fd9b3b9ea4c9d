// RowBudget shares a bound on decoded input rows between merges running at once (the Compactor's
// lanes, compact/compactor.h): a merge takes a Lease for its rows before it decodes any, and
// waits while the merges running beside it hold too many for its own to fit. A request larger
// than the whole budget is cut to the budget, so a large merge runs alone rather than never: the
// budget bounds what merges hold together, never what one merge may hold (MergeSpec's
// max_rows_loaded does that).
// Why: one merge of a large partition holds hundreds of MiB decoded (issue 28: 333 MiB for
// 250,000 ledger rows). Two merges running at once must not hold twice that, and a budget in
// rows, known from the inputs' footers, follows what a merge decodes where the listing's sizes
// (compressed) would not.
// Threads: Acquire and Lease's release may be called from any thread.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <mutex>

namespace sinkd::compact {

class RowBudget {
 public:
  // REQUIRES: rows >= 1.
  explicit RowBudget(uint64_t rows) : capacity_(rows) {}
  RowBudget(const RowBudget&) = delete;
  RowBudget& operator=(const RowBudget&) = delete;

  class Lease {
   public:
    Lease() = default;
    Lease(Lease&& other) noexcept { *this = std::move(other); }
    Lease& operator=(Lease&& other) noexcept;
    ~Lease() { Release(); }
    void Release();
    uint64_t rows() const { return rows_; }

   private:
    friend class RowBudget;
    RowBudget* budget_ = nullptr;
    uint64_t rows_ = 0;
  };

  // Blocks until min(rows, capacity) rows fit beside the leases held, then holds them until the
  // lease is released. Never blocks when no lease is held.
  Lease Acquire(uint64_t rows);

  uint64_t capacity() const { return capacity_; }
  // The most leases held at once since construction, and the most rows they held together.
  uint64_t peak_leases() const;
  uint64_t peak_rows() const;

 private:
  void Give(uint64_t rows);
  const uint64_t capacity_;
  mutable std::mutex mu_;
  std::condition_variable freed_;
  uint64_t held_ = 0, leases_ = 0;
  uint64_t peak_leases_ = 0, peak_rows_ = 0;
};

}  // namespace sinkd::compact
