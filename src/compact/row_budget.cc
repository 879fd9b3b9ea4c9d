#include "compact/row_budget.h"

#include <algorithm>
#include <utility>

namespace sinkd::compact {

RowBudget::Lease& RowBudget::Lease::operator=(Lease&& other) noexcept {
  if (this != &other) {
    Release();
    budget_ = std::exchange(other.budget_, nullptr);
    rows_ = std::exchange(other.rows_, 0);
  }
  return *this;
}

void RowBudget::Lease::Release() {
  if (budget_ != nullptr) budget_->Give(rows_);
  budget_ = nullptr;
  rows_ = 0;
}

RowBudget::Lease RowBudget::Acquire(uint64_t rows) {
  rows = std::min(rows, capacity_);
  std::unique_lock<std::mutex> lock(mu_);
  freed_.wait(lock, [&] { return leases_ == 0 || held_ + rows <= capacity_; });
  held_ += rows;
  ++leases_;
  peak_leases_ = std::max(peak_leases_, leases_);
  peak_rows_ = std::max(peak_rows_, held_);
  Lease lease;
  lease.budget_ = this;
  lease.rows_ = rows;
  return lease;
}

void RowBudget::Give(uint64_t rows) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    held_ -= rows;
    --leases_;
  }
  freed_.notify_all();
}

uint64_t RowBudget::peak_leases() const {
  std::lock_guard<std::mutex> lock(mu_);
  return peak_leases_;
}

uint64_t RowBudget::peak_rows() const {
  std::lock_guard<std::mutex> lock(mu_);
  return peak_rows_;
}

}  // namespace sinkd::compact
