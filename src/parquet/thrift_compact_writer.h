// CompactWriter serialises Thrift structs in the compact protocol (no message envelope), the
// encoding of every Parquet metadata structure. It is the only code that emits field headers:
// metadata_serializer.cc walks the structs in metadata.h and calls it field by field.
//
// Wire rules (parquet-format.md §2): varints are unsigned LEB128; i16/i32/i64 are zigzag varints;
// a field header is one byte (id delta << 4 | type) when the delta from the previous field of the
// same struct is 1..15, else the type byte followed by the zigzag id; booleans live in the type
// nibble; binary is a varint length then the bytes; a struct ends with 0x00.
//
// Ownership: borrows the output buffer (must outlive the writer).
// Threads: one thread at a time.
// REQUIRES: fields of a struct are written in ascending id order; Begin/End calls balance.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "parquet/byte_buffer.h"

namespace sinkd::parquet {

// Frozen: compact-protocol type codes.
enum class CompactType : uint8_t {
  kBooleanTrue = 1,
  kBooleanFalse = 2,
  kI8 = 3,
  kI16 = 4,
  kI32 = 5,
  kI64 = 6,
  kDouble = 7,
  kBinary = 8,
  kList = 9,
  kSet = 10,
  kMap = 11,
  kStruct = 12,
};

class CompactWriter {
 public:
  explicit CompactWriter(ByteBuffer& out) : out_(out) {}

  // Fields of the current struct.
  void I16Field(int16_t id, int16_t value);
  void I32Field(int16_t id, int32_t value);
  void I64Field(int16_t id, int64_t value);
  void BoolField(int16_t id, bool value);
  void BinaryField(int16_t id, std::string_view value);
  // Opens a nested struct as field `id`; close it with EndStruct().
  void BeginStructField(int16_t id);
  // Writes field `id` holding an empty struct (the members of Parquet's marker unions).
  void EmptyStructField(int16_t id);
  // Starts a list field of `size` elements of `element`; the elements follow with the element
  // calls below (struct elements with BeginStruct/EndStruct). Lists need no end marker.
  void ListField(int16_t id, CompactType element, size_t size);

  // List elements.
  void I32Element(int32_t value) { ZigzagVarint(value); }
  void I64Element(int64_t value) { ZigzagVarint(value); }
  void BinaryElement(std::string_view value);

  // Struct framing: the top-level struct and struct list elements.
  void BeginStruct();
  void EndStruct();

  // Primitive encodings, public for byte-exact tests.
  void Varint(uint64_t value);
  void ZigzagVarint(int64_t value);

 private:
  void FieldHeader(int16_t id, CompactType type);

  // Nesting in Parquet metadata is at most 6 deep (FileMetaData → SchemaElement → LogicalType →
  // TimestampType → TimeUnit → MicroSeconds); a fixed stack keeps serialisation allocation-free.
  static constexpr int kMaxDepth = 16;

  ByteBuffer& out_;
  int16_t last_field_[kMaxDepth] = {};
  int depth_ = 0;
};

}  // namespace sinkd::parquet
