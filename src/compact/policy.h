// The policy: which objects of one partition merge now. Tiered, so that a byte is written at most
// three times over its life (by its flush, into a tier-1 output, into the closed date's output):
//   - "full" objects (at least half of target_bytes: a merge splits into outputs of about
//     target_bytes, never below half of it unless it is a merge's only output) never merge again;
//   - tier 0, the small Parts flushes wrote, merge once there are min_parts of them;
//   - tier 1, outputs below full, wait for the date to close; only a backlog of min_parts² of them
//     (flushes far more often than every five minutes) merges them while the date is open;
//   - once the partition's UTC date closed more than settle_ms ago, every object below full
//     merges (late Parts with each other and with the outputs below target), unless that is one
//     lone output already.
// A merge reads at most kMaxMergeInputs inputs, about kMergeReadBudget bytes of row groups at
// once (memory: one decoded row group per input, a few times its file bytes) and at most twice
// target_bytes in all (memory: 16 bytes per distinct id), so a backlog becomes several merges.
// Threads: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sinkd::compact {

struct Candidate {
  std::string key;
  uint64_t size = 0;
  bool output = false;  // a compaction output (tier 1) rather than a flush's Part (tier 0)
};

struct PolicyInputs {
  uint64_t target_bytes = 0;
  uint32_t min_parts = 0;
  bool closed = false;  // the partition's date ended more than settle ago
};

inline constexpr size_t kMaxMergeInputs = 512;
inline constexpr uint64_t kMergeReadBudget = uint64_t{64} << 20;  // Σ min(size, 16 MiB)

// The merges to run, each a list of indices into `live` (objects of one partition that no
// output supersedes), in key order. Deterministic: the same objects give the same merges.
std::vector<std::vector<size_t>> PlanMerges(const std::vector<Candidate>& live,
                                            const PolicyInputs& policy);

// Whether an object of `size` bytes is full: it never merges again.
bool IsFull(uint64_t size, uint64_t target_bytes);

}  // namespace sinkd::compact
