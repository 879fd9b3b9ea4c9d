// Schema is a parsed Avro schema (the Avro specification's JSON form) as the encoder and decoder
// walk it, plus the exact JSON text it was parsed from. The text is what a container's header
// carries, byte for byte, so every attribute sinkd does not interpret (Iceberg's field-id and
// element-id, logicalType, adjust-to-utc, doc, default) reaches readers unchanged.
// Supported: null, boolean, int, long, float, double, bytes, string, record (and error), enum,
// array, map, fixed, unions, named references to a type defined earlier (recursion included),
// namespaces. Not checked: defaults against their field types, aliases (kept in the text only).
// Threads: immutable once parsed, share freely.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace sinkd::avro {

enum class Type : uint8_t {
  kNull,
  kBoolean,
  kInt,
  kLong,
  kFloat,
  kDouble,
  kBytes,
  kString,
  kRecord,
  kEnum,
  kArray,
  kMap,
  kUnion,
  kFixed,
};

// One node of the schema graph; children are indices into Schema::nodes().
struct Node {
  Type type = Type::kNull;
  std::string name;  // full name of a record, enum or fixed
  struct Field {
    std::string name;
    size_t node = 0;
  };
  std::vector<Field> fields;         // record
  std::vector<std::string> symbols;  // enum
  std::vector<size_t> branches;      // union
  size_t items = 0;                  // array items, map values
  uint64_t size = 0;                 // fixed
  // Fewest bytes one datum of this node takes (0 for null, an empty record, …): the decoder
  // bounds an item count by it.
  uint64_t min_bytes = 0;
};

class Schema {
 public:
  // Parses `json`. Returns Reject naming the first problem: not JSON, an unknown type name, a
  // record without name or fields, duplicate field names or symbols, a union inside a union or
  // with two branches of one unnamed type, a fixed without a size, a name defined twice.
  static Result<Schema> Parse(std::string_view json);

  // The text given to Parse, unchanged.
  const std::string& json() const { return json_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  const Node& root() const { return nodes_[root_]; }
  size_t root_index() const { return root_; }

 private:
  std::string json_;
  std::vector<Node> nodes_;
  size_t root_ = 0;
  friend class SchemaParser;
};

}  // namespace sinkd::avro
