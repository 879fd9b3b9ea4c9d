// Avro Values as JSON in the convention of tools/avro-dump.py and tools/avro-write.py (bytes and
// fixed as {"hex": "..."}, records and maps as objects), so a test compares what python3-avro
// read or wrote with what sinkd's reader built. Schema-aware: the Value alone does not tell bytes
// from a string.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "avro/schema.h"
#include "avro/value.h"
#include "base/sha256.h"

namespace sinkd::avro {

inline nlohmann::json HexJson(const std::string& bytes) {
  return nlohmann::json{{"hex", HexEncode(bytes)}};
}

inline nlohmann::json ToJson(const Schema& schema, size_t index, const Value& v) {
  const Node& n = schema.nodes()[index];
  switch (n.type) {
    case Type::kNull:
      return nullptr;
    case Type::kBoolean:
      return v.boolean();
    case Type::kInt:
    case Type::kLong:
      return v.long_value();
    case Type::kFloat:
    case Type::kDouble:
      return v.double_value();
    case Type::kString:
    case Type::kEnum:
      return v.string();
    case Type::kBytes:
    case Type::kFixed:
      return HexJson(v.string());
    case Type::kArray: {
      nlohmann::json out = nlohmann::json::array();
      for (const Value& item : v.array().items) out.push_back(ToJson(schema, n.items, item));
      return out;
    }
    case Type::kMap: {
      nlohmann::json out = nlohmann::json::object();
      for (const MapEntry& e : v.map().entries) out[e.key] = ToJson(schema, n.items, e.value);
      return out;
    }
    case Type::kRecord: {
      nlohmann::json out = nlohmann::json::object();
      for (const Field& f : v.record().fields) {
        for (const Node::Field& nf : n.fields) {
          if (nf.name == f.name) out[f.name] = ToJson(schema, nf.node, f.value);
        }
      }
      return out;
    }
    case Type::kUnion:
      if (v.is_null()) return nullptr;
      for (size_t b : n.branches) {
        if (schema.nodes()[b].type != Type::kNull) return ToJson(schema, b, v);
      }
      return nullptr;
  }
  return nullptr;
}

inline nlohmann::json ToJson(const Schema& schema, const Value& v) {
  return ToJson(schema, schema.root_index(), v);
}

}  // namespace sinkd::avro
