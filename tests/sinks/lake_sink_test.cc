// The lake sinks: a delivered batch is in the lake when Deliver returns, in one table per lake,
// and after a dispatch with redeliveries and a poison event DuckDB finds every event once after
// deduplication.
#include "sinks/lake_sink.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <set>

#include "iceberg/files_catalog.h"
#include "iceberg/positions.h"
#include "iceberg/table_format.h"
#include "lake/dir_destination.h"
#include "outbox/outbox_fixture.h"
#include "row/outbox_columns.h"
#include "support/lake_files.h"
#include "support/support.h"
#include "table/commit.h"

namespace sinkd::sinks {
namespace {

namespace fs = std::filesystem;
using outbox::PgResult;
using sinkd::testing::DuckDb;
using sinkd::testing::SqlQuote;
using sinkd::testing::TempDir;

lake::LakeWriterOptions Options() {
  lake::LakeWriterOptions o;
  o.key_prefix = "outbox_events";
  o.instance = "test-1";
  o.parquet.created_by = "sinkd test";
  return o;
}

std::unique_ptr<LakeEventSink> MakeSink(const fs::path& root, lake::LakeWriterOptions o = Options()) {
  auto dest = lake::DirDestination::Make(root.string());
  EXPECT_TRUE(dest.ok());
  auto sink = std::make_unique<LakeEventSink>("lake", std::move(dest).value(), std::move(o));
  EXPECT_TRUE(sink->Open().ok());
  return sink;
}

Event MakeEvent(int n, const std::string& type, const std::string& time) {
  Event e;
  e.id = "evt_" + std::to_string(n);
  e.type = type;
  e.tenant_id = "ten_1";
  e.subject = "reservation/rsv_" + std::to_string(n);
  e.time = time;
  e.txid = 700 + static_cast<uint64_t>(n / 2);
  e.seq = n;
  e.sequence = std::to_string(e.txid) + ":" + std::to_string(e.seq);
  e.data_json = "{\"n\": " + std::to_string(n) + "}";
  return e;
}

std::string Glob(const fs::path& root) {
  return SqlQuote((root / "outbox_events" / "**" / "*.parquet").string());
}

TEST(OutboxLakeSink, ADeliveredBatchIsInTheLakeWhenDeliverReturns) {
  TempDir tmp;
  auto sink = MakeSink(tmp.path());
  const std::vector<Event> events = {MakeEvent(1, "node.connected", "2026-11-30T23:59:59.5Z"),
                                     MakeEvent(2, "reservation.placed", "2026-12-01T00:00:01Z"),
                                     MakeEvent(3, "node.connected", "2026-12-01T08:00:00+02:00")};
  ASSERT_TRUE(sink->Deliver(events).ok());
  EXPECT_EQ(testing::LakeFiles(tmp.path()).size(), 3u)
      << "one Part per (date, type), durable on return";
  auto r = DuckDb("SELECT event_id, type, CAST(date AS VARCHAR), tenant, subject, "
                  "strftime(time, '%Y-%m-%dT%H:%M:%S.%f'), sequence, txid, seq, data_json "
                  "FROM read_parquet(" + Glob(tmp.path()) + ", hive_partitioning = true) "
                  "ORDER BY seq");
  ASSERT_TRUE(r.ok) << r.error;
  ASSERT_EQ(r.rows.size(), 3u);
  EXPECT_EQ(r.rows[0], (std::vector<std::string>{"evt_1", "node.connected", "2026-11-30", "ten_1",
                                                 "reservation/rsv_1", "2026-11-30T23:59:59.500000",
                                                 "700:1", "700", "1", "{\"n\": 1}"}));
  EXPECT_EQ(r.rows[2][2], "2026-12-01") << "08:00+02:00 is 06:00 UTC";
  EXPECT_EQ(r.rows[2][5], "2026-12-01T06:00:00.000000");
  auto types = DuckDb("SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet(" +
                      Glob(tmp.path()) + ", hive_partitioning = false))");
  ASSERT_TRUE(types.ok) << types.error;
  std::vector<std::string> names;
  for (const auto& row : types.rows) names.push_back(row[0]);
  EXPECT_EQ(names, (std::vector<std::string>{"event_id", "type", "tenant", "subject", "time",
                                             "sequence", "txid", "seq", "data_json"}))
      << "the file holds every column of the table, the partition column too, in table order";
}

// A type whose key segment would pass a directory name's 255 bytes is shortened in the key; the
// Part itself keeps the exact type, so the original value is never lost.
TEST(OutboxLakeSink, AnEventTypeTooLongForItsDirectoryIsExactInsideThePart) {
  TempDir tmp;
  auto sink = MakeSink(tmp.path());
  const std::string fits(250, 'f');  // `type=` + 250 = 255: exact in the key too
  const std::string long_type = "reservation." + std::string(290, 'x');
  const std::vector<Event> events = {MakeEvent(1, fits, "2026-12-01T00:00:00Z"),
                                     MakeEvent(2, long_type, "2026-12-01T00:00:01Z")};
  ASSERT_TRUE(sink->Deliver(events).ok());
  auto in_file = DuckDb("SELECT type FROM read_parquet(" + Glob(tmp.path()) +
                        ", hive_partitioning = false) ORDER BY seq");
  ASSERT_TRUE(in_file.ok) << in_file.error;
  ASSERT_EQ(in_file.rows.size(), 2u);
  EXPECT_EQ(in_file.rows[0][0], fits);
  EXPECT_EQ(in_file.rows[1][0], long_type);
  auto in_path = DuckDb("SELECT type FROM read_parquet(" + Glob(tmp.path()) +
                        ", hive_partitioning = true) ORDER BY seq");
  ASSERT_TRUE(in_path.ok) << in_path.error;
  ASSERT_EQ(in_path.rows.size(), 2u);
  EXPECT_EQ(in_path.rows[0][0], fits) << "a type that fits its directory name is kept exactly";
}

// A delivery whose rows pass batch_max_bytes is flushed in consecutive sub-ranges, each a Part of
// its own, so no flush grows a column toward its 4 GiB offset limit whatever the read size.
TEST(OutboxLakeSink, ADeliveryPastItsByteLimitIsFlushedInConsecutiveRanges) {
  TempDir tmp;
  auto dest = lake::DirDestination::Make(tmp.path().string());
  ASSERT_TRUE(dest.ok());
  LakeEventSink sink("lake", std::move(dest).value(), Options(), size_t{1} << 20);
  ASSERT_TRUE(sink.Open().ok());
  std::vector<Event> events;
  for (int n = 1; n <= 6; ++n) {
    events.push_back(MakeEvent(n, "node.connected", "2026-12-01T00:00:00Z"));
    events.back().data_json = "\"" + std::string(400'000, 'd') + "\"";  // three pass 1 MiB
  }
  ASSERT_TRUE(sink.Deliver(events).ok());
  std::vector<std::string> names;
  for (const fs::path& p : testing::LakeFiles(tmp.path())) names.push_back(p.filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"part-test-1-1-3-0.parquet",
                                             "part-test-1-4-6-0.parquet"}));
  auto r = DuckDb("SELECT count(*), count(DISTINCT event_id), min(length(data_json)) FROM "
                  "read_parquet(" + Glob(tmp.path()) + ")");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.rows[0], (std::vector<std::string>{"6", "6", "400002"}));
}

// A type and a time are the producer's: a delivery spanning more partitions than
// max_partitions_per_flush is flushed in consecutive sub-ranges, each ending before the event
// that would be one partition too many, so no flush writes more Parts than that; nothing is
// dead-lettered (the outbox is our own database) and an event of a partition already in the
// sub-range never starts a new one.
TEST(OutboxLakeSink, ADeliverySpanningMorePartitionsThanItsCapIsFlushedInConsecutiveRanges) {
  TempDir tmp;
  auto dest = lake::DirDestination::Make(tmp.path().string());
  ASSERT_TRUE(dest.ok());
  LakeEventSink sink("lake", std::move(dest).value(), Options(), row::kDefaultBatchBytes, 3);
  ASSERT_TRUE(sink.Open().ok());
  std::vector<Event> events;
  // Events 1-4 are types a, b, a, c (three partitions), 5 is d (a fourth), 6-7 are e and d.
  const char* types[] = {"a", "b", "a", "c", "d", "e", "d"};
  for (int n = 1; n <= 7; ++n) {
    events.push_back(MakeEvent(n, types[n - 1], "2026-12-01T00:00:00Z"));
  }
  ASSERT_TRUE(sink.Deliver(events).ok());
  std::vector<std::string> names;
  for (const fs::path& p : testing::LakeFiles(tmp.path())) names.push_back(p.filename().string());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{
                       "part-test-1-1-4-0.parquet", "part-test-1-1-4-1.parquet",
                       "part-test-1-1-4-2.parquet", "part-test-1-5-7-0.parquet",
                       "part-test-1-5-7-1.parquet"}))
      << "events 1-4 in three Parts, then 5-7 (types d, e) in two";
  auto r = DuckDb("SELECT count(*), count(DISTINCT event_id) FROM read_parquet(" +
                  Glob(tmp.path()) + ")");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.rows[0], (std::vector<std::string>{"7", "7"}));
}

// An outbox table (table/commit.h) as the test scripts it: it holds the sink's positions through
// `held` and records the positions of every commit. sinkd's own interface, as an `iceberg` commit
// implements it.
class OutboxTable final : public table::Commit {
 public:
  std::string_view format() const override { return "scripted"; }
  Result<std::vector<table::SequenceRange>> Committed(std::string_view,
                                                      const table::Provenance&) override {
    return std::vector<table::SequenceRange>{};
  }
  Result<std::optional<table::OutboxPosition>> CommittedThrough(
      std::string_view, const table::Provenance& p) override {
    const table::OutboxPosition first{p.first_txid.value_or(0), p.first_sequence};
    if (!held || *held < first) return std::optional<table::OutboxPosition>();
    return held;
  }
  Status Apply(const table::CommitRequest& request) override {
    committed.push_back(request.positions);
    return Status::OK();
  }
  std::optional<table::OutboxPosition> held;
  std::vector<table::Provenance> committed;
};

// A delivery repeated after its commit landed and its cursor save was lost (a kill -9 between
// them) writes nothing again for the events the table holds (a prefix of the batch, in (txid,
// seq) order), and the rest as always; one the table holds whole writes nothing and succeeds, so
// the cursor moves on.
TEST(OutboxLakeSink, EventsWhosePositionsTheTableHoldsAreNotWrittenAgain) {
  TempDir tmp;
  auto dest = lake::DirDestination::Make(tmp.path().string());
  ASSERT_TRUE(dest.ok());
  OutboxTable outbox_table;
  std::vector<Event> events;
  for (int n = 1; n <= 4; ++n) events.push_back(MakeEvent(n, "t", "2026-12-01T00:00:00Z"));
  outbox_table.held = table::OutboxPosition{events[1].txid, 2};
  LakeEventSink sink("lake", std::move(dest).value(), Options(), row::kDefaultBatchBytes,
                     partition::kDefaultMaxPartitionsPerFlush, outbox_table);
  ASSERT_TRUE(sink.Open().ok());
  ASSERT_TRUE(sink.Deliver(events).ok());
  auto r = DuckDb("SELECT string_agg(event_id, ',' ORDER BY seq) FROM read_parquet(" +
                  Glob(tmp.path()) + ")");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.rows[0][0], "evt_3,evt_4");
  ASSERT_EQ(outbox_table.committed.size(), 1u);
  EXPECT_EQ(outbox_table.committed[0].acknowledged, (std::vector<table::SequenceRange>{{3, 4}}));
  EXPECT_EQ(outbox_table.committed[0].source, "outbox:lake");
  EXPECT_EQ(outbox_table.committed[0].first_txid, events[2].txid);
  EXPECT_EQ(outbox_table.committed[0].last_txid, events[3].txid);

  outbox_table.held = table::OutboxPosition{events[3].txid, 4};
  const size_t parts = testing::LakeFiles(tmp.path()).size();
  ASSERT_TRUE(sink.Deliver(events).ok());
  EXPECT_EQ(testing::LakeFiles(tmp.path()).size(), parts);
  EXPECT_EQ(outbox_table.committed.size(), 1u) << "nothing left to commit";
}

// Two producers' transactions interleave their seqs: txid 100 holds seqs 5 and 7, txid 101 seq
// 6, and the outbox delivers them 5, 7, then 6. With a real iceberg table (files catalog), the
// delivery of (101, 6) after (100, 5) and (100, 7) were committed is written and committed too:
// the table holds all three rows once, and a redelivery of the first batch writes nothing.
// Failed before: the table's outbox mark was seq 7 alone, 6 <= 7 took (101, 6) for committed and
// the table held 2 rows (the event was acknowledged and lost from the table).
TEST(OutboxLakeSink, AnInterleavedTransactionsLowerSeqDeliveredLaterIsCommittedToTheTableOnce) {
  TempDir tmp;
  auto made = lake::DirDestination::Make(tmp.path().string());
  ASSERT_TRUE(made.ok());
  std::unique_ptr<lake::Destination> dest = std::move(made).value();
  lake::Destination& lake = *dest;
  auto commit = iceberg::MakeTableCommit("iceberg", lake, "");
  ASSERT_TRUE(commit.ok()) << commit.status().ToString();
  LakeEventSink sink("lake", std::move(dest), Options(), row::kDefaultBatchBytes,
                     partition::kDefaultMaxPartitionsPerFlush, std::move(commit).value());
  ASSERT_TRUE(sink.Open().ok());
  const auto event = [](uint64_t txid, int64_t seq) {
    Event e = MakeEvent(static_cast<int>(seq), "t", "2026-12-01T00:00:00Z");
    e.txid = txid;
    e.sequence = std::to_string(txid) + ":" + std::to_string(seq);
    return e;
  };
  const std::vector<Event> first = {event(100, 5), event(100, 7)};
  const std::vector<Event> second = {event(101, 6)};
  ASSERT_TRUE(sink.Deliver(first).ok());
  ASSERT_TRUE(sink.Deliver(second).ok());
  ASSERT_TRUE(sink.Deliver(first).ok()) << "a redelivery";
  iceberg::FilesCatalog catalog(lake, lake.Uri(), "outbox_events",
                                iceberg::SpecOf(row::kOutboxEventColumns));
  auto loaded = catalog.Load();
  ASSERT_TRUE(loaded.ok() && loaded->metadata) << loaded.status().ToString();
  const iceberg::Snapshot* current = loaded->metadata->Current();
  ASSERT_NE(current, nullptr);
  ASSERT_NE(current->Find("total-records"), nullptr);
  EXPECT_EQ(*current->Find("total-records"), "3");
  EXPECT_EQ(loaded->metadata->snapshots.size(), 2u);
  auto positions = iceberg::CommittedPositions(&*loaded->metadata);
  ASSERT_TRUE(positions.ok());
  EXPECT_EQ(positions->OutboxMark("lake"), (std::pair<uint64_t, uint64_t>{101, 6}));
  auto r = DuckDb("SELECT string_agg(event_id, ',' ORDER BY seq) FROM read_parquet(" +
                  Glob(tmp.path()) + ")");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.rows[0][0], "evt_5,evt_6,evt_7");
}

// An event the lake cannot take would fail every redelivery: it is a permanent failure, and
// nothing of its batch is written.
TEST(OutboxLakeSink, AnEventWithoutAnIdOrAReadableTimeIsRejectedAndNothingIsWritten) {
  TempDir tmp;
  auto sink = MakeSink(tmp.path());
  Event no_id = MakeEvent(1, "t", "2026-11-30T00:00:00Z");
  no_id.id.clear();
  Event bad_time = MakeEvent(2, "t", "yesterday");
  for (const Event& bad : {no_id, bad_time}) {
    const std::vector<Event> batch = {MakeEvent(0, "t", "2026-11-30T00:00:00Z"), bad};
    Status s = sink->Deliver(batch);
    EXPECT_TRUE(s.IsReject()) << s.ToString();
  }
  EXPECT_EQ(testing::LakeFiles(tmp.path()).size(), 0u);
}

// The Parquet writer refuses a STRING value that is not UTF-8 with Reject; the lake sink passes
// that on as Reject (it used to become Retry), so nothing is written and no retry can help.
TEST(OutboxLakeSink, AValueTheParquetWriterRefusesIsRejectedNotRetried) {
  TempDir tmp;
  auto sink = MakeSink(tmp.path());
  Event bad = MakeEvent(1, "t", "2026-11-30T00:00:00Z");
  bad.subject = "reservation/\xff\xfe";
  const std::vector<Event> batch = {bad};
  Status s = sink->Deliver(batch);
  EXPECT_TRUE(s.IsReject()) << s.ToString();
  EXPECT_NE(s.message().find("UTF-8"), std::string::npos) << s.ToString();
  EXPECT_EQ(testing::LakeFiles(tmp.path()).size(), 0u);
}

// A database in SQL_ASCII stores any bytes, so an event's subject may reach the sink as bytes
// that are not UTF-8. The test databases are UTF8 (which refuses such bytes), so this wrapper
// hands the real lake sink evt_1 as a SQL_ASCII database would.
class Latin1Subject final : public EventSink {
 public:
  explicit Latin1Subject(std::unique_ptr<EventSink> inner) : inner_(std::move(inner)) {}
  const std::string& id() const override { return inner_->id(); }
  Status Open() override { return inner_->Open(); }
  Status Deliver(std::span<const Event> events) override {
    std::vector<Event> copy(events.begin(), events.end());
    for (Event& e : copy) {
      if (e.id == "evt_1") e.subject = "reservation/r\xe9sa";
    }
    return inner_->Deliver(copy);
  }

 private:
  std::unique_ptr<EventSink> inner_;
};

// Through every layer: the dispatcher delivers to the real lake sink, whose Parquet writer
// rejects the event, and the lone event is dead-lettered at once (attempts 1, no back-off), as
// the Sinks page documents for a permanent failure, while its neighbours reach the lake.
TEST(OutboxLakeSink, AnEventTheLakeWriterRejectsIsDeadLetteredAtOnceByTheDispatcher) {
  outbox::testing::OutboxDb db;
  db.Migrate();
  db.InsertEvents(3);
  TempDir tmp;
  outbox::ManualClock clock;
  outbox::testing::CapturedLog log;
  auto d = outbox::Dispatcher::Make(
      outbox::testing::TestOptions(db.conninfo(), clock, log.logger()),
      outbox::testing::One(std::make_unique<Latin1Subject>(MakeSink(tmp.path()))), {});
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  for (int i = 0; i < 6; ++i) ASSERT_TRUE((*d)->Tick().ok());  // no clock advance: no back-off
  PgResult dl = db.Sql("SELECT attempts, error, event->>'id' FROM outbox_dead_letters");
  ASSERT_EQ(dl.rows(), 1) << log.Text();
  EXPECT_EQ(dl.Text(0, 2), "evt_1");
  EXPECT_EQ(dl.Int(0, 0), 1) << "dead-lettered on its first lone failure";
  EXPECT_NE(std::string(dl.Text(0, 1)).find("UTF-8"), std::string::npos) << dl.Text(0, 1);
  EXPECT_EQ(log.Lines("lone event failed").size(), 0u) << "no back-off for a permanent failure";
  auto q = DuckDb("SELECT string_agg(event_id, ',' ORDER BY event_id) FROM read_parquet(" +
                  Glob(tmp.path()) + ")");
  ASSERT_TRUE(q.ok) << q.error;
  EXPECT_EQ(q.rows[0][0], "evt_0,evt_2");
}

TEST(OutboxLakeSink, AuditRecordsLandInTheirOwnTablePartitionedByDate) {
  TempDir tmp;
  auto dest = lake::DirDestination::Make(tmp.path().string());
  lake::LakeWriterOptions o = Options();
  o.key_prefix = "outbox_audit";
  LakeAuditSink sink("archive", std::move(dest).value(), o);
  ASSERT_TRUE(sink.Open().ok());
  AuditRecord r;
  r.id = "aud_1";
  r.tenant_id = "ten_1";
  r.time_micros = 1'796'070'526'123'000;
  r.action = "reservation.create";
  r.resource_type = "reservation";
  r.resource_id = "rsv_1";
  r.admission_json = "{\"decision\": \"allow\"}";
  r.sequence = "700:1";
  r.txid = 700;
  r.seq = 1;
  ASSERT_TRUE(sink.Write(std::vector<AuditRecord>{r}).ok());
  auto q = DuckDb("SELECT event_id, CAST(date AS VARCHAR), action, resource_type, resource_id, "
                  "admission_json, details_json, sequence FROM read_parquet(" +
                  SqlQuote((tmp.path() / "outbox_audit" / "**" / "*.parquet").string()) +
                  ", hive_partitioning = true)");
  ASSERT_TRUE(q.ok) << q.error;
  ASSERT_EQ(q.rows.size(), 1u);
  EXPECT_EQ(q.rows[0], (std::vector<std::string>{"aud_1", "2026-11-30", "reservation.create",
                                                 "reservation", "rsv_1", "{\"decision\": \"allow\"}",
                                                 "null", "700:1"}));
}

// A sink whose acknowledgement is lost now and then (the write landed, the call failed): the
// dispatcher redelivers and bisects, the lake holds duplicates, and DuckDB's DISTINCT on event_id
// finds each event exactly once; the event with no time is dead-lettered, not written.
class FlakyAck final : public EventSink {
 public:
  explicit FlakyAck(std::unique_ptr<EventSink> inner) : inner_(std::move(inner)) {}
  const std::string& id() const override { return inner_->id(); }
  Status Open() override { return inner_->Open(); }
  Status Deliver(std::span<const Event> events) override {
    Status s = inner_->Deliver(events);
    if (s.ok() && events.size() > 1 && ++calls_ % 3 == 0) return Status::Retry("ack lost");
    return s;
  }

 private:
  std::unique_ptr<EventSink> inner_;
  int calls_ = 0;
};

TEST(OutboxLakeSink, EveryEventIsInTheLakeExactlyOnceAfterDedupe) {
  outbox::testing::OutboxDb db;
  db.Migrate();
  db.InsertEvents(400, "reservation.placed");
  db.Sql("INSERT INTO outbox (topic, payload) VALUES ('node.connected', "
         "'{\"id\": \"evt_untimed\", \"type\": \"node.connected\"}')");
  db.InsertEvents(300, "node.connected");
  TempDir tmp;
  outbox::ManualClock clock;
  outbox::testing::CapturedLog log;
  auto d = outbox::Dispatcher::Make(
      outbox::testing::TestOptions(db.conninfo(), clock, log.logger()),
      outbox::testing::One(std::make_unique<FlakyAck>(MakeSink(tmp.path()))), {});
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  const auto caught_up = [&] {
    PgResult r = db.Sql("SELECT (SELECT seq FROM outbox_cursors) = (SELECT seq FROM outbox "
                        "ORDER BY txid DESC, seq DESC LIMIT 1)");
    return r.rows() == 1 && r.Text(0, 0) == "t";
  };
  for (int i = 0; i < 300 && !caught_up(); ++i) {
    ASSERT_TRUE((*d)->Tick().ok());
    clock.Advance(std::chrono::seconds(1));
  }
  ASSERT_TRUE(caught_up());
  EXPECT_EQ(db.Count("SELECT count(*) FROM outbox_dead_letters WHERE event->>'id' = "
                     "'evt_untimed'"), 1);
  auto q = DuckDb("SELECT count(*), count(DISTINCT event_id), count(DISTINCT type) FROM "
                  "read_parquet(" + Glob(tmp.path()) + ", hive_partitioning = true)");
  ASSERT_TRUE(q.ok) << q.error;
  EXPECT_GT(std::stoll(q.rows[0][0]), 700) << "premise: lost acks made redeliveries";
  EXPECT_EQ(q.rows[0][1], "700") << "every event once after dedupe, the untimed one not at all";
  EXPECT_EQ(q.rows[0][2], "2");
  auto ids = DuckDb("SELECT DISTINCT event_id FROM read_parquet(" + Glob(tmp.path()) + ")");
  std::set<std::string> got;
  for (const auto& row : ids.rows) got.insert(row[0]);
  std::set<std::string> want;
  for (int i = 0; i < 700; ++i) want.insert("evt_" + std::to_string(i));
  EXPECT_EQ(got, want);
}

}  // namespace
}  // namespace sinkd::sinks

namespace sinkd::sinks {
namespace {

// An outbox lake sink's stamp: its (txid, seq) range, the seqs it stored as ranges (seq is a
// bigserial with holes, so only the ones delivered), and its rows.
TEST(OutboxLakeSink, EveryPartNamesItsTxidAndSeqRangeAndTheSeqsItStored) {
  TempDir tmp;
  auto sink = MakeSink(tmp.path());
  const std::vector<Event> events = {MakeEvent(4, "a", "2026-12-01T00:00:01Z"),
                                     MakeEvent(5, "b", "2026-12-01T00:00:02Z"),
                                     MakeEvent(9, "a", "2026-12-01T00:00:03Z")};
  ASSERT_TRUE(sink->Deliver(events).ok());
  const auto values = testing::FooterValues(
      (tmp / "outbox_events" / "**" / "*.parquet").string(), "sinkd.stamps");
  ASSERT_EQ(values.size(), 2u);
  uint64_t rows = 0;
  for (const auto& [file, value] : values) {
    const auto stamps = nlohmann::json::parse(value);
    ASSERT_EQ(stamps.size(), 1u);
    EXPECT_EQ(stamps[0]["source"], "outbox:lake");
    EXPECT_EQ(stamps[0]["scope"], "outbox");
    EXPECT_EQ(stamps[0]["first"], 4);
    EXPECT_EQ(stamps[0]["last"], 9);
    EXPECT_EQ(stamps[0]["first_txid"], 702);
    EXPECT_EQ(stamps[0]["last_txid"], 704);
    EXPECT_EQ(stamps[0]["acked"], nlohmann::json::parse("[[4,5],[9,9]]"));
    EXPECT_EQ(stamps[0]["rows"], 3);
    EXPECT_EQ(stamps[0]["parts"], 2);
    EXPECT_EQ(fs::path(file), tmp / stamps[0]["key"].get<std::string>());
    rows += stamps[0]["part_rows"].get<uint64_t>();
  }
  EXPECT_EQ(rows, 3u);
}

}  // namespace
}  // namespace sinkd::sinks
