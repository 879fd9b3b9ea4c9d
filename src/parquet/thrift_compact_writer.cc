#include "parquet/thrift_compact_writer.h"

#include <cassert>

namespace sinkd::parquet {

void CompactWriter::Varint(uint64_t value) {
  while (value >= 0x80) {
    out_.PushBack(static_cast<uint8_t>(value) | 0x80);
    value >>= 7;
  }
  out_.PushBack(static_cast<uint8_t>(value));
}

void CompactWriter::ZigzagVarint(int64_t value) {
  // The shift is done unsigned: left-shifting a negative signed value is undefined before C++20
  // and UBSan still flags the overflow of INT64_MIN.
  const uint64_t u = static_cast<uint64_t>(value);
  Varint((u << 1) ^ static_cast<uint64_t>(value >> 63));
}

void CompactWriter::FieldHeader(int16_t id, CompactType type) {
  assert(depth_ > 0 && "a field outside any struct");
  int16_t& last = last_field_[depth_ - 1];
  assert(id > last && "fields must be written in ascending id order");
  const int delta = id - last;
  if (delta > 0 && delta <= 15) {
    out_.PushBack(static_cast<uint8_t>(delta << 4 | static_cast<uint8_t>(type)));
  } else {
    out_.PushBack(static_cast<uint8_t>(type));
    ZigzagVarint(id);
  }
  last = id;
}

void CompactWriter::I16Field(int16_t id, int16_t value) {
  FieldHeader(id, CompactType::kI16);
  ZigzagVarint(value);
}

void CompactWriter::I32Field(int16_t id, int32_t value) {
  FieldHeader(id, CompactType::kI32);
  ZigzagVarint(value);
}

void CompactWriter::I64Field(int16_t id, int64_t value) {
  FieldHeader(id, CompactType::kI64);
  ZigzagVarint(value);
}

void CompactWriter::BoolField(int16_t id, bool value) {
  FieldHeader(id, value ? CompactType::kBooleanTrue : CompactType::kBooleanFalse);
}

void CompactWriter::BinaryField(int16_t id, std::string_view value) {
  FieldHeader(id, CompactType::kBinary);
  BinaryElement(value);
}

void CompactWriter::BinaryElement(std::string_view value) {
  Varint(value.size());
  out_.Append(value);
}

void CompactWriter::BeginStructField(int16_t id) {
  FieldHeader(id, CompactType::kStruct);
  BeginStruct();
}

void CompactWriter::EmptyStructField(int16_t id) {
  BeginStructField(id);
  EndStruct();
}

void CompactWriter::ListField(int16_t id, CompactType element, size_t size) {
  FieldHeader(id, CompactType::kList);
  const uint8_t type = static_cast<uint8_t>(element);
  if (size < 15) {
    out_.PushBack(static_cast<uint8_t>(size << 4 | type));
  } else {
    out_.PushBack(0xF0 | type);
    Varint(size);
  }
}

void CompactWriter::BeginStruct() {
  assert(depth_ < kMaxDepth && "metadata nested deeper than any Parquet struct");
  last_field_[depth_++] = 0;
}

void CompactWriter::EndStruct() {
  assert(depth_ > 0 && "EndStruct without BeginStruct");
  out_.PushBack(0);
  --depth_;
}

}  // namespace sinkd::parquet
