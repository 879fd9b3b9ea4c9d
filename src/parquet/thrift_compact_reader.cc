#include "parquet/thrift_compact_reader.h"

#include <cstring>

namespace sinkd::parquet {
namespace {

// What the tree allocates, as charged against the budget: a struct's field array and its
// shared_ptr control block, each field twice (the array grows by doubling), a list's element
// array, a binary's bytes. Estimates of libstdc++'s layouts, rounded up; they need not be exact,
// only proportional to the real cost.
constexpr size_t kStructCost = sizeof(ThriftStruct) + 32;
constexpr size_t kFieldCost = 2 * sizeof(ThriftStruct::Field);

class Decoder {
 public:
  Decoder(std::string_view bytes, size_t budget) : bytes_(bytes), budget_(budget) {}
  size_t position() const { return at_; }
  const char* error() const { return error_; }
  bool over_budget() const { return over_budget_; }

  ThriftValue Struct(int depth) {
    ThriftValue v;
    v.kind = ThriftValue::Kind::kStruct;
    if (depth > kMaxThriftDepth) {
      Fail("structs or lists nested too deep");
      return v;
    }
    if (!Charge(kStructCost)) return v;
    v.fields = std::make_shared<ThriftStruct>();
    int16_t last = 0;
    while (!error_) {
      const uint8_t header = Byte();
      if (error_ || header == 0) break;
      const int type = header & 0x0F;
      const int delta = header >> 4;
      int64_t id = last + delta;
      if (delta == 0) {
        id = Zigzag();
        if (id < INT16_MIN || id > INT16_MAX) {
          Fail("field id out of range");
          break;
        }
      }
      if (id <= last) {
        // Writers emit ascending ids; a repeated or descending id is corruption (and would let a
        // decoder overwrite a field it already checked).
        Fail("field ids do not ascend");
        break;
      }
      last = static_cast<int16_t>(id);
      if (!Charge(kFieldCost)) break;
      v.fields->Append(last, Value(type, depth));
    }
    return v;
  }

 private:
  void Fail(const char* why) {
    if (!error_) error_ = why;
  }
  // Takes `count` × `each` bytes from the budget before they are allocated; false (and the
  // decode fails) when they would overdraw it.
  bool Charge(uint64_t count, size_t each = 1) {
    if (error_) return false;
    if (count > budget_ / each) {
      over_budget_ = true;
      Fail("over the memory budget");
      return false;
    }
    budget_ -= count * each;
    return true;
  }
  uint8_t Byte() {
    if (at_ >= bytes_.size()) {
      Fail("truncated");
      return 0;
    }
    return static_cast<uint8_t>(bytes_[at_++]);
  }
  uint64_t Varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64 && !error_; shift += 7) {
      const uint8_t b = Byte();
      v |= static_cast<uint64_t>(b & 0x7F) << shift;
      if (!(b & 0x80)) return v;
    }
    Fail("varint too long");
    return 0;
  }
  int64_t Zigzag() {
    const uint64_t u = Varint();
    return static_cast<int64_t>(u >> 1) ^ -static_cast<int64_t>(u & 1);
  }
  std::string Binary() {
    const uint64_t n = Varint();
    if (error_) return {};
    if (n > bytes_.size() - at_) {
      Fail("truncated binary");
      return {};
    }
    if (!Charge(n)) return {};
    std::string s(bytes_.substr(at_, n));
    at_ += n;
    return s;
  }

  ThriftValue Value(int type, int depth) {
    ThriftValue v;
    switch (type) {
      case 1: case 2: v.kind = ThriftValue::Kind::kBool; v.b = type == 1; break;
      case 3: v.i = static_cast<int8_t>(Byte()); break;
      case 4: case 5: case 6: v.i = Zigzag(); break;
      case 7: {
        v.kind = ThriftValue::Kind::kDouble;
        uint64_t bits = 0;
        for (int k = 0; k < 8; ++k) bits |= static_cast<uint64_t>(Byte()) << (8 * k);
        std::memcpy(&v.d, &bits, 8);
        break;
      }
      case 8: v.kind = ThriftValue::Kind::kBinary; v.bin = Binary(); break;
      case 9: case 10: v = List(depth + 1); break;
      case 12: v = Struct(depth + 1); break;
      default: Fail("unknown field type");  // maps (11) are not in parquet.thrift
    }
    return v;
  }
  // A list counts as a level of nesting like a struct: a list of lists of lists… is one or two
  // bytes per level, and unbounded it ran the decoder's recursion off the stack.
  ThriftValue List(int depth) {
    ThriftValue v;
    v.kind = ThriftValue::Kind::kList;
    if (depth > kMaxThriftDepth) {
      Fail("structs or lists nested too deep");
      return v;
    }
    const uint8_t header = Byte();
    uint64_t size = header >> 4;
    if (size == 15) size = Varint();
    if (error_) return v;
    // Every element takes at least one byte: a larger size is a lie that would only allocate.
    if (size > bytes_.size() - at_) {
      Fail("list longer than its bytes");
      return v;
    }
    const int element = header & 0x0F;
    if (!Charge(size, sizeof(ThriftValue))) return v;
    v.list.reserve(size);
    for (uint64_t i = 0; i < size && !error_; ++i) {
      if (element == 1 || element == 2) {  // bool elements: one byte each
        ThriftValue b;
        b.kind = ThriftValue::Kind::kBool;
        b.b = Byte() == 1;
        v.list.push_back(b);
      } else {
        v.list.push_back(Value(element, depth));
      }
    }
    return v;
  }

  std::string_view bytes_;
  size_t budget_;
  size_t at_ = 0;
  const char* error_ = nullptr;
  bool over_budget_ = false;
};

}  // namespace

const ThriftValue* ThriftValue::Find(int16_t id) const {
  if (!fields) return nullptr;
  const auto it = fields->find(id);
  return it == fields->end() ? nullptr : &it->second;
}

const ThriftValue& ThriftValue::operator[](int16_t id) const {
  static const ThriftValue kMissing;
  const ThriftValue* v = Find(id);
  return v ? *v : kMissing;
}

Result<ThriftValue> DecodeThriftStruct(std::string_view bytes, size_t* consumed,
                                       size_t memory_budget) {
  Decoder d(bytes, memory_budget);
  ThriftValue v = d.Struct(0);
  if (d.over_budget()) {
    const std::string budget = memory_budget >= (size_t{1} << 20)
                                   ? std::to_string(memory_budget >> 20) + " MiB"
                                   : std::to_string(memory_budget) + " bytes";
    return Status::Refuse("decoding its thrift structure would take more than " + budget +
                          " of memory (at byte " + std::to_string(d.position()) + " of " +
                          std::to_string(bytes.size()) + "): refused as hostile or corrupt");
  }
  if (d.error()) {
    return Status::Refuse(std::string("malformed thrift: ") + d.error() + " at byte " +
                          std::to_string(d.position()));
  }
  if (consumed) *consumed = d.position();
  return v;
}

}  // namespace sinkd::parquet
