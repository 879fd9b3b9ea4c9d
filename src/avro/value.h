// Value is one Avro datum as sinkd builds and reads it: a tree of null, boolean, long, double,
// string, array, map and record. The schema, not the Value, says how it is encoded: a long is
// written as an Avro int or long, a double as a float or double, a string as a string, bytes, an
// enum symbol or a fixed, and a union takes the first branch the value fits (datum.h).
// Records keep their fields by name, in the order built or read; maps keep their entries in order.
// Threads: plain values, immutable once built, share freely.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace sinkd::avro {

class Value;
struct Field;     // a record's named value
struct MapEntry;  // a map's keyed value

struct Record {
  std::vector<Field> fields;
};
struct Map {
  std::vector<MapEntry> entries;
};
struct Array {
  std::vector<Value> items;
};

class Value {
 public:
  enum class Kind : uint8_t { kNull, kBoolean, kLong, kDouble, kString, kArray, kMap, kRecord };

  // Defined in value.cc, where Field and MapEntry are complete (clang instantiates the
  // variant's members at the point of an inline definition).
  Value();                    // null
  Value(bool b);              // NOLINT: implicit by design
  Value(int32_t n);           // NOLINT
  Value(int64_t n);           // NOLINT
  Value(double d);            // NOLINT
  Value(std::string s);       // NOLINT
  Value(std::string_view s);  // NOLINT
  Value(const char* s);       // NOLINT
  Value(Array a);             // NOLINT
  Value(Map m);               // NOLINT
  Value(Record r);            // NOLINT
  Value(const Value&);
  Value(Value&&) noexcept;
  Value& operator=(const Value&);
  Value& operator=(Value&&) noexcept;
  ~Value();

  Kind kind() const { return static_cast<Kind>(v_.index()); }
  bool is_null() const { return kind() == Kind::kNull; }

  // REQUIRES: kind() is the accessor's kind.
  bool boolean() const { return std::get<bool>(v_); }
  int64_t long_value() const { return std::get<int64_t>(v_); }
  double double_value() const { return std::get<double>(v_); }
  const std::string& string() const { return std::get<std::string>(v_); }
  const Array& array() const { return std::get<Array>(v_); }
  const Map& map() const { return std::get<Map>(v_); }
  const Record& record() const { return std::get<Record>(v_); }

  // The field named `name` of a record, or nullptr (also when this is no record).
  const Value* Find(std::string_view name) const;

  bool operator==(const Value& other) const;

 private:
  // Alternatives in Kind order.
  std::variant<std::monostate, bool, int64_t, double, std::string, Array, Map, Record> v_;
};

struct Field {
  std::string name;
  Value value;
  bool operator==(const Field& other) const = default;
};

struct MapEntry {
  std::string key;
  Value value;
  bool operator==(const MapEntry& other) const = default;
};

inline bool operator==(const Record& a, const Record& b) { return a.fields == b.fields; }
inline bool operator==(const Map& a, const Map& b) { return a.entries == b.entries; }
inline bool operator==(const Array& a, const Array& b) { return a.items == b.items; }

}  // namespace sinkd::avro
