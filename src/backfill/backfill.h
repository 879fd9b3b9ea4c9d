// Backfill replays wire messages — the bytes that travelled on a stream, one by one — into a lake
// exactly as a drain would have written them: the drain's own Batch (drain/batch.h: decoding,
// sequence range, rejects with the message each came from), the same batch limit in rows, the
// same LakeWriter and keys. Messages are numbered from 1 in the order given; those numbers stand
// in for stream sequences in keys and footers. What cannot be read is kept in a dead-letter file
// (backfill/dead_letter_file.h), written before the Parts of its batch, as a drain stores its
// dead letters before it flushes.
// Ownership: borrows the Destination and the Logger. Threads: one thread at a time.
// Errors: a failed flush stops the backfill with Redeliver; Parts already committed stay whole.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/log.h"
#include "base/status.h"
#include "contract/wire_decoder.h"
#include "drain/batch.h"
#include "lake/lake_writer.h"

namespace sinkd::backfill {

struct BackfillOptions {
  contract::Envelope envelope = contract::Envelope::kBatch;
  std::string stream = "import";      // names the source in footers and dead letters
  size_t batch_max_rows = 250'000;    // rows, not messages: one ledger message holds hundreds
  // Bytes held (messages and decoded rows, drain::Batch::bytes), as the drain's default bounds
  // them: a message counts as a drain holds it until acked, so batches close where a drain's
  // would, though import keeps only its subject once decoded (nothing to ack).
  // At most row::kMaxBatchBytes (32-bit string offsets).
  size_t batch_max_bytes = row::kDefaultBatchBytes;
  lake::LakeWriterOptions lake;       // key prefix, instance, Parquet options
};

struct BackfillReport {
  uint64_t messages = 0;
  uint64_t rows = 0;
  uint64_t rejects = 0;
  uint64_t parts = 0;
  uint64_t bytes = 0;
  uint64_t flushes = 0;
  std::vector<std::string> dead_letter_keys;
};

class Backfill {
 public:
  Backfill(lake::Destination& destination, BackfillOptions options, Logger& log);

  // Decodes one message (from input `subject`, e.g. a file name) and flushes when the batch
  // reached its row or byte limit.
  Status Add(std::string_view message, std::string_view subject);
  // Flushes what is left. REQUIRES: called once, last.
  Status Finish();

  const BackfillReport& report() const { return report_; }

 private:
  Status Flush();

  lake::Destination& destination_;
  BackfillOptions options_;
  Logger& log_;
  lake::LakeWriter writer_;
  drain::Batch batch_;
  uint64_t next_sequence_ = 1;
  BackfillReport report_;
};

}  // namespace sinkd::backfill
