// DeadLetterFile keeps the records an offline import could not read, so that nothing is dropped
// even where there is no dead-letter stream: one JSON object per record, with the same facts a
// JetStream dead letter carries in its headers and the original bytes in base64:
//   {"reason":"missing_time","error":"time is unset","stream":"import","subject":"<file>",
//    "sequence":12,"event_index":3,"payload_base64":"…"}
// The file is placed through the lake's Destination under table::DeadLetterKey,
//   dead-letters/<prefix>/dead-<instance>[.<k>]-<firstSeq>-<lastSeq>.jsonl
// with the same placement as a Part (never replacing a key), so DuckDB's read_json reads it.
// DeadLetterFile is import's drain::DeadLetters (drain/row_store.h): Settle hands it a batch's rejects
// one by one and then Syncs it with the batch's range, which places the batch's one file and
// syncs the destination, before the batch's Parts are placed.
// Threads: one thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "contract/wire_decoder.h"
#include "drain/row_store.h"
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

class DeadLetterFile final : public drain::DeadLetters {
 public:
  // Files go under table::DeadLetterKey(key_prefix, instance, …).
  DeadLetterFile(lake::Destination& destination, std::string key_prefix, std::string instance)
      : destination_(destination),
        key_prefix_(std::move(key_prefix)),
        instance_(std::move(instance)) {}

  // Renders the record as its line, kept until Sync. Always true: a file is written once.
  Result<bool> Publish(const jetstream::DeadLetterRecord& record) override;
  // Places the lines published since the last Sync as one file named for the batch's range and
  // syncs the destination; forgets the lines either way.
  Status Sync(uint64_t first_sequence, uint64_t last_sequence) override;
  // There is no stream to describe: Refuse.
  Result<jetstream::StreamState> State() override;

  // Every file placed so far, in order.
  const std::vector<std::string>& keys() const { return keys_; }

 private:
  lake::Destination& destination_;
  std::string key_prefix_;
  std::string instance_;
  std::string lines_;
  std::vector<std::string> keys_;
};

}  // namespace sinkd::backfill
