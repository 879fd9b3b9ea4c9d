// The Avro binary encoding of one datum against a schema node (Avro specification, "Binary
// Encoding"): int and long as zigzag varints, float and double little-endian, bytes and string as
// a long length then the bytes, records field after field, arrays and maps as blocks of items
// ended by a zero count, unions as the branch index then the value. Internal to src/avro.
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
