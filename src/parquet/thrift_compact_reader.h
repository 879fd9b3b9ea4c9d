// A generic Thrift compact-protocol decoder: it turns footer and page-header bytes into a tree
// without knowing Parquet (the footer and page readers map the tree onto parquet.thrift, and the
// tests use it to check what the writer emitted with code that shares nothing with the writer's
// serialiser, thrift_compact_writer).
// Bounded for untrusted input: every length is checked against what is left, nesting is limited
// (kMaxDepth), and a list cannot claim more elements than it has bytes left.
// Threads: free functions and plain values.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace sinkd::parquet {

struct ThriftValue;
using ThriftStruct = std::map<int16_t, ThriftValue>;

struct ThriftValue {
  enum class Kind { kBool, kInt, kDouble, kBinary, kList, kStruct } kind = Kind::kInt;
  bool b = false;
  int64_t i = 0;
  double d = 0;
  std::string bin;
  std::vector<ThriftValue> list;
  std::shared_ptr<ThriftStruct> fields;  // kStruct

  bool Has(int16_t id) const { return fields && fields->count(id); }
  // Field `id` of a struct, or nullptr when absent.
  const ThriftValue* Find(int16_t id) const;
  // Field `id`, or an empty value (Kind::kInt, 0) when absent: for callers that checked Has().
  const ThriftValue& operator[](int16_t id) const;
  int64_t Int(int16_t id) const { return (*this)[id].i; }
  const std::string& Bin(int16_t id) const { return (*this)[id].bin; }
  const std::vector<ThriftValue>& List(int16_t id) const { return (*this)[id].list; }
};

// Structs nested deeper than this are refused (Parquet's own go 5 deep).
inline constexpr int kMaxThriftDepth = 32;

// Decodes one struct starting at bytes[0]; sets *consumed to its encoded length.
// Errors: Refuse("malformed thrift: …") on truncated or malformed input.
Result<ThriftValue> DecodeThriftStruct(std::string_view bytes, size_t* consumed = nullptr);

}  // namespace sinkd::parquet
