// LakeWriter's placement: never a key replaced, the same bytes in place are success, other bytes
// go beside them, and a failed flush takes back the Parts it placed — on a real full disk too.
#include "lake/lake_writer.h"

#include <gtest/gtest.h>
#include <malloc.h>
#include <sys/mount.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <thread>

#include "partition/partitioner.h"
#include "lake/dir_destination.h"
#include "support/lake_files.h"
#include "support/ledger_rows.h"
#include "support/support.h"
#include "support/wrapped_destination.h"
#include "table/commit.h"

namespace sinkd::lake {
namespace {

namespace fs = std::filesystem;
using sinkd::testing::DuckDb;
using sinkd::testing::SqlQuote;
using sinkd::testing::TempDir;
using sinkd::testing::WriteFile;

LakeWriterOptions Options(const std::string& instance = "box-77") {
  LakeWriterOptions o;
  o.key_prefix = "ledger";
  o.instance = instance;
  o.parquet.created_by = "sinkd test";
  return o;
}

// rows in the lake, distinct event ids
std::pair<int64_t, int64_t> Count(const fs::path& root) {
  auto r = DuckDb("SELECT count(*), count(DISTINCT event_id) FROM read_parquet(" +
                  SqlQuote((root / "ledger/**/*.parquet").string()) + ")");
  EXPECT_TRUE(r.ok) << r.error;
  if (!r.ok || r.rows.empty()) return {-1, -1};
  return {std::stoll(r.rows[0][0]), std::stoll(r.rows[0][1])};
}

std::unique_ptr<DirDestination> Dir(const fs::path& root) {
  auto made = DirDestination::Make(root.string());
  EXPECT_TRUE(made.ok());
  EXPECT_TRUE((*made)->Ensure().ok());
  return std::move(made).value();
}

// The premise of every redelivery: it must never put a second copy of a Part's rows in the lake.
// A flush that fails at its last Part has placed the others; they are deleted before it returns.
TEST(LakeWriter, AFailedFlushRemovesThePartsItHadPlacedBeforeItReturns) {
  row::RowBuffer rows = testing::GeneratedLedgerRows(3, 10);
  TempDir scratch;
  auto probe_dest = Dir(scratch.path());
  auto probe = LakeWriter(*probe_dest, Options()).Flush(rows, {"GARM_LEDGER", 1, 10});
  ASSERT_TRUE(probe.ok());
  ASSERT_GE(probe->parts.size(), 3u) << "the premise: a flush of several Parts";

  // The last Part's partition directory cannot be made: a file holds its name.
  TempDir tmp;
  auto dest = Dir(tmp.path());
  WriteFile(tmp / fs::path(probe->parts.back().key).parent_path(), "in the way");
  auto failed = LakeWriter(*dest, Options()).Flush(rows, {"GARM_LEDGER", 1, 10});
  ASSERT_FALSE(failed.ok());
  EXPECT_TRUE(failed.status().IsRedeliver()) << failed.status().ToString();
  EXPECT_NE(failed.status().message().find(
                "removed " + std::to_string(probe->parts.size() - 1) + " of the " +
                std::to_string(probe->parts.size() - 1) + " Parts this flush had placed"),
            std::string::npos)
      << failed.status().message();
  EXPECT_TRUE(testing::LakeKeys(tmp.path()).empty()) << "no Part of a failed flush may stay";
}

// A batch flushed again (its acks were lost; the same rows, the same range) finds its Parts in
// place: nothing is written, nothing is copied, and the flush succeeds.
TEST(LakeWriter, ABatchFlushedAgainFindsItsPartsInPlaceAndWritesNothing) {
  TempDir tmp;
  auto dest = Dir(tmp.path());
  row::RowBuffer rows = testing::GeneratedLedgerRows(4, 6);
  LakeWriter writer(*dest, Options());
  auto first = writer.Flush(rows, {"GARM_LEDGER", 1, 6});
  ASSERT_TRUE(first.ok());
  const auto keys = testing::LakeKeys(tmp.path());
  auto again = writer.Flush(rows, {"GARM_LEDGER", 1, 6});
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  for (const PartReport& p : again->parts) EXPECT_TRUE(p.found_in_place) << p.key;
  EXPECT_EQ(testing::LakeKeys(tmp.path()), keys);
  EXPECT_EQ(Count(tmp.path()), std::make_pair(int64_t(rows.rows()), int64_t(rows.rows())));
}

// A fixed instance flushing a range whose rows are now different (an outbox batch read again
// after a bisection, a restarted import with other input) must not replace the Part in place:
// its rows may be acknowledged. The new Part goes under the key's next alternative.
TEST(LakeWriter, AKeyHoldingOtherBytesIsKeptAndTheNewPartGoesUnderTheNextAlternative) {
  TempDir tmp;
  auto dest = Dir(tmp.path());
  row::RowBuffer a = testing::GeneratedLedgerRows(5, 4);
  row::RowBuffer b = testing::GeneratedLedgerRows(6, 4);
  LakeWriter writer(*dest, Options());
  auto first = writer.Flush(a, {"GARM_LEDGER", 1, 4});
  ASSERT_TRUE(first.ok());
  auto second = writer.Flush(b, {"GARM_LEDGER", 1, 4});
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  std::set<std::string> first_keys;
  for (const PartReport& p : first->parts) first_keys.insert(p.key);
  size_t moved = 0;
  for (const PartReport& p : second->parts) {
    if (p.key.find("part-box-77.1-1-4-") != std::string::npos) ++moved;
    EXPECT_EQ(first_keys.count(p.key), 0u) << p.key << " was written over";
  }
  EXPECT_GT(moved, 0u) << "the premise: the two flushes share partitions";
  const int64_t total = static_cast<int64_t>(a.rows() + b.rows());
  EXPECT_EQ(Count(tmp.path()), std::make_pair(total, total)) << "every row of both flushes";
}

// Status AppendText(PartUpload&, text) for the Place tests: the object's bytes are the text.
Status AppendText(PartUpload& upload, const std::string& text) {
  return upload.Append(std::span(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

// A compaction output's key taken by other bytes is an answer, not a failure: Place says kTaken,
// never asks for an alternative name, and leaves the other bytes and nothing else beside them.
TEST(LakePlace, AKeyTakenByOtherBytesIsReportedAndNoAlternativeIsTriedWhenAskedToReport) {
  TempDir tmp;
  auto dest = Dir(tmp.path());
  auto key_for = [](uint32_t alternative) {
    return "out/o-" + std::to_string(alternative) + ".parquet";
  };
  auto first = Place(*dest, key_for, [](PartUpload& u) { return AppendText(u, "theirs"); },
                     WhenTaken::kReport);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->placed, Placed::kNew);
  std::vector<uint32_t> asked;
  auto second = Place(
      *dest,
      [&](uint32_t alternative) {
        asked.push_back(alternative);
        return key_for(alternative);
      },
      [](PartUpload& u) { return AppendText(u, "ours"); }, WhenTaken::kReport);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(second->placed, Placed::kTaken);
  EXPECT_EQ(second->key, "out/o-0.parquet");
  EXPECT_EQ(asked, std::vector<uint32_t>{0});
  EXPECT_EQ(sinkd::testing::ReadFile(tmp.path() / "out/o-0.parquet"), "theirs");
  EXPECT_FALSE(fs::exists(tmp.path() / "out/o-1.parquet"));

  // The default, a flush's, goes on to the next name.
  auto third = Place(*dest, key_for, [](PartUpload& u) { return AppendText(u, "ours"); });
  ASSERT_TRUE(third.ok()) << third.status().ToString();
  EXPECT_EQ(third->placed, Placed::kNew);
  EXPECT_EQ(third->key, "out/o-1.parquet");
}

// What a drain does under a full disk: each flush fails and its batch comes back, often with
// other boundaries (so other keys). Parts that still fit must not accumulate one copy per retry.
// The disk is a real tmpfs, filled by a ballast file for SINKD_FULL_DISK_SECONDS (default 2;
// RELIABILITY.md's figure uses 60) and five failed flushes, retried every 100 ms.
TEST(LakeWriter, RetriesThroughAFullDiskLeaveAtMostFivePercentExtraRows) {
  TempDir tmp;
  const fs::path mount = tmp / "disk";
  fs::create_directories(mount);
  ASSERT_EQ(::mount("tmpfs", mount.c_str(), "tmpfs", 0, "size=16m"), 0)
      << "tests run as root here: " << std::strerror(errno);
  struct Unmount {
    fs::path path;
    ~Unmount() { ::umount2(path.c_str(), MNT_DETACH); }
  } unmount{mount};
  const fs::path root = mount / "lake";
  auto dest = Dir(root);
  LakeWriter writer(*dest, Options());

  const char* env = std::getenv("SINKD_FULL_DISK_SECONDS");
  const auto full_for = std::chrono::seconds(env ? std::atoi(env) : 2);
  int64_t expected = 0;
  uint64_t next_sequence = 1;
  int failures = 0;
  int batch = 0;
  // Batches until the disk has been full for full_for and five more flushes went through.
  std::optional<std::chrono::steady_clock::time_point> filled;
  int after = 0;
  while (after < 5) {
    ASSERT_LT(batch, 2'000) << "the premise: flushes fail on the full disk (the ballast leaves "
                               "only after five failures)";
    row::RowBuffer rows = testing::GeneratedLedgerRows(100 + batch, 8);
    if (batch == 3 && !filled) {
      // Leave ~150 KiB: a flush's first Parts fit, its later ones do not.
      const auto space = fs::space(mount);
      const uintmax_t ballast = space.available - 150 * 1024;
      std::string chunk(1 << 20, 'b');
      std::FILE* f = std::fopen((mount / "ballast").c_str(), "w");
      ASSERT_NE(f, nullptr);
      for (uintmax_t done = 0; done < ballast;) {
        const size_t n = std::min<uintmax_t>(chunk.size(), ballast - done);
        done += std::fwrite(chunk.data(), 1, n, f);
        if (n == 0 || std::ferror(f)) break;
      }
      std::fclose(f);
      filled = std::chrono::steady_clock::now();
    }
    // Retried until it lands; each attempt is a redelivery with new boundaries.
    for (int attempt = 0;; ++attempt) {
      ASSERT_LT(attempt, 10'000);
      // The disk stays full for full_for AND five failed flushes: under a sanitizer on a loaded
      // machine one flush can take most of a second, and the premise needs several failures.
      if (filled && fs::exists(mount / "ballast") && failures >= 5 &&
          std::chrono::steady_clock::now() - *filled >= full_for) {
        fs::remove(mount / "ballast");
      }
      const uint64_t first = next_sequence;
      next_sequence += 8;
      auto flushed = writer.Flush(rows, {"GARM_LEDGER", first, first + 7});
      if (flushed.ok()) break;
      ++failures;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    expected += static_cast<int64_t>(rows.rows());
    ++batch;
    if (filled && !fs::exists(mount / "ballast")) ++after;
  }
  EXPECT_GE(failures, 5) << "the premise: flushes failed on the full disk";
  const auto [rows, distinct] = Count(root);
  EXPECT_EQ(distinct, expected) << "every row is in the lake";
  const double ratio = static_cast<double>(rows) / static_cast<double>(expected);
  std::printf("full disk for %llds: %d failed flushes, %lld rows for %lld expected: %.4f rows "
              "per expected row\n",
              static_cast<long long>(full_for.count()), failures, static_cast<long long>(rows),
              static_cast<long long>(expected), ratio);
  EXPECT_LE(ratio, 1.05);
}

// Every Part's key and bytes, read back from a lake directory.
std::map<std::string, std::string> Contents(const fs::path& root) {
  std::map<std::string, std::string> out;
  for (const std::string& key : testing::LakeKeys(root)) {
    std::ifstream in(root / key, std::ios::binary);
    out[key] = std::string(std::istreambuf_iterator<char>(in), {});
  }
  return out;
}

// A flush puts each Part's rows together in the batch before encoding (lake_writer.h), so that
// every Part reads its values in order. The batch it leaves holds the same rows in Part order,
// and the Parts are those of the same rows given in that order: arrival order never shows.
TEST(LakeWriter, AFlushLeavesItsBatchInPartOrderAndItsPartsAreThoseOfThatOrder) {
  row::RowBuffer rows = testing::GeneratedLedgerRows(9, 6);
  const std::vector<partition::Partition> before = partition::PartitionRows(rows);
  ASSERT_GE(before.size(), 3u) << "the premise: several Parts";
  bool interleaved = false;
  for (const partition::Partition& p : before) {
    for (size_t k = 1; k < p.rows.size(); ++k) interleaved |= p.rows[k] != p.rows[k - 1] + 1;
  }
  ASSERT_TRUE(interleaved) << "the premise: the Parts' rows arrive interleaved";
  TempDir arrival;
  auto dest = Dir(arrival.path());
  auto flushed = LakeWriter(*dest, Options()).Flush(rows, {"GARM_LEDGER", 1, 6});
  ASSERT_TRUE(flushed.ok()) << flushed.status().ToString();

  uint32_t next = 0;
  const std::vector<partition::Partition> after = partition::PartitionRows(rows);
  ASSERT_EQ(after.size(), before.size());
  for (const partition::Partition& p : after) {
    for (uint32_t r : p.rows) EXPECT_EQ(r, next++) << "each Part's rows are one run, in order";
  }
  EXPECT_EQ(next, rows.rows());

  row::RowBuffer ordered = rows;  // already in Part order: the flush's reorder changes nothing
  TempDir part_order;
  auto dest2 = Dir(part_order.path());
  ASSERT_TRUE(LakeWriter(*dest2, Options()).Flush(ordered, {"GARM_LEDGER", 1, 6}).ok());
  EXPECT_EQ(Contents(part_order.path()), Contents(arrival.path()));
}

// --encode-threads must never show in the lake: the same batch flushed at 1, 2 and 4 encode
// threads gives the same keys holding the same bytes, both when every Part is encoded ahead on
// the pool (one row group each) and when each Part is several row groups streamed into its
// upload with its column chunks encoded on the pool.
TEST(LakeWriter, APartsBytesAreTheSameAtOneTwoAndFourEncodeThreads) {
  for (size_t row_group_rows : {size_t{122'880}, size_t{64}}) {
    std::map<std::string, std::string> one_thread;
    for (size_t threads : {1, 2, 4}) {
      row::RowBuffer rows =
          testing::GeneratedLedgerRows(8, 12);  // in arrival order each time: a flush reorders it
      TempDir tmp;
      auto dest = Dir(tmp.path());
      LakeWriterOptions options = Options();
      options.encode_threads = threads;
      options.parquet.row_group_rows = row_group_rows;
      auto flushed = LakeWriter(*dest, options).Flush(rows, {"GARM_LEDGER", 1, 12});
      ASSERT_TRUE(flushed.ok()) << flushed.status().ToString();
      ASSERT_GE(flushed->parts.size(), 3u) << "the premise: a flush of several Parts";
      const auto contents = Contents(tmp.path());
      if (threads == 1) {
        one_thread = contents;
        if (row_group_rows == 64) {
          EXPECT_GT(flushed->parts.front().rows, 64u) << "the premise: Parts of several row groups";
        }
        continue;
      }
      ASSERT_EQ(contents.size(), one_thread.size()) << threads << " threads";
      for (const auto& [key, bytes] : one_thread) {
        ASSERT_TRUE(contents.count(key)) << key << " missing at " << threads << " threads";
        EXPECT_TRUE(contents.at(key) == bytes)
            << key << " differs at " << threads << " threads, row groups of " << row_group_rows;
      }
    }
  }
}

// A directory lake that notes the calling thread's heap in use (the main arena: one encode
// thread) as each Part begins its upload.
class HeapAtBegin : public sinkd::testing::WrappedDestination {
 public:
  using WrappedDestination::WrappedDestination;
  std::vector<size_t> heap;
  Result<std::unique_ptr<PartUpload>> Begin(const std::string& key) override {
    heap.push_back(mallinfo2().uordblks);
    return WrappedDestination::Begin(key);
  }
};

// Parts encoded ahead wait in memory only until placed: by the last Part's upload, the bytes of
// every Part before it went back (they once stayed to the end of the flush: a string assigned
// an empty one keeps its capacity, and 200 small Parts held 27 MB).
TEST(LakeWriter, APlacedPartsBytesAreFreedBeforeTheNextPartIsPlaced) {
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
  // The sanitizers bring their own allocator, which glibc's mallinfo2 does not see (it reads 0).
  GTEST_SKIP() << "heap in use is glibc's mallinfo2, which a sanitizer's allocator bypasses";
#endif
  row::RowBuffer rows = testing::GeneratedLedgerRows(21, 300);
  TempDir tmp;
  auto dir = Dir(tmp.path());
  HeapAtBegin dest(*dir);
  LakeWriterOptions options = Options();
  options.encode_threads = 1;
  auto flushed = LakeWriter(dest, options).Flush(rows, {"GARM_LEDGER", 1, 300});
  ASSERT_TRUE(flushed.ok()) << flushed.status().ToString();
  ASSERT_GE(flushed->parts.size(), 5u) << "the premise: a flush of several Parts";
  ASSERT_EQ(dest.heap.size(), flushed->parts.size());
  uint64_t before_last = 0;
  for (size_t n = 0; n + 1 < flushed->parts.size(); ++n) before_last += flushed->parts[n].bytes;
  ASSERT_GT(before_last, 1u << 20) << "the premise: Parts worth measuring";
  ASSERT_GT(dest.heap.front(), dest.heap.back());
  EXPECT_GE(dest.heap.front() - dest.heap.back(), before_last / 2)
      << "heap at the first Part's upload " << dest.heap.front() << ", at the last "
      << dest.heap.back() << ", bytes of the Parts before the last " << before_last;
}

// The failed-flush cleanup under parallel encode: the Parts were encoded on four threads, yet
// the flush removes exactly the ones it placed itself — one an earlier attempt placed stays — and
// keeps the failure's kind: Redeliver for a placement failure, Reject for rows no reader takes.
TEST(LakeWriter, AFailedFlushUnderParallelEncodeRemovesOnlyItsOwnPartsAndKeepsTheFailuresKind) {
  LakeWriterOptions options = Options();
  options.encode_threads = 4;
  row::RowBuffer rows = testing::GeneratedLedgerRows(3, 10);
  TempDir scratch;
  auto probe_dest = Dir(scratch.path());
  auto probe = LakeWriter(*probe_dest, options).Flush(rows, {"GARM_LEDGER", 1, 10});
  ASSERT_TRUE(probe.ok());
  ASSERT_GE(probe->parts.size(), 3u) << "the premise: a flush of several Parts";

  TempDir tmp;
  auto dest = Dir(tmp.path());
  // Its first Part is in place already (an earlier attempt landed it; its rows may be acked).
  const std::string first = probe->parts.front().key;
  fs::create_directories((tmp / first).parent_path());
  fs::copy_file(scratch / first, tmp / first);
  const auto before = testing::LakeKeys(tmp.path());
  WriteFile(tmp / fs::path(probe->parts.back().key).parent_path(), "in the way");
  auto failed = LakeWriter(*dest, options).Flush(rows, {"GARM_LEDGER", 1, 10});
  ASSERT_FALSE(failed.ok());
  EXPECT_TRUE(failed.status().IsRedeliver()) << failed.status().ToString();
  EXPECT_NE(failed.status().message().find(
                "removed " + std::to_string(probe->parts.size() - 2) + " of the " +
                std::to_string(probe->parts.size() - 2) + " Parts this flush had placed"),
            std::string::npos)
      << failed.status().message();
  EXPECT_EQ(testing::LakeKeys(tmp.path()), before)
      << "the Part found in place stays, the flush's own go";

  // One event id that is not UTF-8, in a Part encoded ahead while others were placed.
  row::RowBuffer bad = testing::GeneratedLedgerRows(3, 10);
  row::StringBuffer& ids = bad.column(bad.table().id_column).strings;
  ids.bytes[ids.offsets[bad.rows() / 2]] = '\xFF';
  TempDir tmp2;
  auto dest2 = Dir(tmp2.path());
  auto rejected = LakeWriter(*dest2, options).Flush(bad, {"GARM_LEDGER", 1, 10});
  ASSERT_FALSE(rejected.ok());
  EXPECT_TRUE(rejected.status().IsReject()) << rejected.status().ToString();
  EXPECT_NE(rejected.status().message().find("not valid UTF-8"), std::string::npos)
      << rejected.status().message();
  EXPECT_TRUE(testing::LakeKeys(tmp2.path()).empty()) << "no Part of a failed flush may stay";
}

// The commit step (table/commit.h) as the writer runs it: what it is handed, when, and what its
// failure does. RecordingCommit is sinkd's own interface implemented by the test, as an `iceberg`
// commit will implement it; it fails on demand and checks, as it is called, that every Part it
// is handed is in the lake already.
class RecordingCommit final : public table::Commit {
 public:
  explicit RecordingCommit(fs::path root) : root_(std::move(root)) {}
  std::string_view format() const override { return "recording"; }
  Result<std::vector<table::SequenceRange>> Committed(std::string_view,
                                                      const table::Provenance&) override {
    return std::vector<table::SequenceRange>{};
  }
  Status Apply(const table::CommitRequest& request) override {
    ++calls;
    table = std::string(request.table);
    positions = request.positions;
    placed = request.placed;
    for (const table::PartReport& part : request.placed.parts) {
      if (!fs::exists(root_ / part.key)) absent_when_committed.push_back(part.key);
    }
    return fail;
  }
  Status fail;
  int calls = 0;
  std::string table;
  table::Provenance positions;
  table::FlushReport placed;
  std::vector<std::string> absent_when_committed;

 private:
  fs::path root_;
};

// An `iceberg` commit builds its manifest entries from what it is handed, never by reading a
// Part: every Part, placed before the call, with its key, size, partition and footer statistics,
// and the positions the flush acknowledges.
TEST(LakeWriterCommit, TheCommitIsHandedEveryPlacedPartWithItsStatisticsAndThePositions) {
  TempDir tmp;
  auto dest = Dir(tmp.path());
  RecordingCommit commit(tmp.path());
  row::RowBuffer rows = testing::GeneratedLedgerRows(5, 6);
  Provenance provenance{"GARM_LEDGER", 3, 9};
  provenance.acknowledged = {{3, 5}, {7, 9}};
  auto flushed = LakeWriter(*dest, Options(), commit).Flush(rows, provenance);
  ASSERT_TRUE(flushed.ok()) << flushed.status().ToString();
  ASSERT_EQ(commit.calls, 1);
  EXPECT_EQ(commit.table, "ledger");
  EXPECT_TRUE(commit.absent_when_committed.empty()) << "committed before it was placed: "
                                                    << commit.absent_when_committed[0];
  EXPECT_EQ(commit.positions.source, "GARM_LEDGER");
  EXPECT_EQ(commit.positions.acknowledged, provenance.acknowledged);
  ASSERT_GE(commit.placed.parts.size(), 2u) << "the premise: a flush of several Parts";
  ASSERT_EQ(commit.placed.parts.size(), flushed->parts.size());
  EXPECT_EQ(commit.placed.rows, rows.rows());
  for (size_t i = 0; i < flushed->parts.size(); ++i) {
    const table::PartReport& part = commit.placed.parts[i];
    EXPECT_EQ(part.key, flushed->parts[i].key);
    EXPECT_EQ(part.bytes, fs::file_size(tmp / part.key)) << part.key;
    EXPECT_EQ(part.statistics.rows, part.rows) << part.key;
    EXPECT_FALSE(part.statistics.columns.empty()) << part.key;
    EXPECT_NE(part.key.find("date=" + part.date + "/"), std::string::npos) << part.key;
  }
}

// A commit that fails is a failed flush: nothing may be acknowledged, and the Parts this flush
// placed are taken back as for any other failure; a Part found in place (an earlier attempt's,
// which may hold acknowledged rows) stays. The failure is a redelivery, never a Reject (an outbox
// sink would dead-letter events for it) and an Internal stays a bug.
TEST(LakeWriterCommit, AFailedCommitFailsTheFlushAndRemovesOnlyThePartsItPlaced) {
  TempDir tmp;
  auto dest = Dir(tmp.path());
  RecordingCommit commit(tmp.path());
  commit.fail = Status::Reject("the table refused");
  row::RowBuffer rows = testing::GeneratedLedgerRows(6, 6);
  auto failed = LakeWriter(*dest, Options(), commit).Flush(rows, {"GARM_LEDGER", 1, 6});
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(commit.calls, 1);
  EXPECT_TRUE(failed.status().IsRedeliver()) << failed.status().ToString();
  EXPECT_NE(failed.status().message().find("commit to table ledger (recording)"),
            std::string::npos)
      << failed.status().message();
  EXPECT_TRUE(testing::LakeKeys(tmp.path()).empty())
      << "no Part of a flush whose commit failed may stay";

  auto landed = LakeWriter(*dest, Options()).Flush(rows, {"GARM_LEDGER", 1, 6});
  ASSERT_TRUE(landed.ok()) << landed.status().ToString();
  const auto keys = testing::LakeKeys(tmp.path());
  commit.fail = Status::Internal("a bug in the commit");
  auto again = LakeWriter(*dest, Options(), commit).Flush(rows, {"GARM_LEDGER", 1, 6});
  ASSERT_FALSE(again.ok());
  EXPECT_TRUE(again.status().IsInternal()) << again.status().ToString();
  EXPECT_EQ(testing::LakeKeys(tmp.path()), keys) << "Parts found in place are never taken back";
}

// `none` is today's lake: it holds nothing committed and records every flush as it is.
TEST(LakeWriterCommit, TheDefaultCommitIsNoneWhichHoldsNothingAndNeverFails) {
  TempDir tmp;
  auto dest = Dir(tmp.path());
  LakeWriter writer(*dest, Options());
  EXPECT_EQ(writer.commit().format(), "none");
  row::RowBuffer rows = testing::GeneratedLedgerRows(7, 2);
  auto flushed = writer.Flush(rows, {"GARM_LEDGER", 1, 2});
  ASSERT_TRUE(flushed.ok()) << flushed.status().ToString();
  auto committed = writer.commit().Committed("ledger", {"GARM_LEDGER", 1, 2});
  ASSERT_TRUE(committed.ok());
  EXPECT_TRUE(committed->empty());
}

TEST(LakeWriterOptions, ValidateRefusesWhatCannotBeAKeyOrAPartNamingTheOption) {
  EXPECT_TRUE(Options().Validate().ok());
  auto refused = [](LakeWriterOptions o, const std::string& needle) {
    Status s = o.Validate();
    EXPECT_TRUE(s.IsRefuse()) << needle;
    EXPECT_NE(s.message().find(needle), std::string::npos) << s.message();
  };
  LakeWriterOptions o = Options();
  o.key_prefix = "ledger/../up";
  refused(o, "key_prefix \"ledger/../up\"");
  o = Options();
  o.key_prefix = "";
  refused(o, "key_prefix \"\"");
  o = Options("a/b");
  refused(o, "instance \"a/b\"");
  o = Options("..");
  refused(o, "instance \"..\"");
  o = Options();
  o.parquet.zstd_level = 20;
  refused(o, "zstd_level 20");
  o = Options();
  o.parquet.row_group_rows = 0;
  refused(o, "row_group_rows 0");
  o = Options();
  o.encode_threads = 0;
  refused(o, "encode_threads 0: must be between 1 and 256");
  o.encode_threads = 257;
  refused(o, "encode_threads 257");
}

}  // namespace
}  // namespace sinkd::lake
