#include "compact/policy.h"

#include <algorithm>

namespace sinkd::compact {

namespace {

constexpr uint64_t kPerInputBudgetCap = uint64_t{16} << 20;

// Splits `chosen` (key order) into merges within the read budget. A last piece of one object is
// kept only when `lone_ok` (a closed date's single Part: Merge rewrites it only when it holds
// copies or is not a sorted sinkd Part, and leaves it as it is otherwise).
std::vector<std::vector<size_t>> Chunk(const std::vector<Candidate>& live,
                                       const std::vector<size_t>& chosen, bool lone_ok,
                                       uint64_t target_bytes) {
  std::vector<std::vector<size_t>> merges;
  std::vector<size_t> current;
  uint64_t budget = 0, total = 0;
  for (size_t i : chosen) {
    const uint64_t cost = std::min(live[i].size, kPerInputBudgetCap);
    if (!current.empty() && (current.size() >= kMaxMergeInputs || budget + cost > kMergeReadBudget ||
                             total + live[i].size > 2 * target_bytes)) {
      merges.push_back(std::move(current));
      current.clear();
      budget = total = 0;
    }
    current.push_back(i);
    budget += cost;
    total += live[i].size;
  }
  if (!current.empty()) {
    if (current.size() >= 2 || lone_ok) {
      merges.push_back(std::move(current));
    } else if (!merges.empty()) {
      // One left over: it joins the previous merge rather than wait alone (slightly over budget).
      merges.back().push_back(current[0]);
    }
  }
  return merges;
}

}  // namespace

bool IsFull(uint64_t size, uint64_t target_bytes) { return size >= target_bytes / 2; }

std::vector<std::vector<size_t>> PlanMerges(const std::vector<Candidate>& live,
                                            const PolicyInputs& policy) {
  std::vector<size_t> parts, outputs, below_full;
  for (size_t i = 0; i < live.size(); ++i) {
    if (IsFull(live[i].size, policy.target_bytes)) continue;
    below_full.push_back(i);
    (live[i].output ? outputs : parts).push_back(i);
  }
  if (policy.closed) {
    if (below_full.empty()) return {};
    if (below_full.size() == 1 && live[below_full[0]].output) return {};
    return Chunk(live, below_full, /*lone_ok=*/true, policy.target_bytes);
  }
  std::vector<std::vector<size_t>> merges;
  if (parts.size() >= policy.min_parts) merges = Chunk(live, parts, false, policy.target_bytes);
  const uint64_t backlog = uint64_t{policy.min_parts} * policy.min_parts;
  if (outputs.size() >= backlog) {
    for (auto& merge : Chunk(live, outputs, false, policy.target_bytes)) {
      merges.push_back(std::move(merge));
    }
  }
  return merges;
}

}  // namespace sinkd::compact
