#include "backfill/backfill.h"

#include "backfill/dead_letter_file.h"
#include "row/ledger_columns.h"

namespace sinkd::backfill {

Backfill::Backfill(lake::Destination& destination, BackfillOptions options, Logger& log)
    : destination_(destination),
      options_(std::move(options)),
      log_(log),
      writer_(destination, options_.lake),
      rows_(row::kLedgerColumns) {}

Status Backfill::Add(std::string_view message, std::string_view subject) {
  const uint64_t sequence = next_sequence_++;
  if (first_sequence_ == 0) first_sequence_ = sequence;
  last_sequence_ = sequence;
  ++report_.messages;
  rejects_scratch_.clear();
  decoder_.Decode(options_.envelope, message, rows_, rejects_scratch_);
  for (contract::Reject& reject : rejects_scratch_) {
    log_.Error("unreadable record; dead-lettering",
               {{"subject", subject}, {"seq", sequence}, {"reject", reject.ToString()}});
    DeadLetter letter{std::move(reject), options_.stream, std::string(subject), sequence};
    dead_lines_ += DeadLetterLine(letter);
    ++report_.rejects;
  }
  if (rows_.rows() >= options_.batch_max_rows || rows_.bytes() >= options_.batch_max_bytes) {
    return Flush();
  }
  return Status::OK();
}

Status Backfill::Finish() { return Flush(); }

// Same order as a drain's flush: dead letters first (small, and a record must never be lost
// because its neighbours' Parts failed), then the Parts.
Status Backfill::Flush() {
  if (first_sequence_ == 0) return Status::OK();
  if (!dead_lines_.empty()) {
    const std::string key = DeadLetterKey(options_.lake.key_prefix, options_.lake.instance,
                                          first_sequence_, last_sequence_);
    SINKD_RETURN_IF_ERROR(WriteDeadLetters(destination_, key, dead_lines_));
    SINKD_RETURN_IF_ERROR(destination_.Sync());
    report_.dead_letter_keys.push_back(key);
    dead_lines_.clear();
  }
  lake::Provenance provenance{options_.stream, first_sequence_, last_sequence_};
  auto flushed = writer_.Flush(rows_, provenance);
  if (!flushed.ok()) return flushed.status();
  log_.Info("flushed batch", {{"rows", flushed->rows},
                              {"parts", static_cast<uint64_t>(flushed->parts.size())},
                              {"bytes", flushed->bytes},
                              {"first_seq", first_sequence_},
                              {"last_seq", last_sequence_}});
  report_.rows += flushed->rows;
  report_.parts += flushed->parts.size();
  report_.bytes += flushed->bytes;
  ++report_.flushes;
  rows_.Clear();
  first_sequence_ = last_sequence_ = 0;
  return Status::OK();
}

}  // namespace sinkd::backfill
