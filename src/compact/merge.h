// One merge: the inputs of one partition streamed through a k-way merge on (time, id, the row's
// values) into outputs of about target_bytes, keeping the first row of every record (the earliest
// time: the row the README's dedupe query keeps; among copies of one time, the least by their
// values, so the result does not depend on the inputs' order). Rows are copies of one record when
// their copy column (row::CopyColumn) is equal: event_id for the ledger and audit streams, the
// outbox position (`sequence`) for the outbox tables, whose ids are the producer's and need not
// be unique. Each output is placed through lake::Place under its key (compact/output.h), never
// replacing one.
// Inputs: every sinkd Part is sorted by (time, id) already and is streamed row group by row
// group, each read when the merge reaches its footer's minimum time (a footer found wrong about
// it makes the merge start again reading every row group as soon as reached); a Part written by
// anything else (DuckDB: the Go sink's lake), or a sinkd Part found out of order, is read whole and
// sorted in memory as one run. Columns are matched by name with the table's: a column the table
// does not have, a type that differs, or a Part without the time, id or copy column is refused; a
// missing column is NULL (the output's column is then OPTIONAL: NULL is "not recorded", never '');
// a missing partition column takes the key's value. The output has the table's own shape
// (partition/part_schema.h: types, field ids, Bloom filter, UTC timestamps). A merge of one
// input that is a sinkd Part first reads its time, id and copy columns: when they are in order and
// no record has two rows, the Part is left as it is (kLeftAlone) rather than rewritten
// one-for-one into the same rows. A split merge (inputs above target_bytes) first reads the time,
// id and copy columns of every input to count the records, so each output's footer can say how
// many outputs there are and the outputs hold equal shares of rows: output i holds rows
// [i·r, (i+1)·r) of the merged sequence, whichever compactor wrote it.
// Memory bound (issue 28): when the inputs' row groups overlapping in time (footer bounds) would
// hold more than max_rows_loaded decoded rows at once, the merge goes in steps: groups of inputs
// (key order) that fit the bound are merged first into scratch Parts of small row groups in a
// local temporary directory, then those, as many steps as it takes. The final output is the one
// a single step would give, byte for byte (merge.cc, Merger::Stage says why).
// Threads: one thread at a time.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "compact/compactor.h"
#include "compact/output.h"
#include "compact/row_budget.h"

namespace sinkd::compact {

// Strings are held with 32-bit offsets (parquet::ColumnValues, parquet::StringArray), and Parquet
// sizes pages and chunks in int32, so no column's strings may reach 2^31 bytes in one buffer:
// - a Part read whole (not a sorted sinkd Part) holding more than kMaxWholeReadStringBytes in one
//   column is refused, naming the partition and the column, and left in place (a streamed Part's
//   row groups are bounded by parquet::kMaxRowGroupDecodedBytes, 1 GiB, in the reader);
// - an output row group closes before row_group_rows once its string columns hold
//   kOutputRowGroupStringBytes, so it stays far below 2^31 and within what the reader decodes.
inline constexpr uint64_t kMaxWholeReadStringBytes = (uint64_t{1} << 31) - 1;
inline constexpr uint64_t kOutputRowGroupStringBytes = uint64_t{256} << 20;
// Input rows a merge holds decoded at once, at most (unless one input's row group alone is larger:
// a row group is the unit the reader decodes). Two of the writer's 122,880-row row groups: a
// merge of four tier-1 outputs of generated ledger rows holding four of them (491,520 rows) with
// the output's row group peaked at 716 MiB, over issue 28's 512 MiB. Rows, not bytes: a table of
// much wider rows takes proportionally more (KNOWN-GAPS).
inline constexpr uint64_t kMaxRowsLoaded = 2 * uint64_t{122'880};

struct MergeSpec {
  const row::ColumnTable* table = nullptr;
  std::string partition;                      // "<prefix>/date=…/app=…"
  std::vector<std::string> partition_values;  // the key's, table order
  bool values_exact = true;                   // false: a key segment may be shortened
  std::vector<InputRef> inputs;               // key order
  uint64_t target_bytes = 0;
  parquet::WriterOptions parquet;
  WorkPool* pool = nullptr;  // encodes an output's column chunks; nullptr: the calling thread
  uint64_t max_rows_loaded = kMaxRowsLoaded;  // 0: no bound (one step whatever the overlap)
  // Shared with the merges running beside this one (compact/row_budget.h): the merge takes its
  // input rows from it once the inputs' footers are read, before it decodes a row, and holds them
  // until it returns. nullptr: none (the merge runs alone).
  RowBudget* budget = nullptr;
  // Test seams: the limits above (a real column past 2^31 takes gigabytes a test cannot spend).
  uint64_t whole_read_string_bytes = kMaxWholeReadStringBytes;
  uint64_t row_group_string_bytes = kOutputRowGroupStringBytes;
};

struct MergeOutcome {
  enum class Kind {
    kMerged,     // every output is in place (placed, found in place, or taken by another's bytes)
    kRefused,    // `input` cannot be read or merged (`why`): nothing of this merge was placed
                 // unless it was split and `outputs` says so
    kVanished,   // `input` is gone (another compactor deleted it): as kRefused, but no error
    kLeftAlone,  // one sinkd Part, in order, no two rows of one record: a rewrite would give the
                 // same rows, so nothing is written (counts.rows_in = its rows)
  };
  Kind kind = Kind::kMerged;
  std::string input;
  Status why;
  std::vector<OutputReport> outputs;  // placed or found in place
  uint64_t taken = 0;                 // outputs whose key held another compactor's bytes
  MergeCounts counts;
  uint64_t bytes_read = 0, bytes_written = 0;
  // The most input rows decoded at once (the row groups the inputs stand on; an output row group
  // being built may still hold earlier ones). A streamed row group is read only once its
  // footer's minimum time comes up in the merge, so this follows how many inputs overlap in
  // time, not how many there are; over max_rows_loaded, the merge goes in steps (every step's
  // peak counts).
  uint64_t peak_rows_loaded = 0;
  // What the merge holds decoded at its peak, in rows: the row groups the cursors stand on,
  // those an output row group being built still takes rows from after its cursor moved on, and
  // the output row group being encoded (every step's peak counts).
  uint64_t peak_rows_held = 0;
  uint64_t steps = 0;  // merges of groups into scratch Parts before the final one (0: one step)
  // Input row groups decoded on the pool before the merge reached them (kDecodeTogether, merge.cc).
  uint64_t decoded_ahead = 0;
};

// Errors: Redeliver for a store failure (list, read, place); Internal for a bug.
Result<MergeOutcome> Merge(lake::Destination& destination, const MergeSpec& spec,
                           const std::function<void(const OutputReport&)>& on_output);

}  // namespace sinkd::compact
