#include "lake/dir_destination.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>

#include "lake/sweep.h"
#include "support/lake_files.h"
#include "support/support.h"

namespace sinkd::lake {
namespace {

namespace fs = std::filesystem;
using sinkd::testing::ReadFile;
using sinkd::testing::TempDir;
using sinkd::testing::WriteFile;

std::span<const uint8_t> Bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// Every file under `root`, temporary ones included, relative, sorted.
std::vector<fs::path> FilesUnder(const fs::path& root) {
  std::vector<fs::path> files;
  for (const fs::path& f : testing::LakeFiles(root, "")) files.push_back(fs::relative(f, root));
  return files;
}

// The temporary files (IsTemporaryName) under `root`, relative.
std::vector<fs::path> TemporaryFiles(const fs::path& root) {
  std::vector<fs::path> temps;
  for (const fs::path& f : FilesUnder(root)) {
    if (IsTemporaryName(f.filename().string())) temps.push_back(f);
  }
  return temps;
}

std::unique_ptr<DirDestination> Make(const fs::path& root) {
  auto dest = DirDestination::Make(root.string());
  EXPECT_TRUE(dest.ok()) << dest.status().ToString();
  return std::move(dest).value();
}

TEST(DirDestination, ALakeDirNeedsAPathAndIsMadeAbsolute) {
  EXPECT_TRUE(DirDestination::Make("").status().IsRefuse());
  auto dest = DirDestination::Make("relative/lake");
  ASSERT_TRUE(dest.ok());
  EXPECT_TRUE((*dest)->root().is_absolute());
  EXPECT_EQ((*dest)->Describe(), "dir " + (*dest)->root().string());
}

// A bad destination must fail at startup, before anything is consumed, not at the first flush.
TEST(DirDestination, EnsureCreatesTheRootAndRefusesOneThatCannotBeADirectory) {
  TempDir tmp;
  auto nested = Make(tmp / "a/b/lake");
  ASSERT_TRUE(nested->Ensure().ok());
  EXPECT_TRUE(fs::is_directory(tmp / "a/b/lake"));
  WriteFile(tmp / "file", "x");
  auto blocked = Make(tmp / "file");
  EXPECT_TRUE(blocked->Ensure().IsRefuse());
}

TEST(DirDestination, ACommittedPartIsAtItsKeyAndNothingElseIsLeft) {
  TempDir tmp;
  auto dest = Make(tmp.path());
  const std::string key = "ledger/date=2026-09-29/app=agentd/part-box-77-1-1-0.parquet";
  auto upload = dest->Begin(key);
  ASSERT_TRUE(upload.ok()) << upload.status().ToString();
  ASSERT_TRUE((*upload)->Append(Bytes("PAR1")).ok());
  std::string big(3 << 20, 'x');  // larger than the write buffer
  ASSERT_TRUE((*upload)->Append(Bytes(big)).ok());
  const std::vector<fs::path> temps = TemporaryFiles(tmp.path());
  ASSERT_EQ(temps.size(), 1u) << "bytes go to a temporary name first";
  EXPECT_EQ(temps[0].parent_path(), fs::path(key).parent_path()) << "in the final directory";
  EXPECT_EQ(temps[0].filename().string().rfind(fs::path(key).filename().string() + ".", 0), 0u)
      << temps[0];
  EXPECT_FALSE(fs::exists(tmp / key)) << "nothing may appear at the key before Commit";
  ASSERT_TRUE((*upload)->Commit().ok());
  ASSERT_TRUE(dest->Sync().ok());
  EXPECT_EQ(FilesUnder(tmp.path()), std::vector<fs::path>{key});
  EXPECT_EQ(ReadFile(tmp / key), "PAR1" + big);
}

// A key is never replaced, not even a read-only file a rename(2) would go over: other bytes at
// the key are kept and Commit says kTaken; the same bytes are kSame. Neither leaves our copy.
TEST(DirDestination, AKeyIsNeverReplacedAndTheSameBytesThereAreSuccess) {
  TempDir tmp;
  auto dest = Make(tmp.path());
  const std::string key = "ledger/date=2026-09-29/app=agentd/part-box-77-1-1-0.parquet";
  WriteFile(tmp / key, "old");
  ASSERT_EQ(chmod((tmp / key).c_str(), 0444), 0);
  auto put = [&](const std::string& bytes) {
    auto upload = dest->Begin(key);
    EXPECT_TRUE(upload.ok());
    EXPECT_TRUE((*upload)->Append(Bytes(bytes)).ok());
    auto placed = (*upload)->Commit();
    EXPECT_TRUE(placed.ok()) << placed.status().ToString();
    return placed.ok() ? *placed : Placed::kNew;
  };
  EXPECT_EQ(put("new"), Placed::kTaken);
  EXPECT_EQ(ReadFile(tmp / key), "old");
  EXPECT_EQ(put("ole"), Placed::kTaken) << "same size, other bytes";
  EXPECT_EQ(put("old"), Placed::kSame);
  ASSERT_TRUE(dest->Sync().ok());
  EXPECT_EQ(ReadFile(tmp / key), "old");
  EXPECT_EQ(FilesUnder(tmp.path()), std::vector<fs::path>{key}) << "no temporary file is left";
}

// The seam compaction will use: List sees complete objects only, Read reads a range, Delete of
// a missing key is success.
TEST(DirDestination, ListReadAndDeleteSeeOnlyCompleteObjects) {
  TempDir tmp;
  auto dest = Make(tmp.path());
  WriteFile(tmp / "ledger/date=2026-09-29/app=a/part-1.parquet", "0123456789");
  WriteFile(tmp / "ledger/date=2026-09-29/app=b/part-2.parquet", "abc");
  WriteFile(tmp / "ledger/date=2026-09-29/app=b/part-3.parquet.incomplete", "half");
  WriteFile(tmp / "audit/date=2026-09-29/part-4.parquet", "x");
  auto all = dest->List("ledger/");
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].key, "ledger/date=2026-09-29/app=a/part-1.parquet");
  EXPECT_EQ((*all)[0].size, 10u);
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  EXPECT_LT(std::abs((*all)[0].modified_unix_ms - now_ms), 120'000) << "mtime read";
  EXPECT_EQ((*all)[1].key, "ledger/date=2026-09-29/app=b/part-2.parquet");
  auto some = dest->List("ledger/date=2026-09-29/app=a");
  ASSERT_TRUE(some.ok());
  EXPECT_EQ(some->size(), 1u);
  EXPECT_EQ(dest->List("")->size(), 3u);
  EXPECT_TRUE(dest->List("nothing/here/")->empty());
  EXPECT_EQ(*dest->Read("ledger/date=2026-09-29/app=a/part-1.parquet", 6, 10), "6789");
  EXPECT_EQ(*dest->Read("ledger/date=2026-09-29/app=a/part-1.parquet", 20, 10), "");
  EXPECT_TRUE(dest->Read("ledger/none.parquet", 0, 1).status().IsNotFound());
  ASSERT_TRUE(dest->Delete("ledger/date=2026-09-29/app=b/part-2.parquet").ok());
  ASSERT_TRUE(dest->Delete("ledger/date=2026-09-29/app=b/part-2.parquet").ok()) << "again";
  ASSERT_TRUE(dest->Sync().ok());
  EXPECT_EQ(dest->List("ledger/")->size(), 1u);
  EXPECT_TRUE(dest->Delete("../outside").IsInternal());
}

// The grace deleter's delete: only the object a listing saw. A key removed and written again
// (the same size even) is another object, a live Part that stays; a gone key is done.
TEST(DirDestination, DeleteIfUnchangedDeletesOnlyTheObjectTheListingSaw) {
  TempDir tmp;
  auto dest = Make(tmp.path());
  const std::string key = "ledger/date=2026-09-29/app=a/part-1.parquet";
  WriteFile(tmp / key, "0123456789");
  auto before = dest->List("ledger/");
  ASSERT_TRUE(before.ok() && before->size() == 1u);
  const StoredObject merged = (*before)[0];
  EXPECT_FALSE(merged.version.empty());
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_TRUE(dest->Delete(key).ok());
  WriteFile(tmp / key, "9876543210");  // re-created: same size, other bytes
  auto kept = dest->DeleteIfUnchanged(merged);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  EXPECT_FALSE(*kept);
  EXPECT_EQ(*dest->Read(key, 0, 10), "9876543210") << "the re-created Part was deleted";
  StoredObject unversioned = (*dest->List("ledger/"))[0];
  unversioned.version.clear();
  EXPECT_FALSE(*dest->DeleteIfUnchanged(unversioned)) << "no version: nothing to compare";
  const StoredObject now = (*dest->List("ledger/"))[0];
  EXPECT_NE(now.version, merged.version);
  EXPECT_TRUE(*dest->DeleteIfUnchanged(now));
  EXPECT_FALSE(fs::exists(tmp / key));
  EXPECT_TRUE(*dest->DeleteIfUnchanged(now)) << "a key already gone is done";
}

TEST(DirDestination, AnAbortedPartLeavesNothingAReaderWouldPickUp) {
  TempDir tmp;
  auto dest = Make(tmp.path());
  auto upload = dest->Begin("ledger/date=2026-09-29/app=a/part-x-1-1-0.parquet");
  ASSERT_TRUE(upload.ok());
  ASSERT_TRUE((*upload)->Append(Bytes("half")).ok());
  (*upload)->Abort();
  EXPECT_TRUE(FilesUnder(tmp.path()).empty());
}

// A file where a partition directory should be makes the flush fail with the key named, and
// leaves no temporary file behind.
TEST(DirDestination, ABlockedPartitionFailsTheFlushAndNamesTheDirectory) {
  TempDir tmp;
  auto dest = Make(tmp.path());
  WriteFile(tmp / "ledger/date=2026-09-29", "not a directory");
  auto upload = dest->Begin("ledger/date=2026-09-29/app=a/part-x-1-1-0.parquet");
  ASSERT_FALSE(upload.ok());
  EXPECT_TRUE(upload.status().IsRedeliver());
  EXPECT_NE(upload.status().message().find("date=2026-09-29"), std::string::npos)
      << upload.status().message();
  EXPECT_EQ(FilesUnder(tmp.path()).size(), 1u);
}

// A process killed mid-write must leave a temporary file, never a truncated Part at a real key
// that a reader's *.parquet glob would open.
TEST(DirDestination, ATornWriteLeavesATemporaryFileAndNotACorruptPart) {
  TempDir tmp;
  const std::string key = "ledger/date=2026-09-29/app=a/part-x-1-1-0.parquet";
  pid_t pid = fork();
  if (pid == 0) {
    auto dest = DirDestination::Make(tmp.path().string());
    auto upload = (*dest)->Begin(key);
    std::string big(4 << 20, 'x');
    (void)(*upload)->Append(Bytes(big));
    _exit(0);  // dies before Commit, like a kill -9 would
  }
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_FALSE(fs::exists(tmp / key));
  EXPECT_EQ(TemporaryFiles(tmp.path()).size(), 1u);
  // …and sweep removes such leftovers once they are old enough, and nothing else.
  WriteFile(tmp / "ledger/keep.parquet", "a real part");
  auto young = SweepIncomplete(tmp.path(), std::chrono::hours(1), fs::file_time_type::clock::now());
  ASSERT_TRUE(young.ok());
  EXPECT_TRUE(young->removed.empty()) << "a young leftover may belong to a live writer";
  EXPECT_EQ(young->kept_young, 1u);
  auto old = SweepIncomplete(tmp.path(), std::chrono::hours(1),
                             fs::file_time_type::clock::now() + std::chrono::hours(2));
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(old->removed.size(), 1u);
  EXPECT_EQ(FilesUnder(tmp.path()), std::vector<fs::path>{"ledger/keep.parquet"});
}

// Two writers of one key at once (two compactors doing the same merge) write files of their own:
// neither truncates nor overwrites the other's bytes, the first Commit places its bytes whole and
// the second finds other bytes in place (kTaken) and leaves nothing behind. With one shared
// temporary name the second Begin truncated the first's file and both wrote into one inode.
TEST(DirDestination, TwoUploadsOfOneKeyAtOnceWriteFilesOfTheirOwn) {
  TempDir tmp;
  auto a = Make(tmp.path());
  auto b = Make(tmp.path());
  const std::string key = "ledger/date=2026-09-29/app=a/compact-0123.parquet";
  const std::string bytes_a(3 << 20, 'a'), bytes_b(1 << 20, 'b');  // a is past the write buffer
  auto first = a->Begin(key);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_TRUE((*first)->Append(Bytes(bytes_a.substr(0, 2 << 20))).ok());
  auto second = b->Begin(key);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(TemporaryFiles(tmp.path()).size(), 2u) << "one temporary file per upload";
  ASSERT_TRUE((*second)->Append(Bytes(bytes_b)).ok());
  ASSERT_TRUE((*first)->Append(Bytes(bytes_a.substr(2 << 20))).ok());
  auto placed_a = (*first)->Commit();
  ASSERT_TRUE(placed_a.ok()) << placed_a.status().ToString();
  EXPECT_EQ(*placed_a, Placed::kNew);
  auto placed_b = (*second)->Commit();
  ASSERT_TRUE(placed_b.ok()) << placed_b.status().ToString();
  EXPECT_EQ(*placed_b, Placed::kTaken);
  ASSERT_TRUE(a->Sync().ok());
  EXPECT_TRUE(ReadFile(tmp / key) == bytes_a) << "the Part in place is exactly the first's bytes";
  EXPECT_EQ(FilesUnder(tmp.path()), std::vector<fs::path>{key}) << "no temporary file is left";
}

// An upload that dies between Begin and Commit leaves its own temporary file; another upload of
// the key aborted later removes only its own, never the dead one's (sweep's job, once stale) nor
// a live one's.
TEST(DirDestination, AnAbortRemovesOnlyItsOwnTemporaryFile) {
  TempDir tmp;
  auto dest = Make(tmp.path());
  const std::string key = "ledger/date=2026-09-29/app=a/compact-0123.parquet";
  auto live = dest->Begin(key);
  ASSERT_TRUE(live.ok());
  ASSERT_TRUE((*live)->Append(Bytes("live")).ok());
  auto aborted = dest->Begin(key);
  ASSERT_TRUE(aborted.ok());
  (*aborted)->Abort();
  ASSERT_EQ(TemporaryFiles(tmp.path()).size(), 1u);
  auto placed = (*live)->Commit();
  ASSERT_TRUE(placed.ok()) << placed.status().ToString();
  EXPECT_EQ(*placed, Placed::kNew);
  EXPECT_EQ(ReadFile(tmp / key), "live");
}

// Sweep removes what an upload's temporary file can be called (its own name, or the shared
// `.parquet.incomplete` name earlier versions wrote), once stale, and nothing else.
TEST(DirDestination, SweepRemovesStaleTemporaryFilesOnly) {
  TempDir tmp;
  const std::string dir = "ledger/date=2026-09-29/app=a/";
  const std::vector<std::string> temporary = {
      dir + "part-x-1-1-0.parquet.0123456789abcdef.incomplete",
      dir + "dead-x-1-2.jsonl.fedcba9876543210.incomplete",
      dir + "part-x-2-2-0.parquet.incomplete",
  };
  const std::vector<std::string> kept = {
      dir + "part-x-3-3-0.parquet",
      dir + "notes.incomplete",
      dir + "part-x-4-4-0.parquet.0123456789ABCDEF.incomplete",  // not our token's digits
      dir + "part-x-5-5-0.parquet.0123456789abcde.incomplete",   // one digit short
      dir + "part-x-6-6-0.parquet.incomplete.bak",
  };
  for (const std::string& f : temporary) WriteFile(tmp / f, "half");
  for (const std::string& f : kept) WriteFile(tmp / f, "keep");
  for (const std::string& f : temporary)
    EXPECT_TRUE(IsTemporaryName(fs::path(f).filename().string())) << f;
  auto young = SweepIncomplete(tmp.path(), std::chrono::hours(1), fs::file_time_type::clock::now());
  ASSERT_TRUE(young.ok());
  EXPECT_TRUE(young->removed.empty());
  EXPECT_EQ(young->kept_young, temporary.size());
  auto old = SweepIncomplete(tmp.path(), std::chrono::hours(1),
                             fs::file_time_type::clock::now() + std::chrono::hours(2));
  ASSERT_TRUE(old.ok());
  EXPECT_EQ(old->removed.size(), temporary.size());
  std::vector<fs::path> expected(kept.begin(), kept.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(FilesUnder(tmp.path()), expected);
}

}  // namespace
}  // namespace sinkd::lake
