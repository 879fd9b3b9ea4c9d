// The compaction engine on a real directory lake, read back by DuckDB: deterministic outputs,
// one row per id (the earliest), inputs kept through the grace and deleted after it, the policy
// at work, refusals that leave a Part in place, dead letters untouched.
#include "compact/compactor.h"

#include <gtest/gtest.h>

#include "compact/compact_test_util.h"
#include "base/sha256.h"
#include "compact/merge.h"
#include "parquet/part_reader.h"
#include "support/wrapped_destination.h"

namespace sinkd::compact {
namespace {

using namespace testutil;  // NOLINT
using sinkd::testing::DuckDb;
using sinkd::testing::ReadFile;
using sinkd::testing::SqlQuote;
using sinkd::testing::TempDir;
using sinkd::testing::WriteFile;

// "e<n>", appended: gcc 12 -O3 warns falsely (-Wstringop-overflow) on `"e" + std::to_string(n)`.
std::string EventId(int n) {
  std::string id = "e";
  id.append(std::to_string(n));
  return id;
}

// `parts` flushes of `per_part` rows into app `svc` on kDay, every id of flush k also in flush
// k+1 (a redelivery overlap), the copy one second later.
uint64_t WriteOverlappingFlushes(lake::Destination& lake, int parts, int per_part,
                                 const std::string& instance = "box-1") {
  uint64_t bytes = 0;
  for (int k = 0; k < parts; ++k) {
    std::vector<TestRow> rows;
    for (int i = 0; i < per_part; ++i) {
      rows.push_back({EventId(k * per_part + i), kDayMicros + (k * per_part + i) * 1000000LL});
    }
    if (k > 0) {  // the previous flush's last two ids again, one second later
      for (int i = per_part - 2; i < per_part; ++i) {
        const int n = (k - 1) * per_part + i;
        rows.push_back({EventId(n), kDayMicros + n * 1000000LL + 1000000LL});
      }
    }
    bytes += Flush(lake, rows, 1 + static_cast<uint64_t>(k) * 100, instance);
  }
  return bytes;
}

int64_t Count(const fs::path& root, const std::string& what) {
  auto r = DuckDb("SELECT " + what + " FROM " + Glob(root));
  EXPECT_TRUE(r.ok) << r.error;
  return r.ok && !r.rows.empty() ? std::stoll(r.rows[0][0]) : -1;
}

TEST(Compactor, TheSameInputsCompactedTwiceGiveByteIdenticalOutputs) {
  TempDir a, b;
  auto lake_a = DirLake(a.path());
  WriteOverlappingFlushes(*lake_a, 8, 20);
  fs::copy(a.path(), b.path(), fs::copy_options::recursive | fs::copy_options::overwrite_existing);
  // The same objects: an input's version (its mtime on a directory) is in the output's name and
  // footer, so the copies keep the originals' times.
  for (const auto& f : Files(a.path())) fs::last_write_time(b / f, fs::last_write_time(a / f));
  auto lake_b = DirLake(b.path());
  const int64_t now = kDayMs + 2 * kHourMs;
  // The second compactor encodes its column chunks on three threads: the bytes do not show it.
  size_t threads = 1;
  for (lake::Destination* lake : {static_cast<lake::Destination*>(lake_a.get()),
                                  static_cast<lake::Destination*>(lake_b.get())}) {
    CompactOptions options = Options([&] { return now; });
    options.encode_threads = threads;
    threads = 3;
    Compactor compactor(*lake, options);
    auto report = compactor.RunPass({});
    ASSERT_TRUE(report.ok()) << report.status().ToString();
    EXPECT_EQ(report->outputs, 1u);
  }
  const auto outputs = Outputs(a.path());
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(Outputs(b.path()), outputs);
  EXPECT_EQ(ReadFile(a / outputs[0]), ReadFile(b / outputs[0]));
}

TEST(Compactor, DuckDbReadsEveryIdExactlyOnceAfterTheGraceWithTheEarliestRowKept) {
  TempDir dir;
  auto lake = DirLake(dir.path());
  WriteOverlappingFlushes(*lake, 8, 20);
  ASSERT_EQ(Count(dir.path(), "count(*)"), 160 + 7 * 2) << "premise: duplicates in the lake";
  int64_t now = kDayMs + 2 * kHourMs;
  Compactor compactor(*lake, Options([&] { return now; }));
  auto first = compactor.RunPass({});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->rows_in, 174u);
  EXPECT_EQ(first->rows_out, 160u);
  EXPECT_EQ(first->duplicates_dropped, 14u);
  EXPECT_EQ(first->inputs_deleted, 0u);
  EXPECT_EQ(Files(dir.path()).size(), 9u) << "the output beside its inputs";

  // The file's real time plus the grace: the inputs may go now.
  now = std::chrono::duration_cast<std::chrono::milliseconds>(
            std::chrono::file_clock::to_sys(fs::last_write_time(dir / Outputs(dir.path())[0]))
                .time_since_epoch())
            .count() +
        kHourMs + 1;
  auto second = compactor.RunPass({});
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(second->inputs_deleted, 8u);
  EXPECT_EQ(second->outputs, 0u);
  ASSERT_EQ(Files(dir.path()).size(), 1u);
  EXPECT_EQ(Count(dir.path(), "count(*)"), 160);
  EXPECT_EQ(Count(dir.path(), "count(DISTINCT event_id)"), 160);
  // e19 came at its own time and again one second later: the earliest is the one kept.
  EXPECT_EQ(Count(dir.path(), "epoch_us(time) FROM " + Glob(dir.path()) +
                                  " WHERE event_id = 'e19' --"),
            kDayMicros + 19 * 1000000LL);
  // Sorted by (time, id), in our shape (UTC timestamps, app inside the file, field ids).
  auto sorted = DuckDb("SELECT bool_and(ok) FROM (SELECT time >= lag(time, 1, time) OVER () AS ok "
                       "FROM read_parquet(" + SqlQuote((dir / Files(dir.path())[0]).string()) +
                       ", hive_partitioning=false))");
  ASSERT_TRUE(sorted.ok) << sorted.error;
  EXPECT_EQ(sorted.rows[0][0], "true");
}

TEST(Compactor, NoInputIsDeletedBeforeTheGraceHasPassedSinceTheOutputAppeared) {
  TempDir dir;
  auto lake = DirLake(dir.path());
  WriteOverlappingFlushes(*lake, 8, 10);
  int64_t now = kDayMs + 2 * kHourMs;
  auto options = Options([&] { return now; });
  options.grace_ms = kHourMs;
  Compactor compactor(*lake, options);
  ASSERT_TRUE(compactor.RunPass({}).ok());
  const auto output = Outputs(dir.path()).at(0);
  const int64_t appeared = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::file_clock::to_sys(fs::last_write_time(dir / output))
                                   .time_since_epoch())
                               .count();
  now = appeared + kHourMs - 1000;
  auto early = compactor.RunPass({});
  ASSERT_TRUE(early.ok());
  EXPECT_EQ(early->inputs_deleted, 0u);
  EXPECT_EQ(early->outputs, 0u) << "superseded inputs are never merged again";
  EXPECT_EQ(Files(dir.path()).size(), 9u);
  now = appeared + kHourMs;
  auto due = compactor.RunPass({});
  ASSERT_TRUE(due.ok());
  EXPECT_EQ(due->inputs_deleted, 8u);
  EXPECT_EQ(Files(dir.path()), (std::vector<std::string>{output}));
}

TEST(Compactor, AnOpenDatesSmallPartsWaitForMinPartsAndAClosedDateTakesThemAll) {
  TempDir dir;
  auto lake = DirLake(dir.path());
  WriteOverlappingFlushes(*lake, 7, 5);
  int64_t now = kDayMs + 12 * kHourMs;  // the date is open
  Compactor compactor(*lake, Options([&] { return now; }));
  auto open = compactor.RunPass({});
  ASSERT_TRUE(open.ok());
  EXPECT_EQ(open->outputs, 0u);
  WriteOverlappingFlushes(*lake, 1, 5, "box-2");  // an eighth Part (its ids are e0…e4 again)
  auto eight = compactor.RunPass({});
  ASSERT_TRUE(eight.ok());
  EXPECT_EQ(eight->outputs, 1u);
  EXPECT_EQ(eight->rows_in, 7u * 5 + 6 * 2 + 5);
  // A late Part after the date closed merges with the output below target.
  Flush(*lake, {{"late", kDayMicros + 3600LL * 1000000}}, 9000);
  auto still_open = compactor.RunPass({});
  ASSERT_TRUE(still_open.ok());
  EXPECT_EQ(still_open->outputs, 0u);
  now = kDayMs + 24 * kHourMs + kHourMs + 1;  // closed more than settle (1h) ago
  auto closed = compactor.RunPass({});
  ASSERT_TRUE(closed.ok()) << closed.status().ToString();
  EXPECT_EQ(closed->outputs, 1u);
  EXPECT_EQ(closed->rows_out, 36u);
  EXPECT_EQ(Outputs(dir.path()).size(), 2u);
}

// The demo lake's shape: every date closed, one Part per partition. Rewriting such a Part
// one-for-one gives the same rows at the cost of its bytes (the demo lake's 50 Parts, ~20 MB, went
// through every pass); only a Part holding copies of a record is worth a rewrite.
TEST(Compactor, ALonePartOfAClosedDateWithoutCopiesIsLeftAsItIs) {
  TempDir dir;
  auto lake = DirLake(dir.path());
  std::vector<TestRow> rows;
  const std::vector<std::string> apps = {"api", "billing", "jobs", "web"};
  for (int day = 0; day < 3; ++day) {
    for (size_t a = 0; a < apps.size(); ++a) {
      for (int i = 0; i < 20; ++i) {
        const int n = (day * 4 + static_cast<int>(a)) * 100 + i;
        rows.push_back({EventId(n), kDayMicros + day * 86'400'000'000LL + i * 1'000'000LL,
                        apps[a]});
      }
    }
  }
  Flush(*lake, rows, 1);
  // One more partition whose lone Part holds a redelivered copy: that one is rewritten.
  Flush(*lake, {{"c1", kDayMicros}, {"c2", kDayMicros + 1}, {"c1", kDayMicros + 2}}, 500, "box-2");
  const std::vector<std::string> before = Files(dir.path());
  ASSERT_EQ(before.size(), 13u) << "premise: one Part per partition";
  std::map<std::string, std::string> bytes;
  for (const std::string& f : before) bytes[f] = ReadFile(dir / f);

  // Closed long ago, and no grace: anything superseded goes at once (the output's file time is
  // the real clock's).
  auto options = Options([] { return std::max(RealNowMs(), kDayMs + 30 * 24 * kHourMs) + 1000; });
  options.grace_ms = 0;
  Compactor compactor(*lake, options);
  auto first = compactor.RunPass({});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->parts_left_alone, 12u);
  EXPECT_EQ(first->outputs, 1u) << "the Part holding a copy";
  EXPECT_EQ(first->rows_in, 3u);
  EXPECT_EQ(first->rows_out, 2u);
  EXPECT_EQ(first->inputs_deleted, 0u);
  auto second = compactor.RunPass({});
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(second->outputs, 0u);
  EXPECT_EQ(second->bytes_written, 0u);
  EXPECT_EQ(second->inputs_deleted, 1u) << "the copy's Part, superseded";
  EXPECT_EQ(second->parts_left_alone, 12u);
  auto cached = compactor.RunPass({});
  ASSERT_TRUE(cached.ok()) << cached.status().ToString();
  EXPECT_EQ(cached->bytes_read, 0u) << "the Parts left alone are read once per process";
  EXPECT_EQ(cached->parts_left_alone, 12u);

  // A new process (the hourly timer's) reads them again and still writes and removes nothing.
  Compactor later(*lake, options);
  auto third = later.RunPass({});
  ASSERT_TRUE(third.ok()) << third.status().ToString();
  EXPECT_EQ(third->outputs, 0u);
  EXPECT_EQ(third->bytes_written, 0u);
  EXPECT_EQ(third->inputs_deleted, 0u);
  EXPECT_EQ(third->partitions_merged, 0u);
  EXPECT_EQ(third->parts_left_alone, 12u);
  std::vector<std::string> after = Files(dir.path());
  ASSERT_EQ(after.size(), 13u);
  for (const std::string& f : before) {
    if (f.find("app=svc") != std::string::npos) continue;  // the Part with a copy, replaced
    ASSERT_TRUE(std::count(after.begin(), after.end(), f)) << f << " removed";
    EXPECT_EQ(ReadFile(dir / f), bytes[f]) << f << " rewritten";
  }
  EXPECT_EQ(Count(dir.path(), "count(*)"), 12 * 20 + 2);
}

TEST(Compactor, APartThatCannotBeReadIsRefusedLeftInPlaceAndThePassGoesOn) {
  TempDir dir;
  auto lake = DirLake(dir.path());
  WriteOverlappingFlushes(*lake, 3, 5);
  const std::string bad = "ledger/date=2026-09-22/app=svc/part-bad-1-1-0.parquet";
  WriteFile(dir / bad, "PAR1 this is not a Parquet file PAR1");
  // Another partition, all good.
  Flush(*lake, {{"x1", kDayMicros, "other"}, {"x2", kDayMicros + 1, "other"}}, 500);
  Flush(*lake, {{"x2", kDayMicros + 1, "other"}, {"x3", kDayMicros + 2, "other"}}, 600);
  int64_t now = kDayMs + 26 * kHourMs;  // the date closed: every Part is due to merge
  Compactor compactor(*lake, Options([&] { return now; }));
  PassReport report;
  auto pass = compactor.RunPass({}, &report);
  ASSERT_FALSE(pass.ok());
  EXPECT_TRUE(pass.status().IsRefuse());
  EXPECT_NE(pass.status().message().find(bad), std::string::npos) << pass.status().message();
  ASSERT_EQ(report.refused.size(), 1u);
  EXPECT_EQ(report.outputs, 2u) << "both partitions compacted without the bad Part";
  EXPECT_EQ(ReadFile(dir / bad), "PAR1 this is not a Parquet file PAR1");
  now = RealNowMs() + 2 * kHourMs;  // the outputs' files are real: the grace on the real clock
  auto later = compactor.RunPass({}, &report);
  EXPECT_FALSE(later.ok());
  EXPECT_EQ(report.inputs_deleted, 5u) << "the good inputs go after the grace";
  EXPECT_TRUE(fs::exists(dir / bad)) << "the refused Part is never deleted";
  auto other = DuckDb("SELECT count(*), count(DISTINCT event_id) FROM read_parquet(" +
                      SqlQuote((dir / "ledger/date=2026-09-22/app=other/*.parquet").string()) + ")");
  ASSERT_TRUE(other.ok) << other.error;
  EXPECT_EQ(other.rows[0], (std::vector<std::string>{"3", "3"}));
}

TEST(Compactor, DeadLettersAndTemporaryFilesAreNeverReadMergedOrDeleted) {
  TempDir dir;
  auto lake = DirLake(dir.path());
  WriteOverlappingFlushes(*lake, 2, 5);
  WriteFile(dir / "dead-letters/ledger/dead-box-1-1-9.jsonl", "{\"reason\":\"unmarshal\"}\n");
  WriteFile(dir / "ledger/date=2026-09-22/app=svc/part-x-1-1-0.parquet.incomplete", "half");
  WriteFile(dir / "ledger/dead_letters/x.parquet", "not ours");
  int64_t now = kDayMs + 26 * kHourMs;
  Compactor compactor(*lake, Options([&] { return now; }));
  ASSERT_TRUE(compactor.RunPass({}).ok());
  now = RealNowMs() + 2 * kHourMs;
  auto after = compactor.RunPass({});
  ASSERT_TRUE(after.ok()) << after.status().ToString();
  EXPECT_EQ(after->inputs_deleted, 2u);
  EXPECT_TRUE(fs::exists(dir / "dead-letters/ledger/dead-box-1-1-9.jsonl"));
  EXPECT_TRUE(fs::exists(dir / "ledger/date=2026-09-22/app=svc/part-x-1-1-0.parquet.incomplete"));
  EXPECT_TRUE(fs::exists(dir / "ledger/dead_letters/x.parquet"));
}

// A directory lake whose uploads to keys ending in `fail_suffix` fail while `failing` is set: a
// compactor killed between two outputs of a split merge, as far as the lake can tell.
class FailingUploads : public sinkd::testing::WrappedDestination {
 public:
  using WrappedDestination::WrappedDestination;
  bool failing = true;
  std::string fail_suffix = "-1.parquet";
  Result<std::unique_ptr<lake::PartUpload>> Begin(const std::string& key) override {
    if (failing && key.ends_with(fail_suffix)) return Status::Redeliver("injected: " + key);
    return WrappedDestination::Begin(key);
  }
};

TEST(Compactor, ASplitMergeCutShortDeletesNothingAndTheNextPassFinishesIt) {
  TempDir dir;
  auto lake = DirLake(dir.path());
  for (int k = 0; k < 8; ++k) {
    std::vector<TestRow> rows;
    for (int i = 0; i < 250; ++i) {  // every column holds the 64-hex id: ~1 KB a row
      const int n = k * 250 + i;
      rows.push_back({Sha256Hex(std::to_string(n)), kDayMicros + n});
    }
    Flush(*lake, rows, 1 + k * 10000);
  }
  uint64_t total = 0;
  for (const auto& f : Files(dir.path())) total += fs::file_size(dir / f);
  // The files carry real times: a clock an hour ahead of them (the date closed long ago).
  auto options = Options([] { return RealNowMs() + kHourMs; });
  options.target_bytes = 1 << 20;
  options.grace_ms = 0;  // every pass may delete what a complete merge supersedes
  ASSERT_GT(total, 3 * options.target_bytes / 2) << "premise: the merge splits";
  FailingUploads failing(*lake);
  Compactor compactor(failing, options);
  auto cut = compactor.RunPass({});
  ASSERT_FALSE(cut.ok());
  EXPECT_TRUE(cut.status().IsRedeliver()) << cut.status().ToString();
  ASSERT_EQ(Outputs(dir.path()).size(), 1u) << "output 0 placed, output 1 not";
  auto incomplete = compactor.RunPass({});  // still failing: nothing may be deleted
  EXPECT_FALSE(incomplete.ok());
  EXPECT_EQ(Files(dir.path()).size(), 9u) << "an incomplete merge supersedes nothing";
  failing.failing = false;
  auto finished = compactor.RunPass({});
  ASSERT_TRUE(finished.ok()) << finished.status().ToString();
  EXPECT_GE(Outputs(dir.path()).size(), 2u);
  EXPECT_EQ(finished->inputs_deleted, 0u) << "deleted only by a later pass";
  auto deleting = compactor.RunPass({});
  ASSERT_TRUE(deleting.ok()) << deleting.status().ToString();
  EXPECT_EQ(deleting->inputs_deleted, 8u);
  EXPECT_EQ(Files(dir.path()), Outputs(dir.path()));
  EXPECT_EQ(Count(dir.path(), "count(*)"), 2000);
  EXPECT_EQ(Count(dir.path(), "count(DISTINCT event_id)"), 2000);
}

TEST(Compactor, TwoDifferentOutputsOverOverlappingInputsNeverCostARow) {
  TempDir dir;
  auto lake = DirLake(dir.path());
  WriteOverlappingFlushes(*lake, 8, 10);
  // Compactor B listed the partition with a ninth Part, just before compactor A's output landed.
  Flush(*lake, {{"late-1", kDayMicros + 5}, {"e3", kDayMicros + 3'000'000}}, 7000, "box-9");
  MergeSpec spec;
  spec.table = &row::kLedgerColumns;
  spec.partition = "ledger/date=2026-09-22/app=svc";
  spec.partition_values = {"svc"};
  auto listed = lake->List("ledger/");
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  for (const lake::StoredObject& o : *listed) spec.inputs.push_back({o.key, o.size, o.version});
  spec.target_bytes = 256ull << 20;
  spec.parquet = Options(nullptr).parquet;
  auto b = Merge(*lake, spec, nullptr);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  ASSERT_EQ(b->outputs.size(), 1u);
  // Compactor A, which never saw the ninth Part, merges the eight.
  fs::rename(dir / spec.inputs.back().key, dir / "hidden");
  int64_t now = RealNowMs();
  Compactor a(*lake, Options([&] { return now; }));
  fs::rename(dir / b->outputs[0].key, dir / "hidden-b");
  ASSERT_TRUE(a.RunPass({}).ok());
  fs::rename(dir / "hidden", dir / spec.inputs.back().key);
  fs::rename(dir / "hidden-b", dir / b->outputs[0].key);
  ASSERT_EQ(Outputs(dir.path()).size(), 2u) << "two different outputs over overlapping inputs";

  now = RealNowMs() + kHourMs + 1000;  // past the grace of both
  auto deleting = a.RunPass({});
  ASSERT_TRUE(deleting.ok()) << deleting.status().ToString();
  EXPECT_EQ(deleting->inputs_deleted, 9u) << "each input covered by a complete merge";
  EXPECT_EQ(Files(dir.path()), Outputs(dir.path()));
  EXPECT_EQ(Count(dir.path(), "count(DISTINCT event_id)"), 81) << "no id lost";
  // Once the date closed, the two outputs merge and the duplicates between them go.
  now = std::max<int64_t>(now, kDayMs + 26 * kHourMs);
  ASSERT_TRUE(a.RunPass({}).ok());
  now = RealNowMs() + 2 * kHourMs + 2000;
  ASSERT_TRUE(a.RunPass({}).ok());
  ASSERT_EQ(Files(dir.path()).size(), 1u);
  EXPECT_EQ(Count(dir.path(), "count(*)"), 81);
  EXPECT_EQ(Count(dir.path(), "count(DISTINCT event_id)"), 81);
}

}  // namespace
}  // namespace sinkd::compact
