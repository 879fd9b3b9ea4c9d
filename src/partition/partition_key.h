// Internal to partition/ and its tests: a row's partition (its UTC day, then the value of each
// partition column in table order) and the one table that numbers distinct partitions, shared by
// PartitionRows (which numbers every row's partition of a whole batch) and PartitionCap (which
// counts them as rows are added). One hash and one probe sequence, so the two cannot disagree on
// what "the same partition" is.
// Threads: KeyIds is one thread at a time; the rest are pure.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string_view>
#include <tuple>
#include <vector>

#include "partition/civil_date.h"
#include "row/row_buffer.h"

namespace sinkd::partition::internal {

// The partition a row belongs to, as views into the batch (valid while the batch's buffers are).
struct KeyView {
  int64_t day = 0;
  std::vector<std::string_view> values;
  bool operator<(const KeyView& other) const {
    return std::tie(day, values) < std::tie(other.day, other.values);
  }
  bool operator==(const KeyView& other) const = default;
};

// Fills `key` (whose values are already sized to `columns`) with row r's partition.
inline void ReadKey(const row::RowBuffer& batch, const std::vector<int>& columns, size_t r,
                    KeyView& key) {
  key.day = DayOf(batch.TimeMicros(r));
  for (size_t c = 0; c < columns.size(); ++c) {
    key.values[c] = batch.column(columns[c]).strings.at(r);
  }
}

inline uint64_t HashOf(const KeyView& key) {
  uint64_t h = static_cast<uint64_t>(key.day) * 0x9E3779B97F4A7C15ull;
  for (std::string_view v : key.values) {
    h = (h ^ std::hash<std::string_view>()(v)) * 0x9E3779B97F4A7C15ull;
  }
  return h ^ (h >> 29);
}

// Numbers distinct keys in the order they are first seen, through an open-addressing table
// (linear probing, at most half full). Why not a std::map: a batch has tens to hundreds of keys
// but every row looks one up, and the map's comparisons (a day, then vectors of views) cost ~75 ns
// a row, on one thread before the flush's encode could start (BENCHMARKS.md, "Issue 10, sixth
// pass").
// `Stored` is what the table keeps of a key: KeyView itself while the batch's buffers stay put,
// or an owning copy (PartitionCap, whose batch grows between lookups), constructible from a
// KeyView, with `bool Matches(const Stored&, const KeyView&)` found by argument-dependent lookup.
template <typename Stored>
class KeyIds {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  KeyIds() : slots_(64, 0) {}

  // The id of `key` (whose hash is `hash`), or kNone when it was never inserted.
  uint32_t Find(const KeyView& key, uint64_t hash) const {
    const size_t mask = slots_.size() - 1;
    for (size_t at = hash & mask; slots_[at] != 0; at = (at + 1) & mask) {
      const uint32_t id = slots_[at] - 1;
      if (hashes_[id] == hash && Matches(keys_[id], key)) return id;
    }
    return kNone;
  }

  // Inserts `key`, which Find did not find, and returns its id.
  uint32_t Insert(const KeyView& key, uint64_t hash) {
    const uint32_t id = static_cast<uint32_t>(keys_.size());
    keys_.push_back(Stored(key));
    hashes_.push_back(hash);
    if (keys_.size() * 2 > slots_.size()) {
      slots_.assign(slots_.size() * 2, 0);
      for (uint32_t k = 0; k < keys_.size(); ++k) Slot(hashes_[k], k);
    } else {
      Slot(hash, id);
    }
    return id;
  }

  uint32_t IdOf(const KeyView& key) {
    const uint64_t hash = HashOf(key);
    const uint32_t id = Find(key, hash);
    return id != kNone ? id : Insert(key, hash);
  }

  // Forgets every key inserted after the first `n` (their ids are then free again).
  void Truncate(size_t n) {
    if (n >= keys_.size()) return;
    keys_.erase(keys_.begin() + static_cast<std::ptrdiff_t>(n), keys_.end());
    hashes_.resize(n);
    std::fill(slots_.begin(), slots_.end(), 0);
    for (uint32_t k = 0; k < keys_.size(); ++k) Slot(hashes_[k], k);
  }

  size_t size() const { return keys_.size(); }
  const std::vector<Stored>& keys() const { return keys_; }

 private:
  void Slot(uint64_t hash, uint32_t id) {
    const size_t mask = slots_.size() - 1;
    size_t at = hash & mask;
    while (slots_[at] != 0) at = (at + 1) & mask;
    slots_[at] = id + 1;
  }

  std::vector<Stored> keys_;      // by id
  std::vector<uint64_t> hashes_;  // by id
  std::vector<uint32_t> slots_;   // id + 1; 0 = empty; a power of two long
};

inline bool Matches(const KeyView& stored, const KeyView& key) { return stored == key; }

}  // namespace sinkd::partition::internal
