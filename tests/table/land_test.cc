// table::Land, the one landing path of the drain, import and the outbox lake sinks: the
// table-holds-it-already filter for both kinds of position, place + commit, acknowledge.
#include <gtest/gtest.h>

#include <optional>
#include <utility>
#include <vector>

#include "row/outbox_columns.h"
#include "table/land.h"

namespace sinkd::table {
namespace {

// A table as the test scripts it: holds `held`, records what each flush covered, fails a flush
// with `fail` when set.
class ScriptedStore final : public Store {
 public:
  Result<FlushReport> Flush(row::RowBuffer&, const Provenance& provenance) override {
    if (!fail.ok()) return fail;
    flushed.push_back(provenance);
    FlushReport report;
    report.rows = provenance.acknowledged.size();
    return report;
  }
  Result<CommittedPositions> Committed(const Provenance& provenance) override {
    asked.push_back(provenance);
    return held;
  }
  CommittedPositions held;
  Status fail = Status::OK();
  std::vector<Provenance> flushed;
  std::vector<Provenance> asked;
};

class CountingAcks final : public Acknowledger {
 public:
  Status Ack(size_t record) override {
    acked.push_back(record);
    return Status::OK();
  }
  Status Term(size_t) override { return Status::OK(); }
  Status Nak(size_t, std::chrono::milliseconds) override { return Status::OK(); }
  void Clear() override { acked.clear(); }
  std::vector<size_t> acked;
};

// Records at positions, one flush of those left: each position's sequence becomes one
// acknowledged range of the flush, so the test sees which records were placed.
class PositionsLanding final : public Landing {
 public:
  explicit PositionsLanding(std::vector<Position> positions, std::string scope)
      : positions_(std::move(positions)),
        scope_(std::move(scope)),
        kept_(positions_.size(), true),
        settled_(positions_.size(), false) {}
  size_t records() const override { return positions_.size(); }
  Provenance Positions() const override {
    Provenance p;
    p.scope = scope_;
    for (size_t i = 0; i < positions_.size(); ++i) {
      if (!kept_[i]) continue;
      p.acknowledged.push_back({positions_[i].sequence, positions_[i].sequence});
      if (!p.first_txid) p.first_txid = positions_[i].txid;
      p.last_txid = positions_[i].txid;
    }
    return p;
  }
  size_t DropCommitted(const CommittedPositions& committed) override {
    size_t n = 0;
    for (size_t i = 0; i < positions_.size(); ++i) {
      if (kept_[i] && committed.Holds(positions_[i])) kept_[i] = false, ++n;
    }
    return n;
  }
  Result<FlushReport> Place(Store& store) override {
    row::RowBuffer rows(row::kOutboxEventColumns);
    return store.Flush(rows, Positions());
  }
  bool settled(size_t record) const override { return settled_[record]; }
  void MarkSettled(size_t record) override { settled_[record] = true; }
  Acknowledger& acks() override { return acks_; }
  CountingAcks acks_;

 private:
  std::vector<Position> positions_;
  std::string scope_;
  std::vector<bool> kept_;
  std::vector<bool> settled_;
};

// Two producers' transactions interleave their seqs: txid 100 holds seqs 5 and 7, txid 101 seq
// 6, delivered 5, 7, 6. The table holds the sink's positions through (100, 7): (101, 6) is not
// the table's though its seq is lower, so it alone is placed, and all three are acknowledged.
TEST(Land, AnOutboxBatchLeavesOutWhatTheTableHoldsByTxidAndSeqAndAcksEveryRecord) {
  ScriptedStore store;
  store.held.through = OutboxPosition{100, 7};
  PositionsLanding batch({{5, 100}, {7, 100}, {6, 101}}, "outbox");
  const LandReport report = Land(batch, store);
  ASSERT_TRUE(report.status.ok()) << report.status.ToString();
  EXPECT_EQ(report.already_committed, 2u);
  ASSERT_EQ(store.flushed.size(), 1u);
  EXPECT_EQ(store.flushed[0].acknowledged, (std::vector<SequenceRange>{{6, 6}}));
  EXPECT_EQ(store.flushed[0].first_txid, std::optional<uint64_t>(101));
  EXPECT_EQ(batch.acks_.acked, (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(report.acked, 3u);
}

// A stream's sequences are held as ranges; a record with no sequence never is.
TEST(Land, AStreamBatchLeavesOutTheSequencesTheTableHoldsAsRanges) {
  ScriptedStore store;
  store.held.ranges = {{2, 3}};
  PositionsLanding batch({{1, {}}, {2, {}}, {3, {}}, {4, {}}}, "stream");
  const LandReport report = Land(batch, store);
  ASSERT_TRUE(report.status.ok());
  EXPECT_EQ(report.already_committed, 2u);
  ASSERT_EQ(store.flushed.size(), 1u);
  EXPECT_EQ(store.flushed[0].acknowledged, (std::vector<SequenceRange>{{1, 1}, {4, 4}}));
  EXPECT_EQ(report.acked, 4u);
  EXPECT_FALSE((CommittedPositions{{{1, 9}}, {}}.Holds(Position{0, {}})));
  EXPECT_FALSE((CommittedPositions{{{1, 9}}, {}}.Holds(Position{5, 7})))
      << "an outbox position is never held by its seq alone";
}

// A failed place acknowledges nothing, and its status keeps its kind (a Reject stays one, so an
// outbox sink dead-letters the event).
TEST(Land, AFailedPlaceAcknowledgesNothingAndReportsItsStatusAsItCame) {
  ScriptedStore store;
  store.fail = Status::Reject("not UTF-8");
  PositionsLanding batch({{5, 100}}, "outbox");
  const LandReport report = Land(batch, store);
  EXPECT_EQ(report.failed, LandStep::kPlace);
  EXPECT_TRUE(report.status.IsReject());
  EXPECT_TRUE(batch.acks_.acked.empty());
}

// A scripted commit: says which question it was asked.
class AskedCommit final : public Commit {
 public:
  std::string_view format() const override { return "scripted"; }
  Result<std::vector<SequenceRange>> Committed(std::string_view, const Provenance&) override {
    return std::vector<SequenceRange>{{1, 100}};
  }
  Result<std::optional<OutboxPosition>> CommittedThrough(std::string_view,
                                                         const Provenance&) override {
    return std::optional<OutboxPosition>(OutboxPosition{3, 4});
  }
  Status Apply(const CommitRequest&) override { return Status::OK(); }
};

TEST(Land, TheCommittedQuestionIsAskedByThePositionsKind) {
  AskedCommit commit;
  Provenance outbox;
  outbox.scope = "outbox";
  auto held = AskCommitted(commit, "outbox_events", outbox);
  ASSERT_TRUE(held.ok());
  EXPECT_TRUE(held->ranges.empty());
  EXPECT_EQ(held->through, (std::optional<OutboxPosition>(OutboxPosition{3, 4})));
  auto stream = AskCommitted(commit, "ledger", Provenance{"GARM_LEDGER", 1, 2});
  ASSERT_TRUE(stream.ok());
  EXPECT_EQ(stream->ranges, (std::vector<SequenceRange>{{1, 100}}));
  EXPECT_FALSE(stream->through);
}

}  // namespace
}  // namespace sinkd::table
