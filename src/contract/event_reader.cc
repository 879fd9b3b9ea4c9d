#include "contract/event_reader.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstring>
#include <span>

#include "contract/timestamp.h"
#include "base/utf8.h"

namespace sinkd::contract {
namespace {

// google.protobuf.Timestamp, map entries and garm.ledger.v1.Batch are fixed by protobuf itself
// and by the contract (the contract test pins Batch.events = 1), not by the column table.
constexpr uint32_t kTimestampSecondsTag = (1 << 3) | wire::kVarint;
constexpr uint32_t kTimestampNanosTag = (2 << 3) | wire::kVarint;
constexpr uint32_t kMapKeyTag = (1 << 3) | wire::kLengthDelimited;
constexpr uint32_t kMapValueTag = (2 << 3) | wire::kLengthDelimited;
constexpr uint32_t kBatchEventTag = (1 << 3) | wire::kLengthDelimited;

}  // namespace

using wire::Fault;

EventReader::EventReader(const row::ColumnTable& table)
    : table_(&table), plan_(MakeFieldPlan(table)) {
  slots_.resize(table.columns.size());
  maps_.resize(plan_.maps);
  lists_.resize(plan_.lists);
  map_memos_.resize(plan_.maps);
  list_memos_.resize(plan_.lists);
}

inline bool EventReader::Seen(size_t column) const { return slots_[column].event == event_; }

inline EventReader::Slot& EventReader::Write(size_t column) {
  Slot& slot = slots_[column];
  slot.event = event_;
  return slot;
}

void EventReader::Start(std::string_view payload) {
  base_ = reinterpret_cast<const uint8_t*>(payload.data());
  fault_ = Fault::kNone;
  fault_at_ = nullptr;
  fault_field_ = 0;
}

// Records the field a failure happened in; called on the way out of each level, so the position
// is the innermost one and the field number the outermost one.
bool EventReader::Failed(const uint8_t* at, uint32_t field) {
  if (fault_at_ == nullptr) fault_at_ = at;
  fault_field_ = field;
  return false;
}

const uint8_t* EventReader::SkipUnknown(uint32_t tag, const uint8_t* p, const uint8_t* end,
                                        int depth) {
  if (tag == 0 || (tag & 7) == wire::kEndGroup) {
    fault_ = Fault::kEarlyEnd;
    return nullptr;
  }
  return wire::SkipField(tag, p, end, depth, &fault_);
}

// Inline in the hot loop: most fields of an event are strings.
inline const uint8_t* EventReader::ReadString(const uint8_t* p, const uint8_t* end,
                                              std::string_view* out) {
  size_t length;
  p = wire::ReadLength(p, end, &length, &fault_);
  if (p == nullptr) return nullptr;
  *out = std::string_view(reinterpret_cast<const char*>(p), length);
  if (!IsValidUtf8(*out)) {
    fault_ = Fault::kInvalidUtf8;
    return nullptr;
  }
  return p + length;
}

bool EventReader::ReadMessage(const MessagePlan& message, const uint8_t* p, const uint8_t* end,
                              int depth) {
  while (p < end) {
    const uint8_t* at = p;
    uint32_t tag = 0;
    p = wire::ReadTag(p, end, &tag, &fault_);
    if (p != nullptr) {
      // A known number with another wire type is an unknown field, as in generated code.
      const FieldRule& rule = message.Rule(tag >> 3);
      if ((tag & 7) == rule.wire_type) {
        // The kinds an event carries most of are read here, out of ReadKnown's switch: strings,
        // list items and tag entries (a few of each per event).
        if (rule.kind == FieldKind::kString) {
          p = ReadString(p, end, &Write(rule.column).text);
        } else if (rule.kind == FieldKind::kList) {
          std::string_view item;
          p = ReadString(p, end, &item);
          if (p != nullptr) lists_[rule.aux].push_back(item);
        } else {
          p = ReadKnown(rule, p, end, depth);
        }
      } else {
        p = SkipUnknown(tag, p, end, depth);
      }
    }
    if (p == nullptr) return Failed(at, tag >> 3);
  }
  return true;
}

const uint8_t* EventReader::ReadKnown(const FieldRule& rule, const uint8_t* p, const uint8_t* end,
                                      int depth) {
  switch (rule.kind) {
    case FieldKind::kString:
      return ReadString(p, end, &Write(rule.column).text);
    case FieldKind::kList: {  // ReadMessage reads these itself; kept whole for other callers
      std::string_view item;
      p = ReadString(p, end, &item);
      if (p != nullptr) lists_[rule.aux].push_back(item);
      return p;
    }
    case FieldKind::kBool:
    case FieldKind::kInt32:
    case FieldKind::kInt64:
      return wire::ReadVarint(p, end, &Write(rule.column).bits, &fault_);
    case FieldKind::kDouble:
      if (end - p < 8) {
        fault_ = Fault::kTruncated;
        return nullptr;
      }
      std::memcpy(&Write(rule.column).bits, p, 8);
      return p + 8;
    case FieldKind::kTimestamp:
    case FieldKind::kMessage:
    case FieldKind::kMap: {
      size_t length;
      p = wire::ReadLength(p, end, &length, &fault_);
      if (p == nullptr) return nullptr;
      if (depth - 1 < 0) {
        fault_ = Fault::kTooDeep;
        return nullptr;
      }
      const uint8_t* sub_end = p + length;
      bool ok;
      if (rule.kind == FieldKind::kTimestamp) {
        if (!Seen(rule.column)) {  // present from here on; a second occurrence merges
          Slot& time = Write(rule.column);
          time.bits = 0;
          time.nanos = 0;
        }
        ok = ReadTimestamp(slots_[rule.column], p, sub_end, depth - 1);
      } else if (rule.kind == FieldKind::kMessage) {
        ok = ReadMessage(plan_.messages[rule.aux], p, sub_end, depth - 1);
      } else {
        ok = ReadMapEntry(maps_[rule.aux], p, sub_end, depth - 1);
      }
      return ok ? sub_end : nullptr;
    }
    case FieldKind::kUnknown:
      break;
  }
  assert(false && "ReadKnown is only called for a rule whose wire type matched");
  return nullptr;
}

// A Timestamp seen twice merges: each field keeps its last value on the wire.
bool EventReader::ReadTimestamp(Slot& slot, const uint8_t* p, const uint8_t* end, int depth) {
  while (p < end) {
    const uint8_t* at = p;
    uint32_t tag = 0;
    p = wire::ReadTag(p, end, &tag, &fault_);
    if (p != nullptr) {
      uint64_t value;
      if (tag == kTimestampSecondsTag || tag == kTimestampNanosTag) {
        p = wire::ReadVarint(p, end, &value, &fault_);
        if (p != nullptr && tag == kTimestampSecondsTag) slot.bits = value;
        if (p != nullptr && tag == kTimestampNanosTag) {
          slot.nanos = static_cast<int32_t>(static_cast<uint32_t>(value));
        }
      } else {
        p = SkipUnknown(tag, p, end, depth);
      }
    }
    if (p == nullptr) return Failed(at, tag >> 3);
  }
  return true;
}

// Every key and value on the wire is checked, even one a later one overwrites, as libprotobuf's
// map entry parser does; a missing key or value is "".
bool EventReader::ReadMapEntry(std::vector<row::JsonMember>& entries, const uint8_t* p,
                               const uint8_t* end, int depth) {
  row::JsonMember entry;
  // The entry as every encoder writes it, key then value, read without the general loop.
  const auto available = static_cast<size_t>(end - p);
  if (available >= 4 && p[0] == kMapKeyTag && p[1] < 0x80 && size_t{p[1]} + 4 <= available) {
    const uint8_t* value = p + 2 + p[1];  // value + 2 <= end
    if (value[0] == kMapValueTag && value[1] < 0x80 && value + 2 + value[1] == end) {
      entry.key = std::string_view(reinterpret_cast<const char*>(p + 2), p[1]);
      entry.value = std::string_view(reinterpret_cast<const char*>(value + 2), value[1]);
      if (IsValidUtf8(entry.key) && IsValidUtf8(entry.value)) {
        entries.push_back(entry);
        return true;
      }
      entry = row::JsonMember();  // let the general loop find and report the bad string
    }
  }
  while (p < end) {
    const uint8_t* at = p;
    uint32_t tag = 0;
    p = wire::ReadTag(p, end, &tag, &fault_);
    if (p != nullptr) {
      if (tag == kMapKeyTag) {
        p = ReadString(p, end, &entry.key);
      } else if (tag == kMapValueTag) {
        p = ReadString(p, end, &entry.value);
      } else {
        p = SkipUnknown(tag, p, end, depth);
      }
    }
    if (p == nullptr) return Failed(at, tag >> 3);
  }
  entries.push_back(entry);
  return true;
}

EventReader::Verdict EventReader::ReadEvent(std::string_view payload) {
  if (++event_ == 0) {  // wrapped after 2^32 events: forget every old number
    for (Slot& slot : slots_) slot.event = 0;
    event_ = 1;
  }
  for (auto& entries : maps_) entries.clear();
  for (auto& items : lists_) items.clear();
  Start(payload);
  const uint8_t* p = base_;
  if (!ReadMessage(plan_.event, p, p + payload.size(), wire::kRecursionLimit)) {
    return Verdict::kUnreadable;
  }
  const Slot& time = slots_[plan_.time_column];
  const bool has_time = Seen(plan_.time_column);
  if (has_time && !TimestampMicros(static_cast<int64_t>(time.bits), time.nanos)) {
    return Verdict::kTimeOutOfRange;
  }
  if (!Seen(plan_.id_column) || slots_[plan_.id_column].text.empty()) {
    return Verdict::kMissingEventId;
  }
  if (!has_time) return Verdict::kMissingTime;
  return Verdict::kRow;
}

// The Batch's framing: every events entry must be a well-formed length-delimited field and every
// other field a well-formed unknown one. Nothing inside an event is looked at here.
EventReader::BatchStep EventReader::NextBatchEvent(BatchCursor& cursor, std::string_view* event) {
  const uint8_t* p = cursor.p;
  while (p < cursor.end) {
    const uint8_t* at = p;
    uint32_t tag = 0;
    p = wire::ReadTag(p, cursor.end, &tag, &fault_);
    if (p != nullptr && tag == kBatchEventTag) {
      size_t length;
      p = wire::ReadLength(p, cursor.end, &length, &fault_);
      if (p != nullptr) {
        *event = std::string_view(reinterpret_cast<const char*>(p), length);
        cursor.p = p + length;
        return BatchStep::kEvent;
      }
    } else if (p != nullptr) {
      p = SkipUnknown(tag, p, cursor.end, wire::kRecursionLimit);
    }
    if (p == nullptr) {
      Failed(at, tag >> 3);
      cursor.p = cursor.end;
      return BatchStep::kBroken;
    }
  }
  cursor.p = p;
  return BatchStep::kEnd;
}

std::string EventReader::BatchFramingError(std::string_view message) {
  Start(message);
  BatchCursor cursor = StartBatch(message);
  std::string_view event;
  BatchStep step;
  while ((step = NextBatchEvent(cursor, &event)) == BatchStep::kEvent) {
  }
  return step == BatchStep::kBroken ? FaultError("garm.ledger.v1.Batch") : std::string();
}

// Values are copied out of locals: the appends write `char`s, which may alias anything, so
// without them the compiler reloads every vector's bounds after each append.
void EventReader::AppendRow(row::RowBuffer& batch) {
  const Slot* const slot = slots_.data();
  const uint32_t event = event_;
  const auto is_seen = [slot, event](uint16_t c) { return slot[c].event == event; };
  const auto bits = [&](uint16_t c) -> uint64_t { return is_seen(c) ? slot[c].bits : 0; };
  const auto columns = [&](FieldKind kind) {
    const std::vector<uint16_t>& list = plan_.columns_of_kind[static_cast<int>(kind)];
    return std::span<const uint16_t>(list.data(), list.size());
  };
  // An unseen column holds a stale slot: its value is the field's default (zero, "").
  for (uint16_t c : columns(FieldKind::kString)) {
    row::StringBuffer& out = batch.column(c).strings;
    // Many columns of an event are empty (error_detail, execution_subject, …): skip the call.
    if (is_seen(c) && !slot[c].text.empty()) out.bytes.append(slot[c].text);
    out.offsets.push_back(static_cast<uint32_t>(out.bytes.size()));
  }
  for (uint16_t c : columns(FieldKind::kInt64)) {
    batch.column(c).int64s.push_back(static_cast<int64_t>(bits(c)));
  }
  for (uint16_t c : columns(FieldKind::kInt32)) {
    batch.column(c).int32s.push_back(static_cast<int32_t>(static_cast<uint32_t>(bits(c))));
  }
  for (uint16_t c : columns(FieldKind::kBool)) {
    batch.column(c).bools.push_back(bits(c) != 0 ? 1 : 0);
  }
  for (uint16_t c : columns(FieldKind::kDouble)) {
    batch.column(c).doubles.push_back(std::bit_cast<double>(bits(c)));
  }
  for (uint16_t c : columns(FieldKind::kTimestamp)) {
    // ReadEvent checked the time column; a table with more Timestamp columns reads an absent or
    // out-of-range one as the epoch.
    const int64_t micros =
        is_seen(c) ? TimestampMicros(static_cast<int64_t>(slot[c].bits), slot[c].nanos).value_or(0)
                   : 0;
    batch.column(c).int64s.push_back(micros);
  }
  for (uint16_t c : columns(FieldKind::kMap)) {
    row::StringBuffer& out = batch.column(c).strings;
    const uint16_t map = plan_.column_aux[c];
    map_memos_[map].AppendObject(out.bytes, maps_[map]);
    out.offsets.push_back(static_cast<uint32_t>(out.bytes.size()));
  }
  for (uint16_t c : columns(FieldKind::kList)) {
    row::StringBuffer& out = batch.column(c).strings;
    const uint16_t list = plan_.column_aux[c];
    list_memos_[list].AppendArray(out.bytes, lists_[list]);
    out.offsets.push_back(static_cast<uint32_t>(out.bytes.size()));
  }
  batch.CommitRow();
}

std::string EventReader::FaultError(std::string_view type) const {
  std::string error = "cannot parse ";
  error += type;
  error += ": ";
  error += wire::FaultText(fault_);
  if (fault_field_ != 0) {
    error += " (field " + std::to_string(fault_field_);
    for (const row::ColumnSpec& spec : table_->columns) {
      if (spec.wire_field == fault_field_) {
        error += spec.shape == row::WireShape::kSubField ? ", a message feeding " : ", column ";
        error += spec.name;
        break;
      }
    }
    error += ")";
  }
  if (fault_at_ != nullptr) error += " at byte " + std::to_string(fault_at_ - base_);
  return error;
}

Reject EventReader::MakeEventReject(Verdict verdict, std::string_view payload, int index) const {
  switch (verdict) {
    case Verdict::kUnreadable:
      return MakeReject(RejectReason::kUnmarshal, FaultError("garm.ledger.v1.Event"), index,
                        payload);
    case Verdict::kTimeOutOfRange: {
      const Slot& time = slots_[plan_.time_column];
      return MakeReject(RejectReason::kUnmarshal,
                        TimestampRangeError(static_cast<int64_t>(time.bits), time.nanos), index,
                        payload);
    }
    case Verdict::kMissingEventId:
      return MakeReject(RejectReason::kMissingEventId, "event_id is empty", index, payload);
    case Verdict::kMissingTime:
      return MakeReject(RejectReason::kMissingTime, "time is unset", index, payload);
    case Verdict::kRow:
      break;
  }
  assert(false && "a row is not a reject");
  return MakeReject(RejectReason::kUnmarshal, "internal: a row is not a reject", index, payload);
}

}  // namespace sinkd::contract
