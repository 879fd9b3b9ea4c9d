// The wire contract against the column table, walked in both directions through libprotobuf's
// descriptors: a field added to garm.ledger.v1.Event fails here until it is a column or is on the
// ignore list with a reason (the Go sink once carried a field for nine releases without writing
// it).
#include <google/protobuf/descriptor.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "contract/field_plan.h"
#include "garm/ledger/v1/event.pb.h"
#include "row/ledger_columns.h"

namespace sinkd::contract {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using row::ColumnSpec;
using row::ColumnType;
using row::WireShape;

// Event fields that are deliberately not columns, each with the reason. Empty on purpose: every
// field reaches the lake (error_detail was considered and kept).
const std::map<std::string, std::string> kIgnoredEventFields = {};

const Descriptor* EventType() { return garm::ledger::v1::Event::descriptor(); }

bool ScalarFits(const FieldDescriptor* field, ColumnType type) {
  if (field->is_repeated()) return false;
  switch (type) {
    case ColumnType::kString:
      return field->type() == FieldDescriptor::TYPE_STRING;
    case ColumnType::kInt64:
      return field->type() == FieldDescriptor::TYPE_INT64;
    case ColumnType::kInt32:
      return field->type() == FieldDescriptor::TYPE_INT32;
    case ColumnType::kDouble:
      return field->type() == FieldDescriptor::TYPE_DOUBLE;
    case ColumnType::kBool:
      return field->type() == FieldDescriptor::TYPE_BOOL;
    case ColumnType::kTimestamp:
      return false;
  }
  return false;
}

bool IsTimestamp(const FieldDescriptor* field) {
  return field->type() == FieldDescriptor::TYPE_MESSAGE && !field->is_repeated() &&
         field->message_type()->full_name() == "google.protobuf.Timestamp";
}

// Which field (and which of its subfields) a column reads, or "" when it fits; else why not.
std::string Misfit(const ColumnSpec& spec) {
  const FieldDescriptor* field = EventType()->FindFieldByNumber(static_cast<int>(spec.wire_field));
  if (field == nullptr) return "Event has no field " + std::to_string(spec.wire_field);
  const std::string name(spec.name);
  switch (spec.shape) {
    case WireShape::kScalar:
      if (!ScalarFits(field, spec.type)) return "type differs from " + field->name();
      return name == field->name() ? "" : "is named unlike field " + field->name();
    case WireShape::kTimestamp:
      if (!IsTimestamp(field) || spec.type != ColumnType::kTimestamp) return "not a Timestamp";
      return name == field->name() ? "" : "is named unlike field " + field->name();
    case WireShape::kMapJson:
      if (!field->is_map() ||
          field->message_type()->map_key()->type() != FieldDescriptor::TYPE_STRING ||
          field->message_type()->map_value()->type() != FieldDescriptor::TYPE_STRING) {
        return "not a map<string,string>";
      }
      return name == field->name() + "_json" ? "" : "is not named " + field->name() + "_json";
    case WireShape::kListJson:
      if (field->is_map() || !field->is_repeated() ||
          field->type() != FieldDescriptor::TYPE_STRING) {
        return "not a repeated string";
      }
      return name == field->name() ? "" : "is named unlike field " + field->name();
    case WireShape::kSubField: {
      if (field->type() != FieldDescriptor::TYPE_MESSAGE || field->is_repeated() ||
          IsTimestamp(field)) {
        return "field " + field->name() + " is not a plain message";
      }
      const FieldDescriptor* sub =
          field->message_type()->FindFieldByNumber(static_cast<int>(spec.wire_subfield));
      if (sub == nullptr) return "no subfield " + std::to_string(spec.wire_subfield);
      if (!ScalarFits(sub, spec.type)) return "type differs from " + sub->full_name();
      return name == sub->name() ? "" : "is named unlike subfield " + sub->name();
    }
    case WireShape::kNone:
      return "has no wire shape";
  }
  return "unknown shape";
}

TEST(Contract, EveryEventFieldIsAColumnOrDeliberatelyNot) {
  for (int i = 0; i < EventType()->field_count(); ++i) {
    const FieldDescriptor* field = EventType()->field(i);
    int columns = 0;
    for (const ColumnSpec& spec : row::kLedgerColumns.columns) {
      if (spec.wire_field == static_cast<uint32_t>(field->number())) ++columns;
    }
    const bool ignored = kIgnoredEventFields.count(field->name()) != 0;
    EXPECT_TRUE(columns > 0 || ignored)
        << "Event." << field->name() << " (" << field->number()
        << ") reaches no column: add one to kLedgerColumnList or list it in kIgnoredEventFields "
           "with the reason";
    EXPECT_FALSE(columns > 0 && ignored) << field->name() << " is both a column and ignored";
  }
  for (const auto& [name, reason] : kIgnoredEventFields) {
    EXPECT_NE(EventType()->FindFieldByName(name), nullptr)
        << "ignored field " << name << " is gone";
    EXPECT_FALSE(reason.empty()) << name << " is ignored without a reason";
  }
}

TEST(Contract, EveryColumnReadsAnEventFieldOfAFittingType) {
  for (const ColumnSpec& spec : row::kLedgerColumns.columns) {
    EXPECT_EQ(Misfit(spec), "") << "column " << spec.name;
  }
}

TEST(Contract, ExecutionSubjectIsField71AndTheLastColumn) {
  const int index = row::ColumnIndex(row::kLedgerColumns, "execution_subject");
  ASSERT_EQ(index, static_cast<int>(row::kLedgerColumns.columns.size()) - 1)
      << "execution_subject was appended last so existing ordinals never move";
  EXPECT_EQ(row::kLedgerColumns.columns[index].wire_field, 71u);
  EXPECT_EQ(EventType()->FindFieldByName("execution_subject")->number(), 71);
}

TEST(Contract, EveryUsageFieldIsAColumn) {
  const Descriptor* usage = garm::ledger::v1::Usage::descriptor();
  ASSERT_EQ(usage->field_count(), 4) << "Usage grew: its new field needs a column";
  const FieldDescriptor* parent = EventType()->FindFieldByName("usage");
  ASSERT_NE(parent, nullptr);
  for (int i = 0; i < usage->field_count(); ++i) {
    const FieldDescriptor* field = usage->field(i);
    const int index = row::ColumnIndex(row::kLedgerColumns, field->name());
    ASSERT_GE(index, 0) << "usage." << field->name() << " has no column";
    const ColumnSpec& spec = row::kLedgerColumns.columns[index];
    EXPECT_EQ(spec.shape, WireShape::kSubField);
    EXPECT_EQ(spec.wire_field, static_cast<uint32_t>(parent->number()));
    EXPECT_EQ(spec.wire_subfield, static_cast<uint32_t>(field->number()));
  }
}

// The Batch is only the envelope of a ledger message; a field of its own would be silently lost.
TEST(Contract, TheBatchIsOnlyTheEventsEnvelope) {
  const Descriptor* batch = garm::ledger::v1::Batch::descriptor();
  ASSERT_EQ(batch->field_count(), 1) << "Batch grew a field the decoder does not read";
  const FieldDescriptor* events = batch->field(0);
  EXPECT_EQ(events->name(), "events");
  EXPECT_EQ(events->number(), 1) << "the hot path splits a Batch on field 1";
  EXPECT_TRUE(events->is_repeated());
  EXPECT_EQ(events->message_type(), EventType());
}

// The order is the lake's shape: Parquet ordinals, the INSERT list and tail's keys.
TEST(Contract, TheColumnsAreTheGoReferencesInItsOrder) {
  const char* const expected[] = {"event_id",
                                  "time",
                                  "tenant",
                                  "app",
                                  "feature",
                                  "run_id",
                                  "correlation_id",
                                  "causation_id",
                                  "budget_id",
                                  "tags_json",
                                  "prompt_name",
                                  "prompt_hash",
                                  "alias",
                                  "resolved_model",
                                  "model_overridden",
                                  "input_tokens",
                                  "output_tokens",
                                  "cached_tokens",
                                  "reasoning_tokens",
                                  "cost_usd",
                                  "cost_source",
                                  "latency_ms",
                                  "provider_request_id",
                                  "fallback_used",
                                  "outcome",
                                  "error_kind",
                                  "policy_mode",
                                  "policy_violations",
                                  "tool",
                                  "principal_subject",
                                  "principal_actor",
                                  "principal_kind",
                                  "chain_depth",
                                  "clearance_effective",
                                  "compartments_effective",
                                  "redaction_plan",
                                  "redaction_count",
                                  "disclosed_count",
                                  "error_detail",
                                  "execution_subject"};
  ASSERT_EQ(row::kLedgerColumns.columns.size(), std::size(expected));
  for (size_t i = 0; i < std::size(expected); ++i) {
    EXPECT_EQ(row::kLedgerColumns.columns[i].name, expected[i]) << "ordinal " << i;
  }
}

TEST(Contract, TheHotPathCanReadTheColumnTable) {
  const Status status = CheckWireShapes(row::kLedgerColumns);
  EXPECT_TRUE(status.ok()) << status.ToString();
}

// Two columns on one field would make the dispatch keep one and drop the other without a word.
TEST(Contract, ATableTheHotPathCannotReadIsRefusedNamingTheColumn) {
  const ColumnSpec columns[] = {
      {"id", ColumnType::kString, false, WireShape::kScalar, 1, 0, ""},
      {"time", ColumnType::kTimestamp, false, WireShape::kTimestamp, 2, 0, ""},
      {"again", ColumnType::kString, false, WireShape::kScalar, 1, 0, ""},
  };
  const row::ColumnTable table{"t", columns, 1, 0, 1};
  const Status status = CheckWireShapes(table);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("again"), std::string::npos) << status.message();
  const ColumnSpec mistyped[] = {
      {"id", ColumnType::kString, false, WireShape::kScalar, 1, 0, ""},
      {"time", ColumnType::kInt64, false, WireShape::kTimestamp, 2, 0, ""},
  };
  EXPECT_FALSE(CheckWireShapes(row::ColumnTable{"t", mistyped, 1, 0, 1}).ok());
}

}  // namespace
}  // namespace sinkd::contract
