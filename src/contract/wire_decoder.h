// WireDecoder turns garm.ledger.v1 wire messages into rows of a RowBuffer, or into Rejects. It is
// the drain's hot path: it reads the protobuf wire format itself and appends straight into the
// batch's column buffers, with no allocation per field or per row once its scratch space has grown
// (each event's values are views into the message until the event is known to be a row). It accepts
// and refuses exactly what libprotobuf 3.21's generated parser does (see contract/wire_format.h);
// DecodeWithLibprotobuf is the reference and fuzz/fuzz_decoder.cc checks that the two agree on
// every row, column value and reject. Ownership: borrows the ColumnTable (constexpr data); owns its
// scratch. Threads: one thread at a time; separate decoders are independent. Never fails as a
// whole: what cannot become a row becomes a Reject, and the decoder is ready for the next message
// either way.
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

#include "contract/reject.h"
#include "row/column_table.h"
#include "row/ledger_columns.h"
#include "row/row_buffer.h"

namespace sinkd::contract {

class WireDecoder {
 public:
  // REQUIRES: CheckWireShapes(table).ok() (contract/field_plan.h); kLedgerColumns passes.
  explicit WireDecoder(const row::ColumnTable& table = row::kLedgerColumns);
  ~WireDecoder();
  WireDecoder(const WireDecoder&) = delete;
  WireDecoder& operator=(const WireDecoder&) = delete;

  // Decodes one message of the stream's `envelope`. Appends one row to `batch` per event that is
  // one and one Reject to `rejects` per event that is not, both in event order, and returns the
  // number of rows appended. The rules, in order, for each event:
  //   - not a readable garm.ledger.v1.Event (including invalid UTF-8 in any string, and a time
  //     outside 0001..9999 or with nanos outside 0..999999999): reason kUnmarshal;
  //   - event_id empty: kMissingEventId, "event_id is empty";
  //   - time absent: kMissingTime, "time is unset" (an explicitly present zero Timestamp is
  //     1970-01-01T00:00:00Z and a row).
  // kBatch: a bad event is a reject with its index in the Batch and its own original bytes (a
  // sub-slice of `message`); the other events still become rows. A Batch whose framing itself is
  // broken is one kUnmarshal reject with index -1 carrying the whole message and adds no rows. An
  // empty Batch adds neither rows nor rejects. Each event is read as a standalone Event would be
  // (its own nesting budget of 100 levels).
  // kEvent: the message is one event; a reject has index -1 and carries the whole message.
  // REQUIRES: batch.table() has the columns this decoder was built for.
  size_t Decode(Envelope envelope, std::string_view message, row::RowBuffer& batch,
                std::vector<Reject>& rejects);

  // Appends the events of a kBatch `message` to `events`, in order, as views into it (valid as
  // long as it is): event i is the sub-slice a reject of index i carries. Returns false when the
  // framing is broken (`events` then holds the events before the break), as Decode would find.
  bool BatchEvents(std::string_view message, std::vector<std::string_view>& events);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace sinkd::contract
