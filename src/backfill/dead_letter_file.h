// DeadLetterFile keeps the records an offline import could not read, so that nothing is dropped
// even where there is no dead-letter stream: one JSON object per record, with the same facts a
// JetStream dead letter carries in its headers and the original bytes in base64:
//   {"reason":"missing_time","error":"time is unset","stream":"import","subject":"<file>",
//    "sequence":12,"event_index":3,"payload_base64":"…"}
// The file is placed through the lake's Destination under
//   dead-letters/<prefix>/dead-<instance>-<firstSeq>-<lastSeq>.jsonl
// with the same write-then-commit discipline as a Part, so DuckDB's read_json reads it.
// Threads: one thread at a time.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"
#include "contract/wire_decoder.h"
#include "lake/destination.h"

namespace sinkd::backfill {

struct DeadLetter {
  contract::Reject reject;
  std::string stream;   // where the record came from ("import")
  std::string subject;  // the input file
  uint64_t sequence = 0;
};

// One JSON line (with its newline) for a dead letter.
std::string DeadLetterLine(const DeadLetter& letter);

// Writes `lines` (already rendered) as one committed file. No lines: no file.
Status WriteDeadLetters(lake::Destination& destination, const std::string& key,
                        const std::string& lines);

std::string DeadLetterKey(std::string_view prefix, std::string_view instance, uint64_t first,
                          uint64_t last);

}  // namespace sinkd::backfill
