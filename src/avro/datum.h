// The Avro binary encoding of one datum against a schema node (Avro specification, "Binary
// Encoding"): int and long as zigzag varints, float and double little-endian, bytes and string as
// a long length then the bytes, records field after field, arrays and maps as blocks of items
// ended by a zero count, unions as the branch index then the value. DatumReader's piecewise reads
// serve callers of avro::ReadContainerEach (container.h); the rest is internal to src/avro.
// Threads: pure functions over their arguments.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "avro/schema.h"
#include "avro/value.h"
#include "base/result.h"

namespace sinkd::avro {

void AppendLong(int64_t n, std::string& out);  // zigzag varint

// Appends the encoding of `value` as `schema.nodes()[node]`. Returns Refuse naming the path of
// the first value that does not fit (a missing record field that is not a nullable union, an int
// out of range, a string that is not UTF-8, an unknown enum symbol, a fixed of the wrong size, a
// value no union branch takes); `out` then holds a partial datum the caller must discard.
Status EncodeDatum(const Schema& schema, size_t node, const Value& value, std::string& out);

// Reads datums from a byte range, bounded by it: nothing is read past its end, no count is
// trusted beyond what the remaining bytes could hold, and at most `max_values` values are built
// in all (a guard against counts of zero-width items).
class DatumReader {
 public:
  DatumReader(std::string_view bytes, uint64_t max_values)
      : bytes_(bytes), max_values_(max_values) {}

  // Decodes one datum. Returns Reject naming what is corrupt: a varint longer than 10 bytes, a
  // length or count past the end or negative, a union index out of range, an enum index out of
  // range, a string that is not UTF-8, nesting past 64 levels, more values than allowed.
  Result<Value> Read(const Schema& schema, size_t node);

  Result<int64_t> ReadLong();
  // The next `length` bytes as they are; Reject when fewer remain.
  Result<std::string> ReadRaw(uint64_t length);

  // Reading a datum piece by piece, for a caller that walks the schema itself and keeps only what
  // it needs (iceberg's manifest reader) instead of building a Value of every piece. The same
  // bounds and the same Reject messages as Read.
  // A bytes or string datum (length, then the bytes), viewing the reader's bytes; `utf8`: Reject
  // one that is not UTF-8.
  Result<std::string_view> ReadBytes(bool utf8);
  // A union's branch index, checked against `union_node`'s branches.
  Result<size_t> ReadBranch(const Node& union_node);
  // The item count of the next block of an array or map of `items` (0: the end), bounded by the
  // remaining bytes and the value limit.
  Result<int64_t> ReadBlockCount(const Node& items);
  // Reads one datum of `node` and drops it.
  Status Skip(const Schema& schema, size_t node);
  size_t remaining() const { return bytes_.size() - pos_; }
  uint64_t values() const { return values_; }  // built so far

 private:
  Result<Value> ReadNode(const Schema& schema, size_t node, int depth);
  Result<int64_t> ReadCount(const Node& items, int64_t& block_bytes);
  Status Count();

  std::string_view bytes_;
  size_t pos_ = 0;
  uint64_t max_values_;
  uint64_t values_ = 0;
};

}  // namespace sinkd::avro
