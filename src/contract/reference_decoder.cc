#include "contract/reference_decoder.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/empty.pb.h>
#include <google/protobuf/message.h>
#include <google/protobuf/unknown_field_set.h>

#include <cassert>
#include <climits>
#include <optional>
#include <string>
#include <utility>

#include "contract/timestamp.h"
#include "garm/ledger/v1/event.pb.h"
#include "row/json_text.h"

namespace sinkd::contract {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::Reflection;
using row::ColumnType;
using row::WireShape;

const FieldDescriptor* FieldOf(const Message& message, uint32_t number) {
  const FieldDescriptor* field =
      message.GetDescriptor()->FindFieldByNumber(static_cast<int>(number));
  assert(field != nullptr && "a column's wire field is missing from the message");
  return field;
}

// google.protobuf.Timestamp's instant in microseconds, or nullopt when out of range.
std::optional<int64_t> TimeMicros(const Message& timestamp, int64_t* seconds, int32_t* nanos) {
  const Reflection* r = timestamp.GetReflection();
  *seconds = r->GetInt64(timestamp, FieldOf(timestamp, 1));
  *nanos = r->GetInt32(timestamp, FieldOf(timestamp, 2));
  return TimestampMicros(*seconds, *nanos);
}

void AppendScalar(const Message& message, const FieldDescriptor* field, ColumnType type,
                  row::ColumnBuffer& column) {
  const Reflection* r = message.GetReflection();
  switch (type) {
    case ColumnType::kString:
      column.strings.push_back(r->GetString(message, field));
      break;
    case ColumnType::kBool:
      column.bools.push_back(r->GetBool(message, field) ? 1 : 0);
      break;
    case ColumnType::kInt32:
      column.int32s.push_back(r->GetInt32(message, field));
      break;
    case ColumnType::kInt64:
      column.int64s.push_back(r->GetInt64(message, field));
      break;
    case ColumnType::kDouble:
      column.doubles.push_back(r->GetDouble(message, field));
      break;
    case ColumnType::kTimestamp:
      assert(false && "a Timestamp is not a scalar");
      break;
  }
}

void AppendMapJson(const Message& event, const FieldDescriptor* field, std::string& out) {
  const Reflection* r = event.GetReflection();
  const int n = r->FieldSize(event, field);
  std::vector<std::string> texts;  // owns the copies the members point into
  texts.reserve(2 * static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    const Message& entry = r->GetRepeatedMessage(event, field, i);
    const Reflection* er = entry.GetReflection();
    texts.push_back(er->GetString(entry, FieldOf(entry, 1)));
    texts.push_back(er->GetString(entry, FieldOf(entry, 2)));
  }
  std::vector<row::JsonMember> members;
  for (size_t i = 0; i < texts.size(); i += 2) members.push_back({texts[i], texts[i + 1]});
  row::AppendJsonObject(out, members);
}

void AppendListJson(const Message& event, const FieldDescriptor* field, std::string& out) {
  const Reflection* r = event.GetReflection();
  std::vector<std::string> texts;
  for (int i = 0; i < r->FieldSize(event, field); ++i) {
    texts.push_back(r->GetRepeatedString(event, field, i));
  }
  std::vector<std::string_view> items(texts.begin(), texts.end());
  row::AppendJsonArray(out, items);
}

void AppendColumn(const Message& event, const row::ColumnSpec& spec, row::ColumnBuffer& column) {
  const FieldDescriptor* field = FieldOf(event, spec.wire_field);
  const Reflection* r = event.GetReflection();
  switch (spec.shape) {
    case WireShape::kScalar:
      AppendScalar(event, field, spec.type, column);
      break;
    case WireShape::kSubField: {
      // An absent message reads as its default instance: every subfield zero.
      const Message& sub = r->GetMessage(event, field);
      AppendScalar(sub, FieldOf(sub, spec.wire_subfield), spec.type, column);
      break;
    }
    case WireShape::kTimestamp: {
      int64_t seconds;
      int32_t nanos;
      column.int64s.push_back(TimeMicros(r->GetMessage(event, field), &seconds, &nanos).value());
      break;
    }
    case WireShape::kMapJson:
      AppendMapJson(event, field, column.strings.bytes);
      column.strings.offsets.push_back(static_cast<uint32_t>(column.strings.bytes.size()));
      break;
    case WireShape::kListJson:
      AppendListJson(event, field, column.strings.bytes);
      column.strings.offsets.push_back(static_cast<uint32_t>(column.strings.bytes.size()));
      break;
    case WireShape::kNone:
      assert(false && "a column with no wire shape");
      break;
  }
}

size_t DecodeOneEvent(std::string_view payload, int index, row::RowBuffer& batch,
                      std::vector<Reject>& rejects) {
  garm::ledger::v1::Event event;
  if (payload.size() > INT_MAX ||
      !event.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) {
    rejects.push_back(MakeReject(RejectReason::kUnmarshal,
                                 "cannot parse garm.ledger.v1.Event (libprotobuf)", index,
                                 payload));
    return 0;
  }
  Reject why;
  if (EventToRow(event, batch, &why)) return 1;
  rejects.push_back(MakeReject(why.reason, std::move(why.error), index, payload));
  return 0;
}

}  // namespace

bool EventToRow(const garm::ledger::v1::Event& event, row::RowBuffer& batch, Reject* why) {
  const row::ColumnTable& table = batch.table();
  const Reflection* r = event.GetReflection();
  const FieldDescriptor* time_field = FieldOf(event, table.columns[table.time_column].wire_field);
  const bool has_time = r->HasField(event, time_field);
  if (has_time) {
    int64_t seconds;
    int32_t nanos;
    if (!TimeMicros(r->GetMessage(event, time_field), &seconds, &nanos)) {
      why->reason = RejectReason::kUnmarshal;
      why->error = TimestampRangeError(seconds, nanos);
      return false;
    }
  }
  const FieldDescriptor* id_field = FieldOf(event, table.columns[table.id_column].wire_field);
  if (r->GetString(event, id_field).empty()) {
    why->reason = RejectReason::kMissingEventId;
    why->error = "event_id is empty";
    return false;
  }
  if (!has_time) {
    why->reason = RejectReason::kMissingTime;
    why->error = "time is unset";
    return false;
  }
  for (size_t i = 0; i < table.columns.size(); ++i) {
    AppendColumn(event, table.columns[i], batch.column(static_cast<int>(i)));
  }
  batch.CommitRow();
  return true;
}

size_t DecodeWithLibprotobuf(Envelope envelope, std::string_view message, row::RowBuffer& batch,
                             std::vector<Reject>& rejects) {
  if (envelope == Envelope::kEvent) return DecodeOneEvent(message, -1, batch, rejects);
  // The Batch is split by parsing it as google.protobuf.Empty: every field becomes an unknown
  // field, and each events entry (field 1, length-delimited) arrives as its exact original bytes
  // in wire order. That is libprotobuf's own generated parser (ParseContext), so the framing rules
  // are exactly the ones Batch::ParseFromArray applies. io::CodedInputStream would be the other
  // way to split, but its limits are looser (10-byte tags and lengths), so it would accept
  // framings Batch::ParseFromArray refuses. Each event is then parsed on its own with
  // Event::ParseFromArray, which is what gives one bad event its own reject.
  google::protobuf::Empty frame;
  if (message.size() > INT_MAX ||
      !frame.ParseFromArray(message.data(), static_cast<int>(message.size()))) {
    rejects.push_back(MakeReject(RejectReason::kUnmarshal,
                                 "cannot parse garm.ledger.v1.Batch (libprotobuf)", -1, message));
    return 0;
  }
  const google::protobuf::UnknownFieldSet& fields = frame.GetReflection()->GetUnknownFields(frame);
  size_t rows = 0;
  int index = 0;
  for (int i = 0; i < fields.field_count(); ++i) {
    const google::protobuf::UnknownField& field = fields.field(i);
    if (field.number() != 1 ||
        field.type() != google::protobuf::UnknownField::TYPE_LENGTH_DELIMITED) {
      continue;  // Batch has no other field; anything else is an unknown field of Batch
    }
    rows += DecodeOneEvent(field.length_delimited(), index++, batch, rejects);
  }
  return rows;
}

}  // namespace sinkd::contract
