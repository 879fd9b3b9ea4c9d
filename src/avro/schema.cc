#include "avro/schema.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

namespace sinkd::avro {

namespace {

using Json = nlohmann::json;

// Deeper nesting than any real schema (an Iceberg manifest nests 5 levels); bounds the recursion
// on hostile input.
constexpr int kMaxDepth = 64;

const std::map<std::string_view, Type>& Primitives() {
  static const std::map<std::string_view, Type> kPrimitives = {
      {"null", Type::kNull},   {"boolean", Type::kBoolean}, {"int", Type::kInt},
      {"long", Type::kLong},   {"float", Type::kFloat},     {"double", Type::kDouble},
      {"bytes", Type::kBytes}, {"string", Type::kString},
  };
  return kPrimitives;
}

uint64_t PrimitiveMinBytes(Type type) {
  switch (type) {
    case Type::kNull:
      return 0;
    case Type::kFloat:
      return 4;
    case Type::kDouble:
      return 8;
    default:
      return 1;  // a varint, a length or a boolean byte
  }
}

bool IsNamed(Type type) {
  return type == Type::kRecord || type == Type::kEnum || type == Type::kFixed;
}

}  // namespace

class SchemaParser {
 public:
  explicit SchemaParser(Schema& schema) : schema_(schema) {}

  Result<size_t> Parse(const Json& j, const std::string& space, int depth) {
    if (depth > kMaxDepth) return Fail("nested deeper than 64 levels");
    if (j.is_string()) return Named(j.get<std::string>(), space);
    if (j.is_array()) return Union(j, space, depth);
    if (!j.is_object()) return Fail("a schema must be a name, an object or an array");
    auto type = j.find("type");
    if (type == j.end()) return Fail("an object schema without \"type\"");
    if (!type->is_string()) return Parse(*type, space, depth + 1);  // {"type": {...}}
    const std::string name = type->get<std::string>();
    if (auto p = Primitives().find(name); p != Primitives().end()) return Add(Leaf(p->second));
    if (name == "record" || name == "error") return RecordType(j, space, depth);
    if (name == "enum") return EnumType(j, space);
    if (name == "fixed") return FixedType(j, space);
    if (name == "array" || name == "map") return Container(j, name, space, depth);
    return Named(name, space);
  }

 private:
  static Node Leaf(Type type) {
    Node n;
    n.type = type;
    n.min_bytes = PrimitiveMinBytes(type);
    return n;
  }
  static Status Fail(std::string_view what) {
    return Status::Reject("avro schema: " + std::string(what));
  }

  size_t Add(Node node) {
    schema_.nodes_.push_back(std::move(node));
    return schema_.nodes_.size() - 1;
  }

  Result<size_t> Named(const std::string& name, const std::string& space) {
    if (auto p = Primitives().find(name); p != Primitives().end()) return Add(Leaf(p->second));
    const std::string full = FullName(name, space);
    if (auto it = named_.find(full); it != named_.end()) return it->second;
    if (auto it = named_.find(name); it != named_.end()) return it->second;
    return Fail("unknown type \"" + name + "\"");
  }

  static std::string FullName(const std::string& name, const std::string& space) {
    if (name.find('.') != std::string::npos || space.empty()) return name;
    return space + "." + name;
  }

  // Registers the named node (before its children, so they may refer to it).
  Result<size_t> Define(const Json& j, const std::string& space, Type type, std::string& inner) {
    auto name = j.find("name");
    if (name == j.end() || !name->is_string() || name->get<std::string>().empty()) {
      return Fail("a record, enum or fixed without a name");
    }
    std::string ns = space;
    if (auto n = j.find("namespace"); n != j.end() && n->is_string()) ns = n->get<std::string>();
    const std::string full = FullName(name->get<std::string>(), ns);
    if (named_.count(full) != 0) return Fail("\"" + full + "\" defined twice");
    Node node;
    node.type = type;
    node.name = full;
    const size_t index = Add(std::move(node));
    named_[full] = index;
    const size_t dot = full.rfind('.');
    inner = dot == std::string::npos ? "" : full.substr(0, dot);
    return index;
  }

  Result<size_t> RecordType(const Json& j, const std::string& space, int depth) {
    std::string inner;
    SINKD_ASSIGN_OR_RETURN(const size_t index, Define(j, space, Type::kRecord, inner));
    auto fields = j.find("fields");
    if (fields == j.end() || !fields->is_array()) return Fail("a record without \"fields\"");
    std::vector<Node::Field> out;
    uint64_t min_bytes = 0;
    for (const Json& f : *fields) {
      if (!f.is_object() || !f.contains("name") || !f["name"].is_string() || !f.contains("type")) {
        return Fail("a record field needs a name and a type");
      }
      const std::string name = f["name"].get<std::string>();
      if (std::any_of(out.begin(), out.end(),
                      [&](const Node::Field& o) { return o.name == name; })) {
        return Fail("field \"" + name + "\" twice in " + schema_.nodes_[index].name);
      }
      SINKD_ASSIGN_OR_RETURN(const size_t child, Parse(f["type"], inner, depth + 1));
      min_bytes += schema_.nodes_[child].min_bytes;
      out.push_back({name, child});
    }
    schema_.nodes_[index].fields = std::move(out);
    schema_.nodes_[index].min_bytes = min_bytes;
    return index;
  }

  Result<size_t> EnumType(const Json& j, const std::string& space) {
    std::string inner;
    SINKD_ASSIGN_OR_RETURN(const size_t index, Define(j, space, Type::kEnum, inner));
    auto symbols = j.find("symbols");
    if (symbols == j.end() || !symbols->is_array()) return Fail("an enum without \"symbols\"");
    std::vector<std::string> out;
    for (const Json& s : *symbols) {
      if (!s.is_string()) return Fail("an enum symbol must be a string");
      if (std::find(out.begin(), out.end(), s.get<std::string>()) != out.end()) {
        return Fail("enum symbol \"" + s.get<std::string>() + "\" twice");
      }
      out.push_back(s.get<std::string>());
    }
    schema_.nodes_[index].symbols = std::move(out);
    schema_.nodes_[index].min_bytes = 1;
    return index;
  }

  Result<size_t> FixedType(const Json& j, const std::string& space) {
    std::string inner;
    SINKD_ASSIGN_OR_RETURN(const size_t index, Define(j, space, Type::kFixed, inner));
    auto size = j.find("size");
    if (size == j.end() || !size->is_number_unsigned()) return Fail("a fixed without a size");
    schema_.nodes_[index].size = size->get<uint64_t>();
    schema_.nodes_[index].min_bytes = schema_.nodes_[index].size;
    return index;
  }

  Result<size_t> Container(const Json& j, const std::string& kind, const std::string& space,
                           int depth) {
    const char* key = kind == "array" ? "items" : "values";
    auto items = j.find(key);
    if (items == j.end()) return Fail("an " + kind + " without \"" + key + "\"");
    SINKD_ASSIGN_OR_RETURN(const size_t child, Parse(*items, space, depth + 1));
    Node node = Leaf(kind == "array" ? Type::kArray : Type::kMap);
    node.items = child;
    return Add(std::move(node));
  }

  Result<size_t> Union(const Json& j, const std::string& space, int depth) {
    Node node;
    node.type = Type::kUnion;
    uint64_t min_branch = UINT64_MAX;
    for (const Json& b : j) {
      SINKD_ASSIGN_OR_RETURN(const size_t child, Parse(b, space, depth + 1));
      const Node& c = schema_.nodes_[child];
      if (c.type == Type::kUnion) return Fail("a union inside a union");
      for (size_t other : node.branches) {
        const Node& o = schema_.nodes_[other];
        if (o.type == c.type && (!IsNamed(c.type) ? true : o.name == c.name)) {
          return Fail("a union with two branches of one type");
        }
      }
      min_branch = std::min(min_branch, c.min_bytes);
      node.branches.push_back(child);
    }
    if (node.branches.empty()) return Fail("an empty union");
    node.min_bytes = 1 + min_branch;
    return Add(std::move(node));
  }

  Schema& schema_;
  std::map<std::string, size_t> named_;
};

Result<Schema> Schema::Parse(std::string_view json) {
  Json j = Json::parse(json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::Reject("avro schema: not JSON");
  Schema schema;
  schema.json_ = std::string(json);
  SchemaParser parser(schema);
  SINKD_ASSIGN_OR_RETURN(schema.root_, parser.Parse(j, "", 0));
  return schema;
}

}  // namespace sinkd::avro
