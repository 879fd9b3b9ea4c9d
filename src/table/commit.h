// The commit step of a flush: what makes the Parts a flush has placed part of their table, after
// they are placed and durable and before the batch is acknowledged. Every batch lands the same
// way, whoever read it (a drain, `import`, an outbox lake sink): place Parts, commit, acknowledge,
// through table::Land (table/land.h). lake::LakeWriter::Flush places and commits; Land asks the
// table first (Committed or CommittedThrough, by the positions' kind: table::AskCommitted) and
// acknowledges after (acks, import's progress, an outbox sink's cursor).
// Implementations, named as `--table-format` will name them:
//   none     NoCommit, the default and today's behaviour: the Parts under their hive keys are the
//            table readers glob; it records nothing, never fails, and holds nothing committed.
//   iceberg  iceberg::IcebergCommit: one append snapshot per flush (iceberg/table_format.h makes
//            the commit a format names).
// Contract:
//   Committed  before a batch is placed: of the source positions it covers, those the table holds
//              already (a redelivery of a batch whose commit landed but whose acks were lost). The
//              batch drops those messages (no row of theirs is written) and acknowledges them.
//   CommittedThrough  the same for an outbox sink's flush (scope "outbox"), whose records come in
//              (txid, seq) order, not in seq order: the last position of the sink the table holds
//              when the batch's first is at or before it (its records up to there are committed,
//              a prefix); nullopt otherwise. Committed reports nothing for that scope.
//   Apply      after the Parts are placed and synced: records them with the positions they cover,
//              in one atomic step, or fails. A failure fails the flush: the writer removes the
//              Parts this flush placed itself (never one found in place), and the batch is retried
//              (the drain naks it, import stops, an outbox sink keeps its cursor). A commit that
//              finds, against the table's newest state, positions of the request committed
//              already (two drains racing with one redelivered message) fails rather than record
//              them twice: the retry meets them in Committed and drops them.
// Positions: Provenance.source names the source (a stream, "import", "outbox:<sink>"), .scope what
// numbers its sequences (stream | run | outbox: lake/stamp.h), .acknowledged every sequence the
// batch acknowledges (empty: first_sequence to last_sequence), .first_txid/.last_txid an outbox
// sink's positions.
// Threads: one thread at a time per object (the flushing thread).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/status.h"
#include "row/column_table.h"
#include "table/flush.h"

namespace sinkd::table {

struct CommitRequest {
  std::string_view table;          // the table's key prefix: "ledger", "outbox_audit", …
  const row::ColumnTable& columns;
  const Provenance& positions;     // what the flush acknowledges once the commit returns OK
  const FlushReport& placed;       // every Part of the flush, placed and durable
};

class Commit {
 public:
  virtual ~Commit() = default;
  // "none", "iceberg".
  virtual std::string_view format() const = 0;
  // The ranges of positions.acknowledged (or first_sequence to last_sequence) that `table`
  // holds already, sorted; empty when none. A failure fails the flush before anything is placed.
  virtual Result<std::vector<SequenceRange>> Committed(std::string_view table,
                                                       const Provenance& positions) = 0;
  // See CommittedThrough above; `none` holds nothing.
  virtual Result<std::optional<OutboxPosition>> CommittedThrough(std::string_view table,
                                                                 const Provenance& positions) {
    (void)table;
    (void)positions;
    return std::optional<OutboxPosition>();
  }
  // Records request.placed as covering request.positions. OK: the batch may be acknowledged.
  virtual Status Apply(const CommitRequest& request) = 0;
};

inline constexpr std::string_view kNoCommitFormat = "none";

class NoCommit final : public Commit {
 public:
  std::string_view format() const override { return kNoCommitFormat; }
  Result<std::vector<SequenceRange>> Committed(std::string_view,
                                               const Provenance&) override {
    return std::vector<SequenceRange>{};
  }
  Status Apply(const CommitRequest&) override { return Status::OK(); }
};

// The `none` commit a writer uses unless given another: it holds no state, so one is shared.
Commit& NoTableCommit();

// The formats `--table-format` (config `lake.table_format`, an outbox lake sink's `table_format`)
// takes, in order: "none", "iceberg".
std::vector<std::string> TableFormats();
// Refuses a format not in TableFormats(), naming the value and the formats there are.
Status CheckTableFormat(std::string_view format);

}  // namespace sinkd::table
