// Land is the one way a batch of records becomes part of a table, whoever read the records: a
// drain's JetStream messages and `import`'s recording (through drain::Settle, drain/settle.h),
// and an outbox lake sink's delivery (sinks/outbox_landing.h). In this order:
//   0. ask the table which of the batch's positions it holds already (Store::Committed): those
//      records leave the batch unwritten, and are acknowledged in 3 with the rest;
//   1. the source's own step before anything is placed (LandingSteps::BeforePlace: the drain's
//      dead letters and terms);
//   2. place the rows' Parts and commit them (Landing::Place, one Store::Flush per flush it
//      makes: returns when durable and committed);
//   3. Ack every record not settled yet (the batch's Acknowledger, table/acknowledger.h).
// Any failure stops there and acknowledges nothing: Land reports the step and the status as the
// step gave it, and the caller tells the source (the drain naks, an outbox sink returns Retry or
// Reject and its cursor stays).
// Positions come in two kinds, and the committed question is asked by the kind the batch's scope
// names (AskCommitted): a stream's or a run's sequences, answered as ranges; an outbox sink's
// (txid, seq), answered as the prefix of the sink's positions the table holds, never by seq
// alone (seqs interleave across transactions: a later transaction can deliver a lower seq).
// Threads: one thread at a time per batch; LandingSteps may be watched from another thread
// (drain::FlushWatch).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/status.h"
#include "row/row_buffer.h"
#include "table/acknowledger.h"
#include "table/commit.h"
#include "table/flush.h"

namespace sinkd::table {

// One record's place in its source.
struct Position {
  uint64_t sequence = 0;         // 0: none (such a record is never held)
  std::optional<uint64_t> txid;  // an outbox record's: its position is (txid, sequence)
};

// What a table holds of a batch's positions, of either kind.
struct CommittedPositions {
  std::vector<SequenceRange> ranges;      // a stream's or a run's sequences, sorted
  std::optional<OutboxPosition> through;  // an outbox sink's: every position up to it
  bool empty() const { return ranges.empty() && !through; }
  // An outbox position (txid set) by (txid, seq) against `through`; any other by its sequence
  // against `ranges`.
  bool Holds(const Position& position) const;
};

// Asks `commit` what `table` holds of `positions`: Commit::CommittedThrough for the scope
// "outbox", Commit::Committed for any other.
Result<CommittedPositions> AskCommitted(Commit& commit, std::string_view table,
                                        const Provenance& positions);

// Where a batch lands. Flush returns only when every row is durable and committed to its table
// (then the batch may be acknowledged); on failure some Parts may have landed and the batch is
// retried (duplicates, never a gap). lake::LakeStore is the production implementation.
class Store {
 public:
  virtual ~Store() = default;
  virtual Result<FlushReport> Flush(row::RowBuffer& rows, const Provenance& provenance) = 0;
  // Of the positions `provenance` covers, those the table holds already (AskCommitted).
  virtual Result<CommittedPositions> Committed(const Provenance& provenance) = 0;
};

// A batch as landing sees it: its records, named by index in the order they were held, what they
// cover, and how its rows become flushes.
class Landing {
 public:
  virtual ~Landing() = default;
  virtual size_t records() const = 0;
  // Every position the batch acknowledges once it lands: the committed question, and (a drain's
  // batch) the flush stamp.
  virtual Provenance Positions() const = 0;
  // Takes every record `committed` holds out of the batch: no row of theirs is placed, and they
  // are acknowledged with the rest. Returns how many it took out.
  virtual size_t DropCommitted(const CommittedPositions& committed) = 0;
  // Places the rows left and commits them, each flush through store.Flush; nothing to place: an
  // empty report. A drain's batch closed on bytes and partitions as it filled, so it is one
  // flush; an outbox delivery comes whole and is cut into sub-ranges here.
  virtual Result<FlushReport> Place(Store& store) = 0;
  // A record is settled once it was told its fate (acked, termed or nak'd).
  virtual bool settled(size_t record) const = 0;
  virtual void MarkSettled(size_t record) = 0;
  virtual Acknowledger& acks() = 0;
};

// What a batch's source does besides landing it; none: LandingSteps itself.
class LandingSteps {
 public:
  virtual ~LandingSteps() = default;
  // After the committed records left the batch, before anything is placed. A failure lands
  // nothing.
  virtual Status BeforePlace() { return Status::OK(); }
  // Around Landing::Place. PlaceReturned false: the place step was abandoned meanwhile and the
  // batch's records are someone else's now; Land acknowledges nothing.
  virtual void PlaceBegins() {}
  virtual bool PlaceReturned() { return true; }
};

// The step a landing stopped at.
enum class LandStep {
  kNone,         // landed
  kCommitted,    // the table could not say what it holds
  kBeforePlace,  // LandingSteps::BeforePlace failed
  kPlace,        // placing or committing failed
  kAbandoned,    // the place step returned after it was abandoned (`status`: what it returned)
};

struct LandReport {
  Status status;                 // OK, or the failure as its step gave it
  LandStep failed = LandStep::kNone;
  CommittedPositions committed;  // what the table held of the batch
  uint64_t already_committed = 0;  // records dropped for it
  FlushReport flushed;
  uint64_t acked = 0;
  uint64_t ack_failures = 0;  // acks the source failed to take
};

// Lands `batch` into `store`: steps 0 to 3 above.
LandReport Land(Landing& batch, Store& store, LandingSteps& steps);
LandReport Land(Landing& batch, Store& store);

}  // namespace sinkd::table
