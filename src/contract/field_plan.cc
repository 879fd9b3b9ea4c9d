#include "contract/field_plan.h"

#include <cassert>
#include <map>
#include <string>

#include "contract/wire_format.h"

namespace sinkd::contract {
namespace {

using row::ColumnSpec;
using row::ColumnType;
using row::WireShape;

FieldKind ScalarKind(ColumnType type) {
  switch (type) {
    case ColumnType::kString:
      return FieldKind::kString;
    case ColumnType::kBool:
      return FieldKind::kBool;
    case ColumnType::kInt32:
      return FieldKind::kInt32;
    case ColumnType::kInt64:
      return FieldKind::kInt64;
    case ColumnType::kDouble:
      return FieldKind::kDouble;
    case ColumnType::kTimestamp:
      return FieldKind::kUnknown;  // only through WireShape::kTimestamp
  }
  return FieldKind::kUnknown;
}

// The kind a column's own value is read as (its parent message aside).
FieldKind ColumnKind(const ColumnSpec& spec) {
  switch (spec.shape) {
    case WireShape::kScalar:
    case WireShape::kSubField:
      return ScalarKind(spec.type);
    case WireShape::kTimestamp:
      return spec.type == ColumnType::kTimestamp ? FieldKind::kTimestamp : FieldKind::kUnknown;
    case WireShape::kMapJson:
      return spec.type == ColumnType::kString ? FieldKind::kMap : FieldKind::kUnknown;
    case WireShape::kListJson:
      return spec.type == ColumnType::kString ? FieldKind::kList : FieldKind::kUnknown;
    case WireShape::kNone:
      return FieldKind::kUnknown;
  }
  return FieldKind::kUnknown;
}

Status Bad(const ColumnSpec& spec, std::string_view why) {
  return Status::Reject("column " + std::string(spec.name) + ": " + std::string(why));
}

void Place(MessagePlan& plan, uint32_t field, FieldKind kind, uint16_t column, uint16_t aux) {
  if (plan.by_number.size() <= field) plan.by_number.resize(field + 1);
  plan.by_number[field] =
      FieldRule{kind, static_cast<uint8_t>(ExpectedWireType(kind)), column, aux};
}

}  // namespace

uint32_t ExpectedWireType(FieldKind kind) {
  switch (kind) {
    case FieldKind::kBool:
    case FieldKind::kInt32:
    case FieldKind::kInt64:
      return wire::kVarint;
    case FieldKind::kDouble:
      return wire::kFixed64;
    default:
      return wire::kLengthDelimited;
  }
}

Status CheckWireShapes(const row::ColumnTable& table) {
  // What each top-level field number is claimed by: a column (plain) or a message of subfields.
  std::map<uint32_t, bool> top;  // field -> is a kSubField parent
  std::map<std::pair<uint32_t, uint32_t>, int> sub;
  for (const ColumnSpec& spec : table.columns) {
    if (ColumnKind(spec) == FieldKind::kUnknown) return Bad(spec, "type does not fit its shape");
    if (spec.wire_field == 0 || spec.wire_field > 4096) {
      return Bad(spec, "field number out of the decoder's range (1..4096)");
    }
    const bool parent = spec.shape == WireShape::kSubField;
    if (parent && (spec.wire_subfield == 0 || spec.wire_subfield > 4096)) {
      return Bad(spec, "a subfield column needs a subfield number in 1..4096");
    }
    auto [it, fresh] = top.emplace(spec.wire_field, parent);
    if (!fresh && (!parent || !it->second)) return Bad(spec, "field number claimed twice");
    if (parent && !sub.emplace(std::pair(spec.wire_field, spec.wire_subfield), 0).second) {
      return Bad(spec, "subfield claimed twice");
    }
  }
  auto role = [&](int index, ColumnType type, WireShape shape) {
    return index >= 0 && static_cast<size_t>(index) < table.columns.size() &&
           table.columns[index].type == type && table.columns[index].shape == shape;
  };
  if (!role(table.id_column, ColumnType::kString, WireShape::kScalar)) {
    return Status::Reject("table " + std::string(table.name) + ": id column is not a string field");
  }
  if (!role(table.time_column, ColumnType::kTimestamp, WireShape::kTimestamp)) {
    return Status::Reject("table " + std::string(table.name) +
                          ": time column is not a Timestamp field");
  }
  return Status::OK();
}

FieldPlan MakeFieldPlan(const row::ColumnTable& table) {
  assert(CheckWireShapes(table).ok() && "a column table the decoder cannot read");
  FieldPlan plan;
  plan.id_column = table.id_column;
  plan.time_column = table.time_column;
  std::map<uint32_t, uint16_t> message_index;  // parent field -> index into plan.messages
  for (size_t i = 0; i < table.columns.size(); ++i) {
    const ColumnSpec& spec = table.columns[i];
    const FieldKind kind = ColumnKind(spec);
    const auto column = static_cast<uint16_t>(i);
    uint16_t aux = 0;
    if (kind == FieldKind::kMap) aux = plan.maps++;
    if (kind == FieldKind::kList) aux = plan.lists++;
    plan.column_kind.push_back(kind);
    plan.column_aux.push_back(aux);
    plan.columns_of_kind[static_cast<int>(kind)].push_back(column);
    if (spec.shape != WireShape::kSubField) {
      Place(plan.event, spec.wire_field, kind, column, aux);
      continue;
    }
    auto [it, fresh] =
        message_index.emplace(spec.wire_field, static_cast<uint16_t>(plan.messages.size()));
    if (fresh) {
      plan.messages.emplace_back();
      Place(plan.event, spec.wire_field, FieldKind::kMessage, 0, it->second);
    }
    Place(plan.messages[it->second], spec.wire_subfield, kind, column, 0);
  }
  return plan;
}

}  // namespace sinkd::contract
