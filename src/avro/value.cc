#include "avro/value.h"

namespace sinkd::avro {

Value::Value() = default;
Value::Value(bool b) : v_(b) {}
Value::Value(int32_t n) : v_(int64_t{n}) {}
Value::Value(int64_t n) : v_(n) {}
Value::Value(double d) : v_(d) {}
Value::Value(std::string s) : v_(std::move(s)) {}
Value::Value(std::string_view s) : v_(std::string(s)) {}
Value::Value(const char* s) : v_(std::string(s)) {}
Value::Value(Array a) : v_(std::move(a)) {}
Value::Value(Map m) : v_(std::move(m)) {}
Value::Value(Record r) : v_(std::move(r)) {}
Value::Value(const Value&) = default;
Value::Value(Value&&) noexcept = default;
Value& Value::operator=(const Value&) = default;
Value& Value::operator=(Value&&) noexcept = default;
Value::~Value() = default;

const Value* Value::Find(std::string_view name) const {
  if (kind() != Kind::kRecord) return nullptr;
  for (const Field& f : record().fields) {
    if (f.name == name) return &f.value;
  }
  return nullptr;
}

bool Value::operator==(const Value& other) const { return v_ == other.v_; }

}  // namespace sinkd::avro
