// DeadLetterFile keeps the records an offline import could not read, so that nothing is dropped
// even where there is no dead-letter stream: one JSON object per record, with the same facts a
// JetStream dead letter carries in its headers and the original bytes in base64:
//   {"reason":"missing_time","error":"time is unset","stream":"import","subject":"<file>",
//    "sequence":12,"event_index":3,"payload_base64":"…"}
// The file is placed through the lake's Destination under table::DeadLetterKey,
//   dead-letters/<prefix>/dead-<instance>[.<k>]-<firstSeq>-<lastSeq>.jsonl
// with the same placement as a Part (never replacing a key), so DuckDB's read_json reads it.
// Threads: one thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "contract/wire_decoder.h"
#include "lake/destination.h"
#include "lake/lake_writer.h"

namespace sinkd::backfill {

struct DeadLetter {
  contract::Reject reject;
  std::string stream;   // where the record came from ("import")
  std::string subject;  // the input file
  uint64_t sequence = 0;
};

// One JSON line (with its newline) for a dead letter.
std::string DeadLetterLine(const DeadLetter& letter);

// Places `lines` (already rendered) as one file through lake::Place: at key_for(0), or at the next
// alternative while a key holds other bytes. Returns the key used; no lines: no file, "".
Result<std::string> WriteDeadLetters(
    lake::Destination& destination,
    const std::function<std::string(uint32_t alternative)>& key_for, const std::string& lines);

}  // namespace sinkd::backfill
