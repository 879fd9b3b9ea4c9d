#include "avro/datum.h"

#include <cstring>
#include <limits>

#include "base/utf8.h"

namespace sinkd::avro {

namespace {

constexpr int kMaxDepth = 64;

void AppendFixed(const void* p, size_t n, std::string& out) {
  out.append(static_cast<const char*>(p), n);  // the host is little-endian, as Avro is
}

bool IntFits(int64_t n) {
  return n >= std::numeric_limits<int32_t>::min() && n <= std::numeric_limits<int32_t>::max();
}

// Whether `value` can be written as `n` (for choosing a union's branch).
bool Fits(const Node& n, const Value& value) {
  switch (value.kind()) {
    case Value::Kind::kNull:
      return n.type == Type::kNull;
    case Value::Kind::kBoolean:
      return n.type == Type::kBoolean;
    case Value::Kind::kLong:
      return n.type == Type::kLong || (n.type == Type::kInt && IntFits(value.long_value()));
    case Value::Kind::kDouble:
      return n.type == Type::kDouble || n.type == Type::kFloat;
    case Value::Kind::kString:
      switch (n.type) {
        case Type::kString:
          return IsValidUtf8(value.string());
        case Type::kBytes:
          return true;
        case Type::kFixed:
          return value.string().size() == n.size;
        case Type::kEnum:
          for (const std::string& s : n.symbols) {
            if (s == value.string()) return true;
          }
          return false;
        default:
          return false;
      }
    case Value::Kind::kArray:
      return n.type == Type::kArray;
    case Value::Kind::kMap:
      return n.type == Type::kMap;
    case Value::Kind::kRecord:
      return n.type == Type::kRecord;
  }
  return false;
}

const char* KindName(Value::Kind kind) {
  static const char* const kNames[] = {"null",   "boolean", "long", "double",
                                       "string", "array",   "map",  "record"};
  return kNames[static_cast<int>(kind)];
}

// Where a value sits in the datum, for error messages only: a chain of links on the encoder's
// stack, made into text only when a value does not fit. Building "record.data_file.column_sizes
// [3].value" as a string for every value was most of what encoding a manifest allocated.
struct PathLink {
  const PathLink* parent = nullptr;
  std::string_view field;            // a record's field name, or
  const std::string* key = nullptr;  // a map's key, or
  size_t index = 0;                  // an array's index

  std::string Text() const {
    std::string out = parent != nullptr ? parent->Text() : "record";
    if (!field.empty()) {
      out += ".";
      out += field;
    } else if (key != nullptr) {
      out += "[\"" + *key + "\"]";
    } else if (parent != nullptr) {
      out += "[" + std::to_string(index) + "]";
    }
    return out;
  }
};

class Encoder {
 public:
  Encoder(const Schema& schema, std::string& out) : schema_(schema), out_(out) {}

  Status Encode(size_t index, const Value& value, const PathLink& path) {
    const Node& n = schema_.nodes()[index];
    if (n.type == Type::kUnion) return EncodeUnion(n, value, path);
    if (n.type == Type::kRecord) return EncodeRecord(n, value, path);
    if (!Fits(n, value)) return Misfit(value, path);
    switch (n.type) {
      case Type::kNull:
        return Status::OK();
      case Type::kBoolean:
        out_.push_back(value.boolean() ? 1 : 0);
        return Status::OK();
      case Type::kInt:
      case Type::kLong:
        AppendLong(value.long_value(), out_);
        return Status::OK();
      case Type::kFloat: {
        const auto f = static_cast<float>(value.double_value());
        AppendFixed(&f, 4, out_);
        return Status::OK();
      }
      case Type::kDouble: {
        const double d = value.double_value();
        AppendFixed(&d, 8, out_);
        return Status::OK();
      }
      case Type::kBytes:
      case Type::kString:
        AppendLong(static_cast<int64_t>(value.string().size()), out_);
        out_ += value.string();
        return Status::OK();
      case Type::kFixed:
        out_ += value.string();
        return Status::OK();
      case Type::kEnum:
        for (size_t i = 0; i < n.symbols.size(); ++i) {
          if (n.symbols[i] == value.string()) AppendLong(static_cast<int64_t>(i), out_);
        }
        return Status::OK();
      case Type::kArray:
        return EncodeArray(n, value.array(), path);
      case Type::kMap:
        return EncodeMap(n, value.map(), path);
      default:
        return Status::Internal("avro: unhandled type at " + path.Text());
    }
  }

 private:
  Status Misfit(const Value& value, const PathLink& path) {
    return Status::Refuse("avro: the " + std::string(KindName(value.kind())) + " at " +
                          path.Text() + " does not fit its schema");
  }

  Status EncodeUnion(const Node& n, const Value& value, const PathLink& path) {
    for (size_t i = 0; i < n.branches.size(); ++i) {
      const Node& branch = schema_.nodes()[n.branches[i]];
      if (!Fits(branch, value)) continue;
      AppendLong(static_cast<int64_t>(i), out_);
      return Encode(n.branches[i], value, path);
    }
    return Misfit(value, path);
  }

  Status EncodeRecord(const Node& n, const Value& value, const PathLink& path) {
    if (value.kind() != Value::Kind::kRecord) return Misfit(value, path);
    const std::vector<Field>& given = value.record().fields;
    // sinkd's writers give a record's fields in the schema's order: then each is known and
    // found by its position, where looking every name up is quadratic in the fields.
    bool in_order = given.size() == n.fields.size();
    for (size_t i = 0; in_order && i < given.size(); ++i)
      in_order = given[i].name == n.fields[i].name;
    if (!in_order) {
      for (const Field& g : given) {
        bool known = false;
        for (const Node::Field& f : n.fields) known = known || f.name == g.name;
        if (!known) {
          return Status::Refuse("avro: " + path.Text() + " has no field \"" + g.name + "\"");
        }
      }
    }
    for (size_t i = 0; i < n.fields.size(); ++i) {
      const Node::Field& f = n.fields[i];
      const Value* v = in_order ? &given[i].value : value.Find(f.name);
      const PathLink here{&path, f.name};
      SINKD_RETURN_IF_ERROR(Encode(f.node, v != nullptr ? *v : null_, here));
    }
    return Status::OK();
  }

  Status EncodeArray(const Node& n, const Array& a, const PathLink& path) {
    if (!a.items.empty()) AppendLong(static_cast<int64_t>(a.items.size()), out_);
    for (size_t i = 0; i < a.items.size(); ++i) {
      const PathLink here{&path, {}, nullptr, i};
      SINKD_RETURN_IF_ERROR(Encode(n.items, a.items[i], here));
    }
    AppendLong(0, out_);
    return Status::OK();
  }

  Status EncodeMap(const Node& n, const Map& m, const PathLink& path) {
    if (!m.entries.empty()) AppendLong(static_cast<int64_t>(m.entries.size()), out_);
    for (const MapEntry& e : m.entries) {
      if (!IsValidUtf8(e.key))
        return Status::Refuse("avro: a map key at " + path.Text() + " is not UTF-8");
      AppendLong(static_cast<int64_t>(e.key.size()), out_);
      out_ += e.key;
      const PathLink here{&path, {}, &e.key};
      SINKD_RETURN_IF_ERROR(Encode(n.items, e.value, here));
    }
    AppendLong(0, out_);
    return Status::OK();
  }

  const Schema& schema_;
  std::string& out_;
  const Value null_;  // what a record field left out is written as
};

Status Corrupt(std::string_view what) {
  return Status::Reject("avro: corrupt data: " + std::string(what));
}

}  // namespace

void AppendLong(int64_t n, std::string& out) {
  uint64_t z = (static_cast<uint64_t>(n) << 1) ^ static_cast<uint64_t>(n >> 63);
  while (z >= 0x80) {
    out.push_back(static_cast<char>((z & 0x7F) | 0x80));
    z >>= 7;
  }
  out.push_back(static_cast<char>(z));
}

Status EncodeDatum(const Schema& schema, size_t node, const Value& value, std::string& out) {
  return Encoder(schema, out).Encode(node, value, PathLink{});
}

Result<int64_t> DatumReader::ReadLong() {
  uint64_t z = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (pos_ >= bytes_.size()) return Corrupt("a number runs past the end");
    const auto byte = static_cast<uint8_t>(bytes_[pos_++]);
    if (shift == 63 && byte > 1) return Corrupt("a number past 64 bits");
    z |= static_cast<uint64_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) return static_cast<int64_t>((z >> 1) ^ (~(z & 1) + 1));
  }
  return Corrupt("a number longer than 10 bytes");
}

Result<std::string> DatumReader::ReadRaw(uint64_t length) {
  if (length > remaining()) return Corrupt("a length runs past the end");
  std::string s(bytes_.substr(pos_, length));
  pos_ += length;
  return s;
}

Result<std::string_view> DatumReader::ReadBytes(bool utf8) {
  SINKD_ASSIGN_OR_RETURN(const int64_t length, ReadLong());
  if (length < 0) return Corrupt("a negative length");
  if (static_cast<uint64_t>(length) > remaining()) return Corrupt("a length runs past the end");
  const std::string_view s = bytes_.substr(pos_, static_cast<size_t>(length));
  pos_ += static_cast<size_t>(length);
  if (utf8 && !IsValidUtf8(s)) return Corrupt("a string that is not UTF-8");
  return s;
}

Result<size_t> DatumReader::ReadBranch(const Node& union_node) {
  SINKD_ASSIGN_OR_RETURN(const int64_t i, ReadLong());
  if (i < 0 || static_cast<uint64_t>(i) >= union_node.branches.size()) {
    return Corrupt("a union index out of range");
  }
  return static_cast<size_t>(i);
}

Result<int64_t> DatumReader::ReadBlockCount(const Node& items) {
  int64_t block_bytes = 0;
  return ReadCount(items, block_bytes);
}

Status DatumReader::Skip(const Schema& schema, size_t node) {
  return ReadNode(schema, node, 0).status();
}

Status DatumReader::Count() {
  return ++values_ > max_values_ ? Corrupt("more values than the limit") : Status::OK();
}

// An array or map block's item count: a negative count is followed by the block's byte size
// (which we do not need). A count the remaining bytes cannot hold is corrupt.
Result<int64_t> DatumReader::ReadCount(const Node& items, int64_t& block_bytes) {
  SINKD_ASSIGN_OR_RETURN(int64_t count, ReadLong());
  block_bytes = -1;
  if (count < 0) {
    if (count == std::numeric_limits<int64_t>::min()) return Corrupt("a block count out of range");
    count = -count;
    SINKD_ASSIGN_OR_RETURN(block_bytes, ReadLong());
    if (block_bytes < 0) return Corrupt("a negative block size");
  }
  const uint64_t per_item = items.min_bytes;
  if (per_item > 0 && static_cast<uint64_t>(count) > remaining() / per_item) {
    return Corrupt("an item count past the end");
  }
  if (static_cast<uint64_t>(count) > max_values_ - values_)
    return Corrupt("more values than the limit");
  return count;
}

Result<Value> DatumReader::Read(const Schema& schema, size_t node) {
  return ReadNode(schema, node, 0);
}

Result<Value> DatumReader::ReadNode(const Schema& schema, size_t index, int depth) {
  if (depth > kMaxDepth) return Corrupt("nested deeper than 64 levels");
  SINKD_RETURN_IF_ERROR(Count());
  const Node& n = schema.nodes()[index];
  switch (n.type) {
    case Type::kNull:
      return Value();
    case Type::kBoolean: {
      if (remaining() < 1) return Corrupt("a boolean past the end");
      const auto b = static_cast<uint8_t>(bytes_[pos_++]);
      if (b > 1) return Corrupt("a boolean byte other than 0 or 1");
      return Value(b == 1);
    }
    case Type::kInt: {
      SINKD_ASSIGN_OR_RETURN(const int64_t v, ReadLong());
      if (!IntFits(v)) return Corrupt("an int out of range");
      return Value(v);
    }
    case Type::kLong: {
      SINKD_ASSIGN_OR_RETURN(const int64_t v, ReadLong());
      return Value(v);
    }
    case Type::kFloat: {
      if (remaining() < 4) return Corrupt("a float past the end");
      float f;
      std::memcpy(&f, bytes_.data() + pos_, 4);
      pos_ += 4;
      return Value(static_cast<double>(f));
    }
    case Type::kDouble: {
      if (remaining() < 8) return Corrupt("a double past the end");
      double d;
      std::memcpy(&d, bytes_.data() + pos_, 8);
      pos_ += 8;
      return Value(d);
    }
    case Type::kBytes:
    case Type::kString: {
      SINKD_ASSIGN_OR_RETURN(const int64_t length, ReadLong());
      if (length < 0) return Corrupt("a negative length");
      SINKD_ASSIGN_OR_RETURN(std::string s, ReadRaw(static_cast<uint64_t>(length)));
      if (n.type == Type::kString && !IsValidUtf8(s)) return Corrupt("a string that is not UTF-8");
      return Value(std::move(s));
    }
    case Type::kFixed: {
      SINKD_ASSIGN_OR_RETURN(std::string s, ReadRaw(n.size));
      return Value(std::move(s));
    }
    case Type::kEnum: {
      SINKD_ASSIGN_OR_RETURN(const int64_t i, ReadLong());
      if (i < 0 || static_cast<uint64_t>(i) >= n.symbols.size())
        return Corrupt("an enum index out of range");
      return Value(n.symbols[static_cast<size_t>(i)]);
    }
    case Type::kUnion: {
      SINKD_ASSIGN_OR_RETURN(const int64_t i, ReadLong());
      if (i < 0 || static_cast<uint64_t>(i) >= n.branches.size())
        return Corrupt("a union index out of range");
      return ReadNode(schema, n.branches[static_cast<size_t>(i)], depth + 1);
    }
    case Type::kRecord: {
      Record r;
      r.fields.reserve(n.fields.size());
      for (const Node::Field& f : n.fields) {
        SINKD_ASSIGN_OR_RETURN(Value v, ReadNode(schema, f.node, depth + 1));
        r.fields.push_back({f.name, std::move(v)});
      }
      return Value(std::move(r));
    }
    case Type::kArray:
    case Type::kMap: {
      const Node& items = schema.nodes()[n.items];
      Array a;
      Map m;
      for (;;) {
        int64_t block_bytes = 0;
        SINKD_ASSIGN_OR_RETURN(const int64_t count, ReadCount(items, block_bytes));
        if (count == 0) break;
        for (int64_t i = 0; i < count; ++i) {
          if (n.type == Type::kArray) {
            SINKD_ASSIGN_OR_RETURN(Value v, ReadNode(schema, n.items, depth + 1));
            a.items.push_back(std::move(v));
            continue;
          }
          SINKD_ASSIGN_OR_RETURN(const int64_t length, ReadLong());
          if (length < 0) return Corrupt("a negative map key length");
          SINKD_ASSIGN_OR_RETURN(std::string key, ReadRaw(static_cast<uint64_t>(length)));
          if (!IsValidUtf8(key)) return Corrupt("a map key that is not UTF-8");
          SINKD_ASSIGN_OR_RETURN(Value v, ReadNode(schema, n.items, depth + 1));
          m.entries.push_back({std::move(key), std::move(v)});
        }
      }
      if (n.type == Type::kArray) return Value(std::move(a));
      return Value(std::move(m));
    }
  }
  return Status::Internal("avro: unhandled type");
}

}  // namespace sinkd::avro
