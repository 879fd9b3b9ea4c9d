// The merge on its own: a compactor that meets its key taken by another's bytes discards its
// work and the other's output stands; a split merge's outputs hold equal shares and name their
// count.
#include "compact/merge.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>
#include <numeric>

#include "compact/compact_test_util.h"
#include "parquet/part_reader.h"
#include "partition/part_schema.h"

namespace sinkd::compact {
namespace {

using namespace testutil;  // NOLINT
using sinkd::testing::DuckDb;
using sinkd::testing::ReadFile;
using sinkd::testing::SqlQuote;
using sinkd::testing::TempDir;

MergeSpec SpecFor(lake::Destination& lake, const std::string& partition) {
  MergeSpec spec;
  spec.table = &row::kLedgerColumns;
  spec.partition = partition;
  spec.partition_values = {"svc"};
  auto listed = lake.List(partition + "/");
  EXPECT_TRUE(listed.ok());
  for (const auto& o : *listed) spec.inputs.push_back({o.key, o.size, o.version});
  spec.target_bytes = 256ull << 20;
  spec.parquet = lake::LakePartOptions();
  spec.parquet.created_by = "sinkd version 0.0.0 (build test)";
  return spec;
}

TEST(Merge, AKeyTakenByAnotherCompactorsBytesDiscardsThisWorkAndTheirOutputStands) {
  TempDir dir;
  auto lake = DirLake(dir.path());
  for (int k = 0; k < 3; ++k) {
    Flush(*lake, {{"a" + std::to_string(k), kDayMicros + k}, {"b", kDayMicros + 100}}, 1 + k * 10);
  }
  const std::string partition = "ledger/date=2026-09-22/app=svc";
  MergeSpec spec = SpecFor(*lake, partition);
  auto first = Merge(*lake, spec, nullptr);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_EQ(first->outputs.size(), 1u);
  EXPECT_FALSE(first->outputs[0].found_in_place);
  EXPECT_EQ(first->counts.rows_out, 4u);
  const std::string winner = ReadFile(dir / first->outputs[0].key);

  auto again = Merge(*lake, spec, nullptr);  // the same compactor again: the same bytes
  ASSERT_TRUE(again.ok());
  ASSERT_EQ(again->outputs.size(), 1u);
  EXPECT_TRUE(again->outputs[0].found_in_place);

  spec.parquet.zstd_level = 9;  // another compactor whose bytes differ
  auto loser = Merge(*lake, spec, nullptr);
  ASSERT_TRUE(loser.ok()) << loser.status().ToString();
  EXPECT_EQ(loser->taken, 1u);
  EXPECT_TRUE(loser->outputs.empty());
  EXPECT_EQ(ReadFile(dir / first->outputs[0].key), winner);
  EXPECT_EQ(Files(dir.path(), ".incomplete").size(), 0u);
}

TEST(Merge, ASplitMergeGivesOutputsOfEqualSharesThatNameTheirCount) {
  TempDir dir;
  auto lake = DirLake(dir.path());
  for (int k = 0; k < 4; ++k) {
    std::vector<TestRow> rows;
    for (int i = 0; i < 3000; ++i) {
      const int n = k * 3000 + i;
      rows.push_back({"id-" + std::to_string(n) + std::string(200, 'x'), kDayMicros + n});
    }
    Flush(*lake, rows, 1 + k * 10000);
  }
  MergeSpec spec = SpecFor(*lake, "ledger/date=2026-09-22/app=svc");
  uint64_t total = 0;
  for (const auto& in : spec.inputs) total += in.size;
  spec.target_bytes = total / 3;  // about three outputs
  auto merged = Merge(*lake, spec, nullptr);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  ASSERT_GE(merged->outputs.size(), 2u);
  EXPECT_EQ(merged->counts.outputs, merged->outputs.size());
  uint64_t rows = 0;
  for (size_t i = 0; i < merged->outputs.size(); ++i) {
    const std::string& key = merged->outputs[i].key;
    EXPECT_NE(key.find("-" + std::to_string(i) + ".parquet"), std::string::npos) << key;
    const std::string bytes = ReadFile(dir / key);
    auto footer = parquet::ReadFooter(
        [&](uint64_t o, uint64_t n) { return Result<std::string>(bytes.substr(o, n)); },
        bytes.size(), key);
    ASSERT_TRUE(footer.ok()) << footer.status().ToString();
    auto compaction = footer->Find("sinkd.compaction");
    ASSERT_TRUE(compaction);
    EXPECT_NE(compaction->find("\"outputs\":" + std::to_string(merged->outputs.size())),
              std::string::npos);
    EXPECT_NE(compaction->find("\"index\":" + std::to_string(i)), std::string::npos);
    rows += footer->rows;
  }
  EXPECT_EQ(rows, 12000u);
  auto q = DuckDb("SELECT count(*), count(DISTINCT event_id) FROM read_parquet(" +
                  SqlQuote((dir / "ledger/**/compact-*.parquet").string()) + ")");
  ASSERT_TRUE(q.ok) << q.error;
  EXPECT_EQ(q.rows[0][0], "12000");
  EXPECT_EQ(q.rows[0][1], "12000");
}

TEST(Merge, ASinkdPartFoundOutOfOrderIsSortedInMemoryAndItsStampsAreCarried) {
  TempDir dir;
  auto lake = DirLake(dir.path());
  Flush(*lake, {{"b", kDayMicros + 5}, {"d", kDayMicros + 20}}, 1);
  // A Part that claims to be sinkd's but lists its rows backwards.
  row::RowBuffer rows = LedgerRows({{"a", kDayMicros + 1},
                                   {"b", kDayMicros + 2},
                                   {"c", kDayMicros + 30},
                                   {"d", kDayMicros + 40}});
  const std::string key = "ledger/date=2026-09-22/app=svc/part-odd-1-4-0.parquet";
  auto upload = lake->Begin(key);
  ASSERT_TRUE(upload.ok());
  parquet::WriterOptions options = lake::LakePartOptions();
  options.created_by = "sinkd version 0.0.0 (build test)";
  parquet::PartWriter writer(partition::FileSchema(row::kLedgerColumns), options, **upload);
  const std::vector<uint32_t> backwards = {3, 2, 1, 0};
  ASSERT_TRUE(writer.WriteRows(partition::FileView(rows), backwards).ok());
  const std::vector<parquet::KeyValue> metadata = {{"sinkd.stamps", R"([{"part":"odd","n":0}])"}};
  ASSERT_TRUE(writer.Finish(metadata).ok());
  auto placed = (*upload)->Commit();
  ASSERT_TRUE(placed.ok() && *placed == lake::Placed::kNew);

  auto merged = Merge(*lake, SpecFor(*lake, "ledger/date=2026-09-22/app=svc"), nullptr);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  ASSERT_EQ(merged->outputs.size(), 1u);
  EXPECT_EQ(merged->counts.rows_out, 4u);
  const fs::path output = dir / merged->outputs[0].key;
  auto q = DuckDb("SELECT string_agg(event_id || ':' || (epoch_us(time) - " +
                  std::to_string(kDayMicros) + "), ',') FROM read_parquet(" +
                  SqlQuote(output.string()) + ")");
  ASSERT_TRUE(q.ok) << q.error;
  EXPECT_EQ(q.rows[0][0], "a:1,b:2,d:20,c:30") << "sorted by time, the earliest b and d kept";
  auto stamps = DuckDb("SELECT decode(value) FROM parquet_kv_metadata(" +
                       SqlQuote(output.string()) + ") WHERE decode(key) = 'sinkd.stamps'");
  ASSERT_TRUE(stamps.ok) << stamps.error;
  ASSERT_EQ(stamps.rows.size(), 1u);
  // The union of the inputs' elements, sorted by their text: the flush stamp LakeWriter gave the
  // first Part (lake/stamp.h), then the odd Part's own.
  const nlohmann::json carried = nlohmann::json::parse(stamps.rows[0][0]);
  ASSERT_EQ(carried.size(), 2u) << stamps.rows[0][0];
  EXPECT_EQ(carried[0]["key"], "ledger/date=2026-09-22/app=svc/part-box-1-1-2-0.parquet");
  EXPECT_EQ(carried[1], nlohmann::json::parse(R"({"n":0,"part":"odd"})"));
}

TEST(Merge, PartsOfSuccessiveTimesAreReadOneAtATimeNotAllAtOnce) {
  // A large partition of many small flushes (issue 28: peak RSS whatever the partition size):
  // each Part's row group is read when the merge reaches its footer's minimum time, so only the
  // Parts overlapping in time are decoded at once. Reading every input's first row group at the
  // start held all 200 Parts (10,000 rows) here.
  TempDir dir;
  auto lake = DirLake(dir.path());
  for (int k = 0; k < 200; ++k) {
    std::vector<TestRow> rows;
    for (int i = 0; i < 50; ++i) {
      rows.push_back({"id-" + std::to_string(k * 50 + i), kDayMicros + k * 1000 + i});
    }
    Flush(*lake, rows, 1 + k * 100);
  }
  // And two Parts overlapping each other: both are held while their times interleave.
  Flush(*lake, {{"x1", kDayMicros + 500'000}, {"x3", kDayMicros + 500'002}}, 90'001);
  Flush(*lake, {{"x2", kDayMicros + 500'001}, {"x4", kDayMicros + 500'003}}, 90'011);
  auto merged = Merge(*lake, SpecFor(*lake, "ledger/date=2026-09-22/app=svc"), nullptr);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(merged->counts.rows_out, 10'004u);
  EXPECT_LE(merged->peak_rows_loaded, 100u);
  EXPECT_GE(merged->peak_rows_loaded, 4u) << "the two overlapping Parts at once";
  ASSERT_EQ(merged->outputs.size(), 1u);
  auto q = DuckDb(
      "SELECT count(*), bool_and(time >= prev) FROM (SELECT time, lag(time, 1, time) "
      "OVER (ORDER BY file_row_number) AS prev FROM read_parquet(" +
      SqlQuote((dir / merged->outputs[0].key).string()) + ", file_row_number = true))");
  ASSERT_TRUE(q.ok) << q.error;
  EXPECT_EQ(q.rows[0][0], "10004");
  EXPECT_EQ(q.rows[0][1], "true") << "in time order";
  auto x = DuckDb("SELECT string_agg(event_id, ',' ORDER BY file_row_number) FROM read_parquet(" +
                  SqlQuote((dir / merged->outputs[0].key).string()) +
                  ", file_row_number = true) WHERE event_id LIKE 'x%'");
  ASSERT_TRUE(x.ok) << x.error;
  EXPECT_EQ(x.rows[0][0], "x1,x2,x3,x4");
}

// Reached one at a time, small Parts are decoded in groups on the pool beside the merge
// (merge.cc, kDecodeTogether): the merge writes the same bytes as without a pool, and holds at
// most a sixteenth of its row bound decoded ahead.
TEST(Merge, SmallPartsAreDecodedAheadOnThePoolAndTheOutputIsTheSameBytes) {
  TempDir dir;
  auto lake = DirLake(dir.path());
  for (int k = 0; k < 120; ++k) {
    std::vector<TestRow> rows;
    for (int i = 0; i < 40; ++i) {
      rows.push_back({"id-" + std::to_string(k * 40 + i), kDayMicros + k * 1000 + i});
    }
    Flush(*lake, rows, 1 + k * 100);
  }
  WorkPool pool(2);
  MergeSpec spec = SpecFor(*lake, "ledger/date=2026-09-22/app=svc");
  spec.max_rows_loaded = 16 * 400;  // ten Parts' rows ahead at most
  std::string bytes[2];
  uint64_t ahead[2] = {0, 0};
  uint64_t held[2] = {0, 0};
  for (int with_pool = 0; with_pool < 2; ++with_pool) {
    spec.pool = with_pool ? &pool : nullptr;
    auto merged = Merge(*lake, spec, nullptr);
    ASSERT_TRUE(merged.ok()) << merged.status().ToString();
    EXPECT_EQ(merged->counts.rows_out, 4'800u);
    ASSERT_EQ(merged->outputs.size(), 1u);
    bytes[with_pool] = ReadFile(dir / merged->outputs[0].key);
    ahead[with_pool] = merged->decoded_ahead;
    held[with_pool] = merged->peak_rows_held;
    ASSERT_TRUE(lake->Delete(merged->outputs[0].key).ok());  // the second merge writes it anew
  }
  EXPECT_EQ(ahead[0], 0u) << "no pool, nothing ahead";
  EXPECT_GE(ahead[1], 100u) << "most of the 120 Parts were decoded ahead";
  EXPECT_LE(held[1], held[0] + 400) << "at most max_rows_loaded / 16 rows more";
  EXPECT_FALSE(bytes[0].empty());
  EXPECT_TRUE(bytes[0] == bytes[1]) << "the pool changed the output's bytes";
}

TEST(Merge, AFooterWhoseMinimumTimeIsAboveItsRowsDoesNotPutRowsOutOfOrder) {
  // The lazy read trusts a sinkd Part's footer to bound its times; one that does not (here its
  // time minimum raised from +1 to +3 by hand) is caught when its row group is read, and the
  // merge starts again reading every row group at once. Trusting it would put b2 before a1.
  TempDir dir;
  auto lake = DirLake(dir.path());
  Flush(*lake, {{"a1", kDayMicros + 1}, {"a3", kDayMicros + 3}}, 1);
  Flush(*lake, {{"b2", kDayMicros + 2}}, 11);
  auto le = [](int64_t v) {
    std::string b(8, '\0');
    for (int i = 0; i < 8; ++i)
      b[i] = static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xff);
    return b;
  };
  int patched = 0;
  for (const std::string& f : Files(dir.path())) {
    std::string bytes = ReadFile(dir / f);
    ASSERT_GE(bytes.size(), 8u);
    uint32_t footer = 0;
    std::memcpy(&footer, bytes.data() + bytes.size() - 8, 4);
    const size_t begin = bytes.size() - 8 - footer;
    for (size_t at = bytes.find(le(kDayMicros + 1), begin);
         at != std::string::npos && at < bytes.size() - 8;
         at = bytes.find(le(kDayMicros + 1), at + 8)) {
      bytes.replace(at, 8, le(kDayMicros + 3));
      ++patched;
    }
    sinkd::testing::WriteFile(dir / f, bytes);
  }
  ASSERT_GE(patched, 1) << "the footer's time minimum";
  auto merged = Merge(*lake, SpecFor(*lake, "ledger/date=2026-09-22/app=svc"), nullptr);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  ASSERT_EQ(merged->outputs.size(), 1u);
  auto q = DuckDb("SELECT string_agg(event_id, ',' ORDER BY file_row_number) FROM read_parquet(" +
                  SqlQuote((dir / merged->outputs[0].key).string()) + ", file_row_number = true)");
  ASSERT_TRUE(q.ok) << q.error;
  EXPECT_EQ(q.rows[0][0], "a1,b2,a3");
}

TEST(Merge, AMergeInStepsHoldsAtMostItsBoundAndOneOutputRowGroupWhateverTheInputsRowGroups) {
  // Issue 28: the bound counted only the row groups the cursors stand on, but a step also held
  // those its output row group still took rows from and the output row group being encoded; over
  // four tier-1 outputs of full row groups overlapping in time (the second pass over one
  // 2,060,000-row app-day) that was about five 122,880-row row groups at once, 568 MiB. Here four
  // Parts of four 400-row row groups interleave in time, the bound is two of those row groups
  // and the output's row groups are about as large as the inputs'.
  TempDir dir, tmp;
  auto lake = DirLake(dir.path());
  for (int k = 0; k < 4; ++k) {
    std::vector<TestRow> rows;
    for (int i = 0; i < 1'600; ++i) {
      rows.push_back({"id-" + std::to_string(k * 1'600 + i), kDayMicros + i * 4 + k});
    }
    lake::LakeWriterOptions options;
    options.key_prefix = "ledger";
    options.instance = "box-1";
    options.parquet.created_by = "sinkd version 0.0.0 (build test)";
    options.parquet.row_group_rows = 400;
    lake::LakeWriter writer(*lake, options);
    auto batch = LedgerRows(rows);
    const uint64_t first = 1 + k * 10'000;
    ASSERT_TRUE(writer.Flush(batch, {"GARM_LEDGER", first, first + rows.size() - 1}).ok());
  }
  MergeSpec spec = SpecFor(*lake, "ledger/date=2026-09-22/app=svc");
  ASSERT_EQ(spec.inputs.size(), 4u);
  spec.max_rows_loaded = 800;
  spec.parquet.row_group_rows = 300;  // not a multiple of theirs: rows are taken across theirs
  const char* tmpdir = std::getenv("TMPDIR");
  const std::string saved = tmpdir ? tmpdir : "";
  ::setenv("TMPDIR", tmp.path().c_str(), 1);
  auto merged = Merge(*lake, spec, nullptr);
  if (tmpdir) {
    ::setenv("TMPDIR", saved.c_str(), 1);
  } else {
    ::unsetenv("TMPDIR");
  }
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  ASSERT_EQ(merged->kind, MergeOutcome::Kind::kMerged) << merged->why.ToString();
  EXPECT_EQ(merged->counts.rows_out, 6'400u);
  EXPECT_GE(merged->steps, 2u) << "two groups of two Parts, then their scratch Parts";
  EXPECT_LE(merged->peak_rows_loaded, 800u);
  EXPECT_LE(merged->peak_rows_held, 800u + 300u)
      << "the bound and one output row group, not the inputs' row groups the output still "
         "takes rows from";
}

// The 32-bit string offsets (issue 25 §4.3). A real column past 2^31 bytes takes gigabytes of
// memory and minutes a test cannot spend, so these tests lower the limits through MergeSpec's
// seams; the code paths are the ones the real limits take.

// Rows of `n` ids from `first`, each with a tenant of `tenant_bytes` bytes.
TEST(Merge, InputsAllOverlappingInTimeAreMergedInStepsWithinTheRowBoundAndGiveTheSameBytes) {
  // Issue 28: tier-1 outputs overlapping in time made a merge decode one row group of each at
  // once (728 MiB for 11 of them). Here 20 Parts of 100-105 rows interleave in time, so a single
  // step holds all 2,095 rows; with a bound of 250 the merge goes through scratch Parts, and the
  // output is the one a single step writes, byte for byte.
  TempDir dir, tmp;
  auto lake = DirLake(dir.path());
  for (int k = 0; k < 20; ++k) {
    std::vector<TestRow> rows;
    for (int i = 0; i < 100; ++i) {
      rows.push_back({"id-" + std::to_string(k * 100 + i), kDayMicros + i * 20 + k});
    }
    // Copies of the previous Part's first five records, later: the earlier rows are kept.
    for (int i = 0; k > 0 && i < 5; ++i) {
      rows.push_back({"id-" + std::to_string((k - 1) * 100 + i), kDayMicros + i * 20 + k + 1});
    }
    Flush(*lake, rows, 1 + k * 1000);
  }
  const std::string partition = "ledger/date=2026-09-22/app=svc";
  MergeSpec spec = SpecFor(*lake, partition);

  // One step first (no bound): it holds every Part at once. Its output is then removed so that
  // the bounded merge of the same inputs writes the same key again.
  spec.max_rows_loaded = 0;
  auto reference = Merge(*lake, spec, nullptr);
  ASSERT_TRUE(reference.ok()) << reference.status().ToString();
  ASSERT_EQ(reference->outputs.size(), 1u);
  EXPECT_EQ(reference->peak_rows_loaded, 2'095u) << "one step holds every Part at once";
  EXPECT_EQ(reference->steps, 0u);
  const fs::path output = dir / reference->outputs[0].key;
  const std::string one_step = ReadFile(output);
  ASSERT_TRUE(fs::remove(output));

  const char* tmpdir = std::getenv("TMPDIR");
  const std::string saved = tmpdir ? tmpdir : "";
  ::setenv("TMPDIR", tmp.path().c_str(), 1);
  spec.max_rows_loaded = 250;
  auto merged = Merge(*lake, spec, nullptr);
  if (tmpdir) {
    ::setenv("TMPDIR", saved.c_str(), 1);
  } else {
    ::unsetenv("TMPDIR");
  }
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  ASSERT_EQ(merged->kind, MergeOutcome::Kind::kMerged) << merged->why.ToString();
  EXPECT_EQ(merged->counts.rows_in, 2'095u);
  EXPECT_EQ(merged->counts.rows_out, 2'000u);
  EXPECT_LE(merged->peak_rows_loaded, 250u);
  EXPECT_GE(merged->steps, 1u);
  EXPECT_TRUE(fs::is_empty(tmp.path())) << "the scratch directory is removed";
  ASSERT_EQ(merged->outputs.size(), 1u);
  EXPECT_EQ(merged->outputs[0].key, reference->outputs[0].key);
  EXPECT_TRUE(ReadFile(output) == one_step) << "the same bytes as one step";
  auto q = DuckDb(
      "SELECT count(*), count(DISTINCT event_id), bool_and(time >= prev), "
      "bool_and((time - epoch_us(TIMESTAMP '2026-09-22')) = "
      "(CAST(substr(event_id, 4) AS INT) % 100) * 20 + CAST(substr(event_id, 4) AS INT) // 100) "
      "FROM (SELECT event_id, epoch_us(time) AS time, lag(epoch_us(time), 1, epoch_us(time)) "
      "OVER (ORDER BY file_row_number) AS prev FROM read_parquet(" +
      SqlQuote(output.string()) + ", file_row_number = true))");
  ASSERT_TRUE(q.ok) << q.error;
  EXPECT_EQ(q.rows[0], (std::vector<std::string>{"2000", "2000", "true", "true"}))
      << "every record once, in time order, at its earliest time";
}

std::vector<TestRow> LongTenantRows(int first, int n, size_t tenant_bytes) {
  std::vector<TestRow> rows;
  for (int i = first; i < first + n; ++i) {
    rows.push_back({"id" + std::to_string(i), kDayMicros + i, "svc",
                    std::string(tenant_bytes, static_cast<char>('a' + i % 26))});
  }
  return rows;
}

TEST(Merge, AnOutputRowGroupClosesBeforeItsStringsReachTheLimit) {
  TempDir dir;
  auto lake = DirLake(dir.path());
  for (int k = 0; k < 3; ++k) Flush(*lake, LongTenantRows(k * 10, 10, 1000), 1 + k * 10);
  MergeSpec spec = SpecFor(*lake, "ledger/date=2026-09-22/app=svc");
  spec.row_group_string_bytes = 4000;
  auto merged = Merge(*lake, spec, nullptr);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  ASSERT_EQ(merged->outputs.size(), 1u);
  const fs::path output = dir / merged->outputs[0].key;
  auto meta = DuckDb(
      "SELECT count(*), max(num_rows) FROM (SELECT DISTINCT row_group_id, "
      "row_group_num_rows AS num_rows FROM parquet_metadata(" +
      SqlQuote(output.string()) + "))");
  ASSERT_TRUE(meta.ok) << meta.error;
  // A row's strings (every column) hold between 1,334 and 2,000 bytes: a row group closes at its
  // third row, past 4,000 bytes.
  EXPECT_EQ(meta.rows[0][0], "10") << "30 rows in row groups of 3";
  EXPECT_EQ(meta.rows[0][1], "3");
  auto rows = DuckDb(
      "SELECT count(*), count(DISTINCT event_id), sum(length(tenant)), "
      "bool_and(tenant = repeat(chr(97 + (CAST(substr(event_id, 3) AS INT) % 26)),"
      " 1000)) FROM read_parquet(" +
      SqlQuote(output.string()) + ")");
  ASSERT_TRUE(rows.ok) << rows.error;
  EXPECT_EQ(rows.rows[0], (std::vector<std::string>{"30", "30", "30000", "true"}));
}

TEST(Merge, APartReadWholeWithMoreStringBytesInAColumnThanTheLimitIsRefusedNamingIt) {
  TempDir dir;
  auto lake = DirLake(dir.path());
  Flush(*lake, LongTenantRows(100, 2, 10), 1);
  // A Part another writer made (read whole, to be sorted), in row groups of 4 rows: its tenant
  // column holds 20 × 500 bytes in all, no row group more than 2,000.
  const std::string key = "ledger/date=2026-09-22/app=svc/foreign.parquet";
  auto upload = lake->Begin(key);
  ASSERT_TRUE(upload.ok());
  parquet::WriterOptions options = lake::LakePartOptions();
  options.created_by = "DuckDB version v1.1.3 (build 19864453f7)";
  options.row_group_rows = 4;
  row::RowBuffer batch = LedgerRows(LongTenantRows(0, 20, 500));
  parquet::PartWriter writer(partition::FileSchema(row::kLedgerColumns), options, **upload);
  std::vector<uint32_t> all(20);
  std::iota(all.begin(), all.end(), 0u);
  ASSERT_TRUE(writer.WriteRows(partition::FileView(batch), all).ok());
  ASSERT_TRUE(writer.Finish({}).ok());
  ASSERT_TRUE((*upload)->Commit().ok());
  const std::vector<std::string> before = Files(dir.path());

  MergeSpec spec = SpecFor(*lake, "ledger/date=2026-09-22/app=svc");
  spec.whole_read_string_bytes = 9000;
  auto merged = Merge(*lake, spec, nullptr);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_EQ(merged->kind, MergeOutcome::Kind::kRefused);
  EXPECT_EQ(merged->input, key);
  EXPECT_NE(merged->why.message().find("column tenant of partition "
                                       "ledger/date=2026-09-22/app=svc"),
            std::string::npos)
      << merged->why.ToString();
  EXPECT_TRUE(merged->outputs.empty());
  EXPECT_EQ(Files(dir.path()), before) << "nothing written, the inputs stay";

  spec.whole_read_string_bytes = 10000;  // exactly what the column holds: merged
  auto whole = Merge(*lake, spec, nullptr);
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  EXPECT_EQ(whole->kind, MergeOutcome::Kind::kMerged);
  EXPECT_EQ(whole->counts.rows_out, 22u);
}

}  // namespace
}  // namespace sinkd::compact
