// A generic Thrift compact-protocol decoder: it turns footer and page-header bytes into a tree
// without knowing Parquet (the footer and page readers map the tree onto parquet.thrift, and the
// tests use it to check what the writer emitted with code that shares nothing with the writer's
// serialiser, thrift_compact_writer).
// Bounded for untrusted input: every length is checked against what is left, nesting of structs
// and lists is limited (kMaxThriftDepth), a list cannot claim more elements than it has bytes
// left, and what the decoded tree allocates is charged against a memory budget before it is
// allocated. The budget is what bounds memory: a decoded value is ~100 bytes whatever its encoding
// took, so one byte per list element (the least a list can claim) would otherwise turn the 64 MiB
// footer a reader accepts into ~6 GiB of values, on every compaction and verify pass.
// Threads: free functions and plain values.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"

namespace sinkd::parquet {

class ThriftStruct;

struct ThriftValue {
  enum class Kind { kBool, kInt, kDouble, kBinary, kList, kStruct } kind = Kind::kInt;
  bool b = false;
  int64_t i = 0;
  double d = 0;
  std::string bin;
  std::vector<ThriftValue> list;
  std::shared_ptr<ThriftStruct> fields;  // kStruct

  bool Has(int16_t id) const { return Find(id) != nullptr; }
  // Field `id` of a struct, or nullptr when absent.
  const ThriftValue* Find(int16_t id) const;
  // Field `id`, or an empty value (Kind::kInt, 0) when absent: for callers that checked Has().
  const ThriftValue& operator[](int16_t id) const;
  int64_t Int(int16_t id) const { return (*this)[id].i; }
  const std::string& Bin(int16_t id) const { return (*this)[id].bin; }
  const std::vector<ThriftValue>& List(int16_t id) const { return (*this)[id].list; }
};

// A struct's fields in ascending id order (the decoder refuses any other): appended as they are
// decoded and found by a short scan. A std::map cost an allocation per field, and footers are
// decoded once per Part a compaction reads (callgrind: the tree's allocations and frees were most
// of compaction's footer decoding, 12% of a merge of 400-row Parts).
class ThriftStruct {
 public:
  using Field = std::pair<int16_t, ThriftValue>;
  using const_iterator = std::vector<Field>::const_iterator;

  size_t size() const { return fields_.size(); }
  const_iterator begin() const { return fields_.begin(); }
  const_iterator end() const { return fields_.end(); }
  const_iterator find(int16_t id) const {
    for (auto it = fields_.begin(); it != fields_.end(); ++it) {
      if (it->first == id) return it;
      if (it->first > id) break;
    }
    return fields_.end();
  }
  size_t count(int16_t id) const { return find(id) != end() ? 1 : 0; }
  // REQUIRES: `id` above every id appended before.
  void Append(int16_t id, ThriftValue value) { fields_.emplace_back(id, std::move(value)); }

 private:
  std::vector<Field> fields_;
};

// Structs and lists nested deeper than this are refused (Parquet's own go 7 deep).
inline constexpr int kMaxThriftDepth = 32;

// What one decode may allocate for its tree, by default: 256 MiB. An honest footer decodes to ~50
// bytes per byte, ~190 KiB per row group of the 40-column ledger table, so ~1,400 row groups fit
// (170 million rows at the default row group size, far past a compaction output); a hostile
// footer is refused at the budget, before the memory is taken.
inline constexpr size_t kThriftMemoryBudget = size_t{256} << 20;

// Decodes one struct starting at bytes[0]; sets *consumed to its encoded length.
// Errors: Refuse("malformed thrift: …") on truncated or malformed input; Refuse("… more than N
// bytes of memory …") when the tree would take more than `memory_budget` bytes (nothing of that
// size is allocated).
Result<ThriftValue> DecodeThriftStruct(std::string_view bytes, size_t* consumed = nullptr,
                                       size_t memory_budget = kThriftMemoryBudget);

}  // namespace sinkd::parquet
