// LakeWriter turns one batch of rows into Parts in a Destination: one Part per partition
// (date + partition columns), rows sorted by (time, id), each Part encoded (see "Parallel encode"
// below) and placed (lake::Place: never replacing a key), then the Destination synced once.
// Then the table's commit step records them (table/commit.h; `none` by default, which records
// nothing). When Flush returns OK every row is durable and committed and may be acknowledged. It
// is the one way a Part enters a lake, for the drain, `import` and the outbox lake sinks alike.
// Keys: the same rows with the same provenance give the same bytes under the same key, so a
// redelivered batch whose Parts landed finds them in place (kSame) and writes nothing; a key
// taken by other bytes (a fixed instance re-flushing a range that now holds other rows) moves
// the Part to the key's next alternative (table/key.h), never over it.
// Steps of a flush (lake_writer.cc): plan (partition the rows, reorder them into Part order with
// partition::OrderByPartition, column by column on the pool, so that each Part reads its values in
// order), then for each Part in order encode and place it, then sync the Destination once, then
// commit. Parallel encode: the writer owns a WorkPool of options.encode_threads threads (started
// with it, reused by every flush). A Part of at most one row group is encoded ahead, on the pool,
// into memory, a window of Parts at a time (at least one per thread and 65,536 rows), the next
// window encoding while this thread places the one before; a larger Part streams into its upload
// row group by row group, its column chunks encoded on the pool (parquet/part_writer.h). Uploads,
// the Sync, the commit and the failed-flush cleanup stay on the calling thread, deliberately: the
// Destination is one thread at a time (destination.h) and an S3 upload holds its connection;
// placing in Part order keeps each key's alternative, the cleanup (only the Parts this flush
// placed, kNew) and the report exactly what one thread gives; the encode is where a flush's CPU
// goes, the placement mostly waits on the disk or the network. The bytes of every Part are the
// same at any thread count and any window. Memory: at most two windows of encoded Parts wait to
// be placed (each freed once placed), each encode thread holds one row group's scratch
// (dictionary, indices, page buffer, ZSTD context) per column writer it runs, and the reorder,
// before those, one column's worth per thread (freed before the encode, which reuses it).
// Measured figures are in BENCHMARKS.md.
// Ownership: borrows the Destination (must outlive the writer). Threads: one thread at a time.
// Errors: a failure aborts the Part in progress, deletes (best effort, before returning) the
// Parts this flush placed itself (kNew; never one found in place, which may hold acked rows),
// and returns Redeliver naming the key — Reject when the Parquet writer refused the rows
// themselves (a STRING that is not UTF-8: no redelivery can help), Internal for a bug. A commit
// that fails is such a failure too (Redeliver, Internal kept), after every Part was placed. Only a
// crash between a Commit and that delete leaves a Part whose rows the redelivery writes again:
// duplicates, never a gap.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/work_pool.h"
#include "lake/destination.h"
#include "lake/stamp.h"
#include "parquet/part_writer.h"
#include "row/row_buffer.h"
#include "table/commit.h"
#include "table/flush.h"

namespace sinkd::lake {

// The Parquet options every lake Part starts from. The Bloom filter on the id column targets a 2.5%
// false-positive rate rather than the writer's 1%: ids are unique, so at 1% a full row group
// needs a 256 KiB filter (power-of-two sizes) and the Part came out larger than DuckDB's
// COPY of the same rows; at 2.5% it is 128 KiB and a point lookup still skips 97.5% of the row
// groups that do not hold the id.
inline parquet::WriterOptions LakePartOptions() {
  parquet::WriterOptions options;
  options.bloom_fpp = 0.025;
  return options;
}

inline constexpr size_t kMaxEncodeThreads = 256;

struct LakeWriterOptions {
  std::string key_prefix;  // "ledger", "audit", …: the first key segment
  std::string instance;    // unique per process (table::DefaultInstanceId)
  parquet::WriterOptions parquet = LakePartOptions();
  // Threads that encode Parts and column chunks (the calling thread counts as one).
  size_t encode_threads = WorkPool::DefaultThreads();

  // Refuse, naming the option ("key_prefix \"../x\": …"): a prefix that is not '/'-separated
  // safe tokens, an instance that is not one safe token (letters, digits, '-', '_', '.'; never
  // "." or ".."), a ZSTD level outside 1-19, row groups outside 1-10,000,000 rows, encode threads
  // outside 1-kMaxEncodeThreads. Every command
  // and sink that writes a lake checks its options here, before anything is read.
  Status Validate() const;
};

// What placing does with a key that holds other bytes. A flush tries the next alternative name:
// its rows must land, and the key's bytes are another instance's rows. A compaction output reports
// it: the key holds another compactor's output of the same inputs, which stands for ours.
enum class WhenTaken { kTryAlternatives, kReport };

// Places one object through `write` (which streams its bytes into the upload) under
// `key_for(0)`, or, while that key holds other bytes and `when_taken` says so, under key_for(1),
// key_for(2), … up to kMaxAlternatives. Returns the key used and whether the object was placed
// (kNew), found in place (kSame), or, with WhenTaken::kReport only, found taken by other bytes
// (kTaken: nothing written). Redeliver when every alternative is taken or the upload failed, but
// a Reject or Internal from `write` as it is: no redelivery makes those bytes writable.
inline constexpr uint32_t kMaxAlternatives = 64;
struct PlacedObject {
  std::string key;
  Placed placed = Placed::kNew;
};
Result<PlacedObject> Place(Destination& destination,
                           const std::function<std::string(uint32_t alternative)>& key_for,
                           const std::function<Status(PartUpload&)>& write,
                           WhenTaken when_taken = WhenTaken::kTryAlternatives);

// What a flush was given and what it placed (table/flush.h: the commit step receives both).
using Provenance = table::Provenance;
using PartReport = table::PartReport;
using FlushReport = table::FlushReport;

class LakeWriter {
 public:
  // `commit` (table/commit.h) records every flush's Parts once they are placed and synced; the
  // default, `none`, records nothing (the hive layout is the table).
  LakeWriter(Destination& destination, LakeWriterOptions options,
             table::Commit& commit = table::NoTableCommit());

  // Writes every row of `batch`. No rows: no Part, no I/O, an empty report. Reorders the batch's
  // rows into Part order first (partition::OrderByPartition): the same rows, each Part's together,
  // so that encoding reads every Part's values in order. A batch flushed again (a retry) gives
  // the same Parts.
  Result<FlushReport> Flush(row::RowBuffer& batch, const Provenance& provenance);

  const LakeWriterOptions& options() const { return options_; }
  table::Commit& commit() const { return commit_; }

 private:
  std::string RemovePlaced(const std::vector<std::string>& keys);

  Destination& destination_;
  LakeWriterOptions options_;
  table::Commit& commit_;
  std::unique_ptr<WorkPool> pool_;
};

}  // namespace sinkd::lake
