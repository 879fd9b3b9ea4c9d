// Dictionary encoding (Encodings.md "Dictionary Encoding"; parquet-format.md §3.4):
//   dictionary page  the distinct values in first-seen order, PLAIN-encoded (PLAIN = 0);
//   data page        1 byte bit width, then the entry indices as RLE / bit-packed hybrid runs
//                    with no length prefix (RLE_DICTIONARY = 8).
// StringDictionary and FixedDictionary<T> assign the indices with an open-addressing hash table
// (linear probing, at most half full), append each new value's PLAIN bytes to an arena as it
// arrives (so the dictionary page is ready when the chunk ends), and refuse to grow past the
// limits given to Reset, which is how a chunk falls back to PLAIN early.
// Ownership: each dictionary owns its table and arena; Reset keeps their memory, so a writer
// reuses one dictionary across row groups without reallocating.
// Threads: one thread at a time.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include <xxhash.h>

#include "parquet/byte_buffer.h"
#include "parquet/plain_encoder.h"

namespace sinkd::parquet {

// Returned by Insert when the value is new and would take the dictionary past its limits.
inline constexpr uint32_t kDictionaryFull = UINT32_MAX;

// The bit width of a data page's indices: the bits `dictionary_size` needs (at least 1), with
// 3 rounded up to 4 and 5-7 to 8, which zstd compresses better (numbers in the .cc).
int DictionaryIndexWidth(uint32_t dictionary_size);

// Appends a data page's values: the bit width byte, then `indices` as hybrid runs.
// REQUIRES: every index < dictionary_size.
void EncodeDictionaryIndices(std::span<const uint32_t> indices, uint32_t dictionary_size,
                             ByteBuffer& out);

class StringDictionary {
 public:
  StringDictionary();

  // Empties the dictionary for a new chunk that may hold at most `max_entries` distinct values
  // whose PLAIN bytes (4-byte length + bytes each) total at most `max_bytes`.
  void Reset(size_t max_entries, size_t max_bytes);

  // The index of `value`, added if new; kDictionaryFull if it is new and does not fit.
  uint32_t Insert(std::string_view value);

  uint32_t size() const { return static_cast<uint32_t>(starts_.size()); }
  // The dictionary page payload: every entry PLAIN-encoded, in index order.
  std::span<const uint8_t> plain() const { return arena_.span(); }
  std::string_view entry(uint32_t index) const;

 private:
  struct Slot {
    uint32_t hash_high;  // upper hash bits: rejects most mismatches without touching the arena
    uint32_t index;      // entry index + 1; 0 = empty
  };
  void Rehash(size_t capacity);

  std::vector<Slot> slots_;         // power-of-two size
  std::vector<uint64_t> hashes_;    // per entry, so growing never rehashes the bytes
  std::vector<uint32_t> starts_;    // per entry, offset of its bytes (after the length) in arena_
  ByteBuffer arena_;
  size_t max_entries_ = 0;
  size_t max_bytes_ = 0;
};

// Dictionary over a fixed-width type (int32, int64, double), keyed by the value's bit pattern:
// -0.0 and 0.0 are distinct entries, as they are distinct values.
template <typename T>
class FixedDictionary {
 public:
  using Key = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  static_assert(sizeof(T) == sizeof(Key));

  FixedDictionary() { slots_.resize(kInitialSlots); }

  void Reset(size_t max_entries) {
    max_entries_ = max_entries;
    entries_.clear();
    std::fill(slots_.begin(), slots_.end(), Slot{});
  }

  uint32_t Insert(T value) {
    Key key;
    std::memcpy(&key, &value, sizeof key);
    const size_t mask = slots_.size() - 1;
    for (size_t at = Hash(key); ; at = (at + 1) & mask) {
      Slot& slot = slots_[at];
      if (slot.index == 0) break;
      if (slot.key == key) return slot.index - 1;
    }
    if (entries_.size() >= max_entries_) return kDictionaryFull;
    if ((entries_.size() + 1) * 2 > slots_.size()) Rehash(slots_.size() * 2);
    entries_.push_back(value);
    Place(key, static_cast<uint32_t>(entries_.size()));
    return static_cast<uint32_t>(entries_.size() - 1);
  }

  uint32_t size() const { return static_cast<uint32_t>(entries_.size()); }
  std::span<const T> entries() const { return entries_; }

 private:
  static constexpr size_t kInitialSlots = 1024;
  struct Slot {
    Key key = 0;
    uint32_t index = 0;  // entry index + 1; 0 = empty
  };

  // Fibonacci hashing (the top bits of key × 2^64/φ): sequential keys such as ids and
  // timestamps spread over the whole table instead of filling one stretch of it.
  size_t Hash(Key key) const {
    return static_cast<size_t>((static_cast<uint64_t>(key) * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  void Place(Key key, uint32_t index_plus_one) {
    const size_t mask = slots_.size() - 1;
    size_t at = Hash(key);
    while (slots_[at].index != 0) at = (at + 1) & mask;
    slots_[at] = Slot{key, index_plus_one};
  }
  void Rehash(size_t capacity) {
    slots_.assign(capacity, Slot{});
    shift_ = 64 - std::countr_zero(capacity);
    for (size_t i = 0; i < entries_.size(); ++i) {
      Key key;
      std::memcpy(&key, &entries_[i], sizeof key);
      Place(key, static_cast<uint32_t>(i + 1));
    }
  }

  std::vector<Slot> slots_;
  int shift_ = 64 - std::countr_zero(kInitialSlots);
  std::vector<T> entries_;
  size_t max_entries_ = 0;
};

}  // namespace sinkd::parquet
