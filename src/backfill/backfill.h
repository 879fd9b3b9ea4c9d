// Backfill replays wire messages — the bytes that travelled on a stream, one by one — into a lake
// exactly as a drain would have written them: the drain's own Batch (drain/batch.h: decoding,
// sequence range, rejects with the message each came from), the same batch limit in rows, the
// same LakeWriter and keys, landed by the drain's own Settle (drain/settle.h: place Parts →
// commit → acknowledge) through a drain::LakeRowStore. Messages are numbered from 1 in the order
// given; those numbers stand in for stream sequences in keys and footers. A batch holds their
// bytes only while it decodes them, and their acknowledger (RunProgress) counts what landed:
// a recording has no one to ack. What cannot be read is kept in a dead-letter file
// (backfill/dead_letter_file.h: DeadLetterFile, the DeadLetters Settle stores them in), written
// before the Parts of its batch, as a drain stores its dead letters before it flushes.
// Pipeline: a full batch is settled by a drain::Settler (drain/settler.h, with no flush deadline)
// while the caller decodes the next one, as the drain settles batch N while it decodes N+1. At
// most ONE batch settles at a time and batches settle in input order, each batch's dead letters
// before its Parts.
// Batches close after the message that reaches batch_max_rows or batch_max_bytes, or before one
// that would take them past max_partitions_per_flush.
// Decode: messages are taken in runs (run_messages or ParallelDecoder::kRunBytes, whichever
// first). While no batch flushes (the first batch), a run is shared out on a pool of
// decode_threads (drain/parallel_decoder.h): the caller decodes its first part straight into the
// batch while the pool decodes the rest, whose messages are then added one at a time; while one
// flushes, the run is decoded on the caller's thread straight into the batch, since the flush's
// encode has the other cores and moving rows out of a pool's scratch costs ~8% more CPU than
// decoding in place. Either way batches close after exactly the message they would close after
// if each were decoded alone, and hold the same rows.
// Memory: at most two batches, one decoding and one flushing (with its encoded Parts), and one
// run of messages.
// Ownership: borrows the Destination and the Logger (both used from the Settler's thread too).
// Threads: Add, AddRun, Finish and report belong to one thread; the Settler's thread is internal.
// Errors: a failed flush stops the backfill with Redeliver, reported by the Add that fills the next
// batch or by Finish; no later batch is flushed after it. Parts already committed stay whole.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "backfill/dead_letter_file.h"
#include "base/backoff.h"
#include "base/log.h"
#include "base/status.h"
#include "base/work_pool.h"
#include "partition/partition_cap.h"
#include "contract/wire_decoder.h"
#include "drain/batch.h"
#include "drain/parallel_decoder.h"
#include "drain/settler.h"
#include "drain/row_store.h"
#include "lake/lake_writer.h"
#include "table/acknowledger.h"
#include "table/commit.h"

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
  // Partitions one flush may write, as a drain's (drain/batch.h): a message that would take a
  // batch past it starts the next one, and the events of a message spanning more than that alone
  // go to the dead-letter file (too_many_partitions). At least 1.
  size_t max_partitions_per_flush = partition::kDefaultMaxPartitionsPerFlush;
  lake::LakeWriterOptions lake;       // key prefix, instance, Parquet options
  // Threads decoding each run of messages; the command sets it to --encode-threads.
  size_t decode_threads = 1;
  // Messages a run holds before it is decoded (fewer once it holds ParallelDecoder::kRunBytes).
  // A batch's flush starts at the end of the run that filled it.
  size_t run_messages = drain::ParallelDecoder::kRunMessages;
};

struct BackfillReport {
  uint64_t messages = 0;
  uint64_t rows = 0;
  uint64_t rejects = 0;
  uint64_t parts = 0;
  uint64_t bytes = 0;
  uint64_t flushes = 0;
  uint64_t landed = 0;  // messages whose batch landed: acknowledged (rows) or terminated (none)
  std::vector<std::string> dead_letter_keys;
};

class Backfill {
 public:
  // `commit`: the table's commit step (table/commit.h; iceberg/table_format.h makes the one a
  // --table-format names), borrowed, outliving the Backfill. Import's positions are of scope
  // "run" (numbered from 1 on every run): a table records its flushes and never filters them.
  Backfill(lake::Destination& destination, BackfillOptions options, Logger& log,
           table::Commit& commit = table::NoTableCommit());

  ~Backfill();  // waits for the batch settling, if any (its Parts are committed or removed)
  Backfill(const Backfill&) = delete;
  Backfill& operator=(const Backfill&) = delete;

  // Takes a copy of one message (from input `subject`, e.g. a file name) into the run; a full run
  // is decoded into the filling batch. When the batch reached its row or byte limit, waits for the
  // previous batch's flush (returning its error, if any) and starts flushing this one.
  Status Add(std::string_view message, std::string_view subject);
  // The same for messages whose bytes stay alive only until it returns (a run of
  // contract::DelimitedStreamReader::NextRun): they are decoded before it returns, where they
  // are, with any messages Add holds, and not copied.
  Status AddRun(std::span<const std::string_view> messages, std::string_view subject);
  // What a run holds before Add decodes it, in messages and in bytes: the sizes to read runs in.
  size_t run_messages() const { return options_.run_messages; }
  static constexpr size_t kRunBytes = drain::ParallelDecoder::kRunBytes;
  // Flushes what is left and waits for every flush. REQUIRES: called once, last.
  Status Finish();

  // Complete once Finish returned.
  const BackfillReport& report() const { return report_; }

 private:
  // Waits for the batch settling, if any, adds its report up and returns its status (the first
  // failure's, from then on).
  Status WaitForFlush();
  // Hands the filling batch to the Settler; the other batch (settled, cleared) fills next.
  Status StartFlush();
  // Decodes the run and adds its messages to the filling batch, flushing each batch that fills.
  Status DecodeRun();
  // Adds run_[i] to the filling batch (decoding it here, or from `decoded`'s payload
  // decoded_index), logs its rejects, and starts the batch's flush when it is full.
  Status AddToBatch(size_t i, drain::ParallelDecoder* decoded, size_t decoded_index);

  // Import's Acknowledger (table/acknowledger.h): counts the messages of each batch that landed
  // into the report (on the Settler's thread, read once it has reported the batch); a Nak
  // counts nothing, since a failed batch stops the import.
  class RunProgress final : public table::Acknowledger {
   public:
    explicit RunProgress(uint64_t& landed) : landed_(landed) {}
    Status Ack(size_t) override { return ++landed_, Status::OK(); }
    Status Term(size_t) override { return ++landed_, Status::OK(); }
    Status Nak(size_t, std::chrono::milliseconds) override { return Status::OK(); }
    void Clear() override {}

   private:
    uint64_t& landed_;
  };

  BackfillOptions options_;
  Logger& log_;
  drain::LakeRowStore store_;
  DeadLetterFile dead_letters_;
  BackoffCounter backoff_;  // Settle's nak delay: nothing waits on it, a failure stops the import
  // `messages` is counted by the caller's thread, the rest from the Settler's reports.
  BackfillReport report_;
  drain::Batch batches_[2];
  std::unique_ptr<WorkPool> decode_pool_;
  drain::ParallelDecoder decoder_;  // on decode_pool_
  struct Pending {
    std::string_view payload;  // Add's copy in copies_, or AddRun's caller's until it returns
    std::string subject;
    uint64_t sequence;
  };
  std::vector<Pending> run_;
  std::deque<std::string> copies_;  // Add's messages until the run is decoded (stable addresses)
  size_t run_bytes_ = 0;
  int filling_ = 0;  // index into batches_; the other one is settling or empty
  Status failed_;    // the first failed settle's status: nothing settles after it
  uint64_t next_sequence_ = 1;
  // Last: destroyed first, waiting for the batch settling, which uses everything above.
  std::unique_ptr<drain::Settler> settler_;
};

}  // namespace sinkd::backfill
