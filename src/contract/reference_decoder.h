// The reference decoder: the same rules as WireDecoder, built on libprotobuf's generated parser and
// its reflection instead of hand-written wire reading. It is the definition the hot path is checked
// against (tests, fuzz/fuzz_decoder.cc) and what tools use when speed does not matter; it allocates
// per event and runs several times slower than WireDecoder.
// Columns are read by walking the ColumnTable and looking each WireShape up in the descriptor, so
// it shares the column list with the hot path but none of its wire code. Threads: the functions are
// pure; safe for concurrent use (libprotobuf's parser is).
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "contract/reject.h"
#include "row/row_buffer.h"

namespace garm::ledger::v1 {
class Event;
}

namespace sinkd::contract {

// Appends the row for `event` to `batch` and returns true; or, when `event` cannot be a row (time
// out of range, event_id empty, time absent, checked in that order), appends nothing, sets
// why->reason and why->error and returns false (index and payload are left to the caller).
// REQUIRES: CheckWireShapes(batch.table()).ok() and every wire_field exists in Event with a type
// that fits the column (tests/contract checks this for kLedgerColumns).
bool EventToRow(const garm::ledger::v1::Event& event, row::RowBuffer& batch, Reject* why);

// The same contract as WireDecoder::Decode (contract/wire_decoder.h), decided by
// garm::ledger::v1::Event::ParseFromArray. Rows, reasons, indexes and payloads are identical to the
// hot path's; error texts are not.
size_t DecodeWithLibprotobuf(Envelope envelope, std::string_view message, row::RowBuffer& batch,
                             std::vector<Reject>& rejects);

}  // namespace sinkd::contract
