// PartitionCap counts the distinct partitions of a batch's rows (the partitions PartitionRows
// gives: UTC date, then each partition column) as rows are added, up to a cap, so that a flush
// never writes more Parts than that. Why: a publisher controls `app` and `time` (any day from 0001
// to 9999), so one 250,000-event message could otherwise make a 250,000-Part flush: as many file
// creations, fsyncs or uploads, and footers, for one batch. What is refused and where it goes is
// the caller's (drain/batch.h dead-letters the events, an outbox lake sink splits its delivery).
// Keys are kept as copies (at most the cap of them), since a batch's buffers move as it grows.
// Threads: one thread at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "partition/partition_key.h"
#include "row/column_table.h"
#include "row/row_buffer.h"

namespace sinkd::partition {

// The default of --max-partitions-per-flush. A ledger batch spans a few hundred partitions at
// most (one per app and day: 200 on the benchmark's busiest line), so the cap is never reached by
// ordinary traffic, and 1,000 Parts is still a flush that lands in seconds.
inline constexpr size_t kDefaultMaxPartitionsPerFlush = 1'000;

class PartitionCap {
 public:
  // Rows of `table` (borrowed: constexpr data). `max`: the partitions a batch may hold; 0 = no
  // cap (every row is taken and nothing is counted).
  PartitionCap(const row::ColumnTable& table, size_t max);

  // Counts row `row` of `batch` and returns true when its partition is counted already or there
  // is room for one more; returns false, counting nothing, when it would be partition max + 1.
  // REQUIRES: batch.table() is the table given at construction.
  bool Take(const row::RowBuffer& batch, size_t row);

  size_t max() const { return max_; }
  size_t partitions() const { return ids_.size(); }
  bool full() const { return max_ != 0 && ids_.size() >= max_; }
  // Forgets every partition counted after the first `partitions` (a message taken back whole).
  void RollBack(size_t partitions) { ids_.Truncate(partitions); }
  void Clear() { ids_.Truncate(0); }

  struct OwnedKey {
    explicit OwnedKey(const internal::KeyView& key)
        : day(key.day), values(key.values.begin(), key.values.end()) {}
    int64_t day;
    std::vector<std::string> values;
  };

 private:
  size_t max_;
  std::vector<int> columns_;
  internal::KeyView key_;  // scratch: the row being looked at
  internal::KeyIds<OwnedKey> ids_;
  uint32_t last_ = internal::KeyIds<OwnedKey>::kNone;  // the partition of the last row taken
};

// Inline: it runs once or twice for every row a batch takes.
inline bool Matches(const PartitionCap::OwnedKey& stored, const internal::KeyView& key) {
  if (stored.day != key.day || stored.values.size() != key.values.size()) return false;
  for (size_t i = 0; i < key.values.size(); ++i) {
    if (stored.values[i] != key.values[i]) return false;
  }
  return true;
}

}  // namespace sinkd::partition
