#include "contract/event_scope.h"

#include <cstdint>

#include "contract/wire_format.h"
#include "row/ledger_columns.h"

namespace sinkd::contract {

namespace {

constexpr uint32_t kBatchEventsField = 1;  // Batch.events

// Field numbers come from the one table of the Event's fields.
constexpr uint32_t WireField(std::string_view column) {
  for (const row::ColumnSpec& c : row::kLedgerColumnList) {
    if (c.name == column) return c.wire_field;
  }
  return 0;
}
constexpr uint32_t kTenantField = WireField("tenant");
constexpr uint32_t kAppField = WireField("app");
static_assert(kTenantField == 10 && kAppField == 11, "garm.ledger.v1.Event numbers them so");

// Calls `f(field, bytes)` for each length-delimited field of `message`, in order, skipping the
// others, until `f` returns false or the framing breaks.
template <typename F>
void ForEachBytesField(std::string_view message, F&& f) {
  const auto* p = reinterpret_cast<const uint8_t*>(message.data());
  const uint8_t* const end = p + message.size();
  wire::Fault fault = wire::Fault::kNone;
  while (p < end) {
    uint32_t tag = 0;
    p = wire::ReadTag(p, end, &tag, &fault);
    if (p == nullptr || tag == 0 || (tag & 7) == wire::kEndGroup) return;
    if ((tag & 7) != wire::kLengthDelimited) {
      p = wire::SkipField(tag, p, end, wire::kRecursionLimit, &fault);
      if (p == nullptr) return;
      continue;
    }
    size_t length = 0;
    p = wire::ReadLength(p, end, &length, &fault);
    if (p == nullptr) return;
    if (!f(tag >> 3, std::string_view(reinterpret_cast<const char*>(p), length))) return;
    p += length;
  }
}

}  // namespace

EventScope ScopeOf(Envelope envelope, std::string_view message) {
  std::string_view event = message;
  if (envelope == Envelope::kBatch) {
    event = {};
    ForEachBytesField(message, [&](uint32_t field, std::string_view bytes) {
      if (field != kBatchEventsField) return true;
      event = bytes;
      return false;
    });
  }
  EventScope scope;
  ForEachBytesField(event, [&](uint32_t field, std::string_view bytes) {
    if (field == kTenantField) scope.tenant = bytes;
    if (field == kAppField) scope.app = bytes;
    return true;
  });
  return scope;
}

}  // namespace sinkd::contract
