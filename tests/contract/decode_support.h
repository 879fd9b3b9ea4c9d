// Helpers for the decoder tests: wire bytes written by hand (for what libprotobuf's serializer
// would never produce), realistic events built with libprotobuf, and decoding through the
// hand-written and the reference decoder at once so every test holds both to the same rules.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "contract/reject.h"
#include "garm/ledger/v1/event.pb.h"
#include "row/ledger_columns.h"
#include "row/row_buffer.h"

namespace sinkd::contract::testing {

std::string Varint(uint64_t value);
// A tag, then for wire type 2 the length of `body`, then `body` (already encoded for 0, 1, 5).
std::string Field(uint32_t number, uint32_t wire_type, std::string_view body);
inline std::string Len(uint32_t number, std::string_view body) { return Field(number, 2, body); }
inline std::string VarintField(uint32_t number, uint64_t value) {
  return Field(number, 0, Varint(value));
}
// Event.time (field 2) holding exactly the given seconds and nanos fields.
std::string TimeField(int64_t seconds, int32_t nanos);
// One entry of Event.tags (field 17).
std::string TagEntry(std::string_view key, std::string_view value);

// An event carrying every field, as a publisher would send it.
garm::ledger::v1::Event FullEvent(const std::string& id = "evt-1");
// The smallest event that is a row: an id and a time.
std::string MinimalEvent(std::string_view id = "evt-min");

struct Decoded {
  row::RowBuffer rows{row::kLedgerColumns};
  std::vector<Reject> rejects;
  size_t returned = 0;

  std::string_view Str(std::string_view column, size_t row = 0) const;
  int64_t Int64(std::string_view column, size_t row = 0) const;  // kInt64 and kTimestamp
  int32_t Int32(std::string_view column, size_t row = 0) const;
  double Double(std::string_view column, size_t row = 0) const;
  bool Bool(std::string_view column, size_t row = 0) const;
};

// Decodes `message` with WireDecoder and with DecodeWithLibprotobuf, records a test failure naming
// the first difference (rows, a column value, a reject's reason, index or payload), and returns
// the hand-written decoder's result.
Decoded DecodeBoth(Envelope envelope, std::string_view message);

}  // namespace sinkd::contract::testing
