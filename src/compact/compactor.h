// Compactor merges a lake's small Parts, partition by partition, into larger outputs with one row
// per record (per event id; per outbox position for the outbox tables), and deletes what those outputs supersede once no reader can still need it.
//
// A pass, in this order:
//   1. List `<prefix>/`. Only keys in a partition directory of the table
//      (`<prefix>/date=YYYY-MM-DD/<column>=<value>/…/<name>.parquet`) are objects of the lake;
//      anything else (dead letters, `.incomplete` files, foreign layouts) is never read, merged or
//      deleted.
//   2. Due deletions: an object is deleted when an output (`compact-….parquet`, footer
//      `sinkd.source` = "compact") names it in `sinkd.supersedes` as exactly this object (key,
//      size and version; compact/grace.h) and that output appeared
//      (StoredObject::modified_unix_ms) at least grace_ms ago, and only while it is still that
//      object (Destination::DeleteIfUnchanged). Oldest first, so an output is never gone while
//      something it supersedes is still there.
//   3. Merges the policy picks (compact/policy.h), each placed through lake::Place (never
//      replacing a key) before anything else is touched. An input is never deleted by the pass
//      that merged it: readers that listed it a moment ago can still open it for grace_ms. A
//      lone sinkd Part in order with one row per record is left as it is (compact/merge.h).
// Readers see, at any moment, every row at least once: duplicates while an output and its inputs
// both exist, which the README's dedupe query removes.
// Outputs: `<partition directories>/compact-<32 hex>.parquet` (or `-<i>` for i = 0, 1, … when the
// merge is split at about target_bytes), the hex a SHA-256 over the sorted input keys, sizes and
// versions, so the same inputs give the same key and the same bytes (a second compactor meets
// kSame; one whose bytes differ meets kTaken and discards its work: the output that stands covers
// the same inputs). Rows sorted by (time, id), one per id: the earliest time, ties broken by the
// row's values, so the merge is deterministic. Footer metadata, in order: sinkd.table,
// sinkd.schema_version, sinkd.source = "compact", sinkd.supersedes (JSON array of the inputs as
// {"key","size","version"}, sorted by key), sinkd.stamps (union of the inputs' elements, sorted
// by their text, duplicates once),
// sinkd.compaction ({"rows_in","rows_out","duplicates_dropped","inputs","outputs","index"}).
// Memory: streams; one decoded row group per input overlapping in time plus one output row group
// (a Part not written by sinkd is read whole, to be sorted), at most MergeSpec::max_rows_loaded
// input rows at once (more overlap: a merge in steps through local scratch Parts, merge.h), and
// 16 to 32 bytes per distinct id of the merge for the dedupe; a merge reads at most twice
// target_bytes (compact/policy.h).
// An input is deleted only when every output of its merge exists (a split merge cut short
// supersedes nothing; the next pass redoes it under the same names).
// With a table (CompactOptions::rewrite, `--table-format iceberg`; table/rewrite.h), what the
// table holds decides instead of what the listing finds:
//   - only Parts the table's current snapshot holds are merged. A Part on disk the table does not
//     name (a flush's Part whose commit failed, one placed and not yet committed, an output whose
//     replace never landed) is never merged into the table: it is counted in
//     parts_outside_table and left to `sinkd table orphans`. An input an uncommitted output
//     supersedes is still the table's, so it merges again (the same inputs give the same key and
//     bytes: the output is found in place and committed then);
//   - the merges whose outputs are placed are committed together as one replace (inputs out,
//     outputs in, positions carried) every 64 merges or 30 s and at the end of the pass, not one
//     per merge: a replace rewrites every manifest holding one of its inputs. When that replace
//     conflicts (another compactor's replace removed one of its inputs first), its merges are
//     committed one replace each, and the one that conflicts is dropped: its outputs are deleted
//     unless a snapshot names them, nothing else changes. A crash before the commit leaves the
//     outputs to the next pass, which meets them in place (above);
//   - a due deletion (step 2) happens only when no snapshot of the table's newest metadata names
//     the object (inputs_retained otherwise: `sinkd table expire` deletes them once no retained
//     snapshot does), so no snapshot an engine can read loses a file;
//   - with no table yet (no snapshot), a pass does nothing (table_missing).
// Ownership: borrows the Destination and the table (must outlive the Compactor).
// Threads: one thread at a time. Several Compactors (processes, machines) may run on one lake at
// once, beside drains writing into it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "base/work_pool.h"
#include "lake/destination.h"
#include "lake/lake_writer.h"
#include "parquet/file_statistics.h"
#include "parquet/writer_options.h"
#include "row/column_table.h"
#include "table/rewrite.h"

namespace sinkd::compact {

struct CompactOptions {
  const row::ColumnTable* table = nullptr;  // ledger, audit, outbox_events, outbox_audit
  std::string prefix;                       // first key segment ("ledger", or the sink's prefix)
  uint64_t target_bytes = 256ull << 20;     // about this many bytes per output
  uint32_t min_parts = 8;                   // an open date's small Parts merge from this many
  int64_t settle_ms = 3600 * 1000;          // a UTC date is "closed" settle_ms after its end
  int64_t grace_ms = 3600 * 1000;           // an input outlives the output superseding it this long
  std::string instance;                     // for logs only
  parquet::WriterOptions parquet = lake::LakePartOptions();
  // Threads encoding an output's column chunks (parquet/part_writer.h: the bytes are the same for
  // any number); 1 encodes on the calling thread. `sinkd compact` takes --encode-threads.
  size_t encode_threads = 1;
  // Partitions merged at once, each on a thread of its own with a Destination of its own
  // (open_destination: a Destination is one thread's); 1 merges one partition at a time on the
  // calling thread. Why: a merge's thread waits while its output's last row group is encoded and
  // placed, which for the partitions of a day is most of an output (issue 28: 1.2 s of a 4.6 s
  // pass); another partition's merge fills that wait. The merges running at once share lane_rows
  // decoded input rows (compact/row_budget.h): a partition larger than that merges alone, so
  // merging at once never holds more than the largest merge alone may. Bookkeeping (plans, the
  // report, the table's commits, deletions) stays one thread's at a time. `sinkd compact` takes
  // --merge-lanes.
  size_t merge_lanes = 1;
  uint64_t lane_rows = 122'880;  // half of merge.h's kMaxRowsLoaded: one writer row group
  std::function<Result<std::unique_ptr<lake::Destination>>()> open_destination;
  std::function<int64_t()> now_unix_ms;     // clock seam for tests; empty: the system clock
  // The table kept over the Parts (`--table-format`; iceberg/table_format.h MakeTableRewrite):
  // nullptr for none, the hive layout alone. Borrowed; must outlive the Compactor.
  table::Rewrite* rewrite = nullptr;

  // Refuse naming the option: no table, a prefix that is not '/'-separated safe tokens (or lies
  // under dead-letters/), target_bytes under 1 MiB, min_parts under 2, a negative settle or grace,
  // Parquet options a lake Part cannot have, merge_lanes outside 1 to 16 or above 1 without
  // open_destination, lane_rows of 0.
  Status Validate() const;
};

struct OutputReport {
  std::string key;
  uint64_t rows_in = 0, rows_out = 0, duplicates_dropped = 0, bytes = 0;  // rows_*: the merge's
  std::vector<std::string> supersedes;  // the merge's inputs, sorted
  bool found_in_place = false;          // kSame: another compactor had placed these bytes
  parquet::FileStatistics statistics;   // its writer's (the same bytes when found in place)
};

struct PassReport {
  uint64_t partitions = 0, partitions_merged = 0, partitions_pending = 0;  // pending: backlog after
  uint64_t outputs = 0, inputs_deleted = 0, rows_in = 0, rows_out = 0, duplicates_dropped = 0;
  uint64_t bytes_read = 0, bytes_written = 0;
  // Parts the pass could not read ("<key>: <why>"): left untouched, skipped, reported here and in
  // RunPass's Refuse.
  std::vector<std::string> refused;
  // Merges given up because another compactor's output took their key with other bytes, or an
  // input vanished under them (deleted by another compactor): nothing lost, nothing written.
  uint64_t merges_discarded = 0;
  // Lone Parts the policy picked that were left as they are: sinkd Parts in order without two
  // rows of one record, which a rewrite would only copy (nothing written, nothing to delete).
  uint64_t parts_left_alone = 0;
  // Keys an output's sinkd.supersedes names that hold another object than the one merged (a key
  // re-created after its input was deleted, or named by an output written before versions were
  // recorded): live Parts, never deleted on that output's account, merged again.
  std::vector<std::string> kept;
  // Partitions where a delete or a merge failed ("<partition>: <why>"): skipped for the rest of
  // the pass (counted pending), every other partition compacted; also in RunPass's Redeliver.
  std::vector<std::string> failed;
  uint64_t partitions_failed = 0;  // failed.size()
  // With a table (CompactOptions::rewrite): replaces committed, merges dropped because another
  // replace removed an input first (their outputs deleted unless a snapshot names them), objects
  // of the lake the current snapshot does not hold (never merged), due deletions left because a
  // snapshot still names the object, and whether there was no table to compact.
  uint64_t replaces = 0, replaces_dropped = 0, parts_outside_table = 0, inputs_retained = 0;
  bool table_missing = false;
  // With a table: wall seconds the pass spent reading it and committing its replaces (a dropped
  // replace's clean-up included), the table's share of the pass.
  double table_seconds = 0;
  // The most merges that ran at once (CompactOptions::merge_lanes; 0 when none ran).
  uint64_t merges_at_once = 0;
  // True once every partition was visited (the pass was not cut short by a listing, a footer
  // read or a sync that failed): the counts, partitions_pending included, are the pass's own.
  bool completed = false;
};

// One step a dry run found the pass would take (PassHooks::on_plan), in the pass's order: every
// due deletion first, then the merges partition by partition.
struct PlannedStep {
  enum class Kind { kDelete, kMerge };
  Kind kind = Kind::kMerge;
  std::string partition;
  // kDelete: the one superseded object; kMerge: the merge's inputs, key order.
  std::vector<lake::StoredObject> inputs;
  uint64_t input_bytes = 0;
  // kMerge: the keys it would place. A merge above target_bytes is split by rows; the count here
  // assumes no record has two rows, and the pass fixes it after counting the records (copies
  // can make it fewer), so `split` says these keys are the likely ones, not certain ones.
  std::vector<std::string> outputs;
  bool split = false;
  // kMerge of one Part: the pass rewrites it only if it holds two rows of one record or is out
  // of order, which it reads three columns to tell; a dry run reads no rows.
  bool lone = false;
};

struct PassHooks {
  std::function<bool()> stop_requested;                             // checked between merges
  std::function<void(uint64_t done, uint64_t total)> on_partition;  // progress
  std::function<void(const OutputReport&)> on_output;               // one log line per output
  // The hooks are called one at a time, from whichever thread merged (merge_lanes > 1: a lane's).
  // Set: a dry run (`sinkd compact --dry-run`). The pass lists and reads the outputs' footers as
  // a real one does, then hands each deletion and merge it would make here instead of making it:
  // nothing is placed, deleted or synced, so an operator can see a pass before it runs. The
  // report's counts stay those of what was done (none); partitions and refused are filled.
  std::function<void(const PlannedStep&)> on_plan;
};

class Compactor {
 public:
  Compactor(lake::Destination& destination, CompactOptions options);
  ~Compactor();
  Compactor(const Compactor&) = delete;
  Compactor& operator=(const Compactor&) = delete;

  // One pass: due deletions first, then the merges the policy picks, partitions in key order.
  // Returns the report when every store call succeeded and every Part could be read. Errors:
  // Redeliver for a store failure: the listing, an output's footer or the sync after deletions
  // ends the pass; a failed delete or merge (read, place) fails only its partition, which is
  // skipped while every other one is compacted, and the error names each failed partition (the
  // next pass retries; what was placed stays placed). Refuse naming the Parts that cannot be read
  // when the pass otherwise succeeded (those Parts are left untouched and skipped; every other
  // partition was compacted). `report`, when given, receives the counts even when an error is
  // returned.
  Result<PassReport> RunPass(const PassHooks& hooks, PassReport* report = nullptr);

  const CompactOptions& options() const { return options_; }

 private:
  struct Rep;
  class Pass;  // one RunPass: its listing, deletions and merges (compactor.cc)
  lake::Destination& destination_;
  CompactOptions options_;
  std::unique_ptr<WorkPool> pool_;  // encode_threads > 1
  std::unique_ptr<Rep> rep_;
};

}  // namespace sinkd::compact
