// An outbox lake sink's delivery lands through the landing path of the drain and import
// (table::Land): the table's (txid, seq) prefix left out, the rest cut into sub-ranges, every
// record acknowledged, and nothing acknowledged when a flush fails.
#include "sinks/outbox_landing.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "row/outbox_columns.h"
#include "sinks/event_sink.h"

namespace sinkd::sinks {
namespace {

// A table as the test scripts it: holds the sink's positions through `through`, records what
// each flush covered, and fails the flush numbered `fail_at` (1-based; 0: none).
class LandingStore final : public table::Store {
 public:
  Result<table::FlushReport> Flush(row::RowBuffer& rows,
                                   const table::Provenance& provenance) override {
    if (++flushes == fail_at) return Status::Retry("scripted failure");
    flushed.push_back(provenance);
    table::FlushReport report;
    report.rows = rows.rows();
    return report;
  }
  Result<table::CommittedPositions> Committed(const table::Provenance& provenance) override {
    scopes.push_back(provenance.scope);
    table::CommittedPositions held;
    held.through = through;
    return held;
  }
  std::optional<table::OutboxPosition> through;
  int fail_at = 0;
  int flushes = 0;
  std::vector<table::Provenance> flushed;
  std::vector<std::string> scopes;
};

AuditRecord Audited(uint64_t txid, int64_t seq) {
  AuditRecord r;
  r.id = "aud_" + std::to_string(seq);
  r.time_micros = 1'764'547'200'000'000;  // 2025-12-01
  r.txid = txid;
  r.seq = seq;
  r.sequence = std::to_string(txid) + ":" + std::to_string(seq);
  return r;
}

struct Landed {
  table::LandReport report;
  size_t acked = 0;
};

// Lands `records` one row per sub-range (batch_max_bytes 1), as LakeAuditSink::Write pushes them.
Landed LandEachAlone(const std::vector<AuditRecord>& records, LandingStore& store) {
  row::RowBuffer rows(row::kOutboxAuditColumns);
  partition::PartitionCap cap(row::kOutboxAuditColumns, 100);
  auto push = [&](const AuditRecord& r, size_t) {
    rows.column(0).strings.push_back(r.id);
    rows.column(1).strings.push_back(r.tenant_id);
    rows.column(2).int64s.push_back(r.time_micros);
    for (int col = 3; col <= 7; ++col) rows.column(col).strings.push_back("null");
    rows.column(8).strings.push_back(r.sequence);
    rows.CommitRow();
  };
  CursorAcks acks;
  OutboxLanding<AuditRecord, decltype(push)> landing(std::span<const AuditRecord>(records),
                                                     "lake", rows, cap, 1, push, acks);
  Landed landed{table::Land(landing, store), 0};
  landed.acked = acks.acked();
  return landed;
}

// Transactions 100 (seqs 5, 7) and 101 (seq 6) interleave, then 102 (seq 8). The table holds the
// sink's positions through (100, 7): (101, 6) is not the table's though its seq is lower.
TEST(OutboxLanding, ADeliveryLeavesOutTheTablesTxidSeqPrefixFlushesTheRestAndAcksEveryRecord) {
  LandingStore store;
  store.through = table::OutboxPosition{100, 7};
  const std::vector<AuditRecord> records = {Audited(100, 5), Audited(100, 7), Audited(101, 6),
                                            Audited(102, 8)};
  const Landed landed = LandEachAlone(records, store);
  ASSERT_TRUE(landed.report.status.ok()) << landed.report.status.ToString();
  EXPECT_EQ(store.scopes, (std::vector<std::string>{"outbox"}))
      << "asked once, by the outbox's kind of position";
  EXPECT_EQ(landed.report.already_committed, 2u);
  ASSERT_EQ(store.flushed.size(), 2u) << "one sub-range per record left";
  EXPECT_EQ(store.flushed[0].acknowledged, (std::vector<table::SequenceRange>{{6, 6}}));
  EXPECT_EQ(store.flushed[0].first_txid, std::optional<uint64_t>(101));
  EXPECT_EQ(store.flushed[1].acknowledged, (std::vector<table::SequenceRange>{{8, 8}}));
  EXPECT_EQ(store.flushed[1].source, "outbox:lake");
  EXPECT_EQ(landed.report.acked, 4u);
  EXPECT_EQ(landed.acked, 4u) << "the two the table held are acknowledged too";
}

// A failed flush after one that landed acknowledges nothing: the sink's cursor stays, and the
// redelivery finds the first sub-range in the table.
TEST(OutboxLanding, AFailedSubRangeAcknowledgesNothingOfTheDelivery) {
  LandingStore store;
  store.fail_at = 2;
  const std::vector<AuditRecord> records = {Audited(100, 5), Audited(100, 7), Audited(101, 6)};
  const Landed landed = LandEachAlone(records, store);
  EXPECT_EQ(landed.report.failed, table::LandStep::kPlace);
  EXPECT_TRUE(landed.report.status.IsRetry());
  EXPECT_EQ(store.flushed.size(), 1u);
  EXPECT_EQ(landed.acked, 0u);
}

}  // namespace
}  // namespace sinkd::sinks
