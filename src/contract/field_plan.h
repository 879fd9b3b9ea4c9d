// Internal to contract/ and its tests: the field-number dispatch of the hand-written decoder, built
// from a ColumnTable's WireShape entries, so the column list stays the one place that says which
// protobuf field feeds which column (there is no second hand-written list of field numbers).
// A FieldPlan is immutable after MakeFieldPlan; share freely.
#pragma once

#include <cstdint>
#include <vector>

#include "base/status.h"
#include "row/column_table.h"

namespace sinkd::contract {

// How the decoder reads a known field, and so which wire type it expects (others are unknown
// fields, as in libprotobuf's generated parser).
enum class FieldKind : uint8_t {
  kUnknown,    // not a column: skipped
  kString,     // string: a view into the message, validated as UTF-8
  kBool,       // varint, any nonzero value is true
  kInt32,      // varint, low 32 bits
  kInt64,      // varint
  kDouble,     // fixed64
  kTimestamp,  // google.protobuf.Timestamp: seconds = 1, nanos = 2; merged when repeated
  kMessage,    // a message whose scalar fields are columns (kSubField); merged when repeated
  kMap,        // map<string,string> entry: key = 1, value = 2
  kList,       // one item of a repeated string
};

// The wire type a known field of this kind must carry.
uint32_t ExpectedWireType(FieldKind kind);

// A wire type no tag can carry: the rule of a field that is not a column never matches a tag.
inline constexpr uint8_t kNoWireType = 0xFF;

// Eight bytes, so indexing and bounds are shifts in the hot loop rather than multiplications.
struct alignas(8) FieldRule {
  FieldKind kind = FieldKind::kUnknown;
  uint8_t wire_type = kNoWireType;  // ExpectedWireType(kind), kept here for the hot loop
  uint16_t column = 0;              // the column this field fills (unused for kMessage)
  uint16_t aux = 0;  // kMessage: index into FieldPlan::messages; kMap/kList: its ordinal
};

// One message's dispatch, indexed by field number.
struct MessagePlan {
  std::vector<FieldRule> by_number;

  // The rule for `field`; one whose wire_type matches no tag when the field is not a column, so
  // the hot loop makes one comparison to tell a known field from an unknown one.
  const FieldRule& Rule(uint32_t field) const {
    static constexpr FieldRule kUnknownField{};
    return field < by_number.size() ? by_number[field] : kUnknownField;
  }
};

struct FieldPlan {
  MessagePlan event;                   // the top-level message (garm.ledger.v1.Event)
  std::vector<MessagePlan> messages;   // kMessage fields' own plans (Usage)
  std::vector<FieldKind> column_kind;  // per column: how its value is committed
  std::vector<uint16_t> column_aux;    // per column: map/list ordinal
  // Columns grouped by kind, in table order, so committing a row runs one tight loop per kind
  // instead of a switch per column.
  std::vector<uint16_t> columns_of_kind[static_cast<int>(FieldKind::kList) + 1];
  uint16_t maps = 0;     // number of kMap columns
  uint16_t lists = 0;    // number of kList columns
  int id_column = -1;    // a kString column: empty means missing_event_id
  int time_column = -1;  // a kTimestamp column: absent means missing_time
};

// OK when every column of `table` has a readable WireShape: no field number claimed twice, a
// kSubField's parent used only for subfields, types that fit their shapes, an id column that is a
// string scalar and a time column that is a Timestamp. Reject-coded error naming the column
// otherwise.
Status CheckWireShapes(const row::ColumnTable& table);

// The dispatch for `table`. REQUIRES: CheckWireShapes(table).ok().
FieldPlan MakeFieldPlan(const row::ColumnTable& table);

}  // namespace sinkd::contract
