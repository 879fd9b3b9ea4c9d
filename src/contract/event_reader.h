// Internal to contract/ (the engine of WireDecoder): reads one garm.ledger.v1.Event's wire bytes
// into one slot per column, judges whether they are a row, and appends that row to a RowBuffer; it
// also steps through a Batch to each of its events. Dispatch comes from the ColumnTable
// (contract/field_plan.h) and every limit of the wire format is libprotobuf's
// (contract/wire_format.h).
// Ownership: borrows the ColumnTable; slots are views into the bytes last given to ReadEvent,
// which must stay alive until AppendRow. Threads: one thread at a time.
// Nothing is allocated per field or per row once the scratch vectors have grown.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "contract/field_plan.h"
#include "contract/json_memo.h"
#include "contract/reject.h"
#include "contract/wire_format.h"
#include "row/column_table.h"
#include "row/json_text.h"
#include "row/row_buffer.h"

namespace sinkd::contract {

class EventReader {
 public:
  enum class Verdict { kRow, kUnreadable, kTimeOutOfRange, kMissingEventId, kMissingTime };

  // REQUIRES: CheckWireShapes(table).ok().
  explicit EventReader(const row::ColumnTable& table);

  size_t columns() const { return slots_.size(); }

  // Reads `event` and says whether it is a row, or which rule it breaks (checked in the order
  // of the enum: unreadable, time out of range, event_id empty, time absent).
  Verdict ReadEvent(std::string_view event);

  // Appends the event last read as one row.
  // REQUIRES: the last ReadEvent returned kRow, and its bytes are still alive.
  // Sorts the tag entries in place, hence not const.
  void AppendRow(row::RowBuffer& batch);

  // The Reject for the event last read, with `payload` and `index` as given.
  // REQUIRES: `verdict` is what the last ReadEvent returned, and is not kRow.
  Reject MakeEventReject(Verdict verdict, std::string_view payload, int index) const;

  // Where NextBatchEvent is in a Batch: the bytes not yet stepped over.
  struct BatchCursor {
    const uint8_t* p;
    const uint8_t* end;
  };
  static BatchCursor StartBatch(std::string_view message) {
    const auto* p = reinterpret_cast<const uint8_t*>(message.data());
    return {p, p + message.size()};
  }
  enum class BatchStep { kEvent, kEnd, kBroken };
  // Steps over a Batch's framing to its next events entry (field 1, length-delimited) and views
  // it in `event`, stepping over well-formed unknown fields on the way; kEnd after the last, or
  // kBroken when the framing itself is broken (a truncated field, a malformed unknown field, …).
  // Events are not looked into. One entry at a time, so that the caller reads each event while
  // its bytes stream into the cache: splitting a whole Batch first put a cache miss per event on
  // a chain of dependent loads (each length says where the next entry starts), 3% of an import.
  // May be interleaved with ReadEvent.
  BatchStep NextBatchEvent(BatchCursor& cursor, std::string_view* event);
  // What breaks `message`'s framing and where, as a reject says it; "" when nothing does.
  std::string BatchFramingError(std::string_view message);

 private:
  // One column's value for the event being read, valid only when `event` is the current event's
  // number: starting an event is one increment, not a pass over every slot, and marking a slot
  // is a plain store (a shared bitmask made every field wait on the previous field's update).
  struct Slot {
    std::string_view text;  // kString
    uint64_t bits = 0;      // bool/int32/int64 varint, double bit pattern, Timestamp seconds
    int32_t nanos = 0;      // Timestamp nanos
    uint32_t event = 0;     // the event_ this value belongs to
  };

  bool Seen(size_t column) const;
  Slot& Write(size_t column);
  void Start(std::string_view payload);
  bool Failed(const uint8_t* at, uint32_t field);
  const uint8_t* SkipUnknown(uint32_t tag, const uint8_t* p, const uint8_t* end, int depth);
  const uint8_t* ReadString(const uint8_t* p, const uint8_t* end, std::string_view* out);
  bool ReadMessage(const MessagePlan& message, const uint8_t* p, const uint8_t* end, int depth);
  const uint8_t* ReadKnown(const FieldRule& rule, const uint8_t* p, const uint8_t* end, int depth);
  bool ReadTimestamp(Slot& slot, const uint8_t* p, const uint8_t* end, int depth);
  bool ReadMapEntry(std::vector<row::JsonMember>& entries, const uint8_t* p, const uint8_t* end,
                    int depth);
  std::string FaultError(std::string_view type) const;

  const row::ColumnTable* table_;
  FieldPlan plan_;
  std::vector<Slot> slots_;
  uint32_t event_ = 0;  // number of the event being read; never 0 (no slot is valid for 0)
  std::vector<std::vector<row::JsonMember>> maps_;    // per kMap column: this event's entries
  std::vector<std::vector<std::string_view>> lists_;  // per kList column: this event's items
  std::vector<JsonMemo> map_memos_;                   // per kMap column: the last row's JSON
  std::vector<JsonMemo> list_memos_;                  // per kList column: the last row's JSON

  // The first fault of the payload being read: where (innermost) and in which top-level field.
  const uint8_t* base_ = nullptr;
  wire::Fault fault_ = wire::Fault::kNone;
  const uint8_t* fault_at_ = nullptr;
  uint32_t fault_field_ = 0;
};

}  // namespace sinkd::contract
