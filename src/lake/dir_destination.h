// DirDestination writes a lake into a directory: each upload writes a temporary file of its own,
// `<final name>.<16 random hex digits>.incomplete` in its final directory, created exclusively
// (O_EXCL), fsync'd, and moved onto its name with renameat2(RENAME_NOREPLACE) (link + unlink where
// the filesystem lacks it), so a key is never replaced; a taken key is compared byte for byte with
// what we wrote (kSame or kTaken, see lake/destination.h). The temporary name is the upload's own
// because two writers of one key are normal: two compactors doing the same merge (a `--follow`
// service beside a timer, two hosts on one shared file system) meet at the same output key, and
// with one shared temporary name they truncated and interleaved one inode, so a reader could open
// a torn file and the rename could publish a mix of both with a valid footer. The move is atomic,
// so a reader globbing *.parquet never opens a half-written file, and a crash leaves an
// `.incomplete` file rather than a corrupt Part (`sinkd sweep` removes stale ones).
// Durability: Sync() fsyncs every directory whose entries changed, and every directory from a
// Part's up to the root once per process whoever created it (another drain may have made
// `date=…/` a moment ago and crashed before its fsync; our acked Part would sit in it).
// Ownership: owns the file descriptors of open uploads. Threads: one thread at a time per
// destination; the once-per-process record is shared by every DirDestination and locked.
#pragma once

#include <filesystem>
#include <set>
#include <string>
#include <string_view>

#include "lake/destination.h"

namespace sinkd::lake {

inline constexpr char kIncompleteSuffix[] = ".incomplete";
// The random hex digits of an upload's temporary name: 64 bits, drawn again if O_EXCL finds
// the name taken.
inline constexpr size_t kTemporaryTokenDigits = 16;

// "<name>.<token>.incomplete": the temporary file an upload of `name` writes before its rename.
std::string TemporaryName(std::string_view name, std::string_view token);
// Whether a file name is an upload's temporary file that `sinkd sweep` may remove once stale:
// "<name>.<kTemporaryTokenDigits hex digits>.incomplete", or "<name>.parquet.incomplete" (the name
// every upload of a key shared in earlier versions, which a crash of one may have left).
bool IsTemporaryName(std::string_view filename);

class DirDestination final : public Destination {
 public:
  // `root` is made absolute once, here. An empty root is refused by Make.
  static Result<std::unique_ptr<DirDestination>> Make(const std::string& root);

  Status Ensure() override;
  std::string Describe() const override;
  std::string Uri() const override { return "file://" + root_.string(); }
  Result<std::unique_ptr<PartUpload>> Begin(const std::string& key) override;
  Status Sync() override;
  Status Delete(const std::string& key) override;
  Status Replace(const std::string& key, std::string_view bytes) override;
  // stat, compare, unlink: a file re-created between the stat and the unlink is deleted.
  Result<bool> DeleteIfUnchanged(const StoredObject& expected) override;
  Result<std::vector<StoredObject>> List(const std::string& prefix) override;
  Result<std::string> Read(const std::string& key, uint64_t offset, uint64_t length) override;
  // Always OK: renameat2(RENAME_NOREPLACE) and link(2) both refuse an existing name.
  Status CheckExclusiveCreates(const std::string&) override { return Status::OK(); }

  const std::filesystem::path& root() const { return root_; }

 private:
  explicit DirDestination(std::filesystem::path root) : root_(std::move(root)) {}
  Status MakeParents(const std::filesystem::path& dir);

  std::filesystem::path root_;
  // Directories whose entries changed since the last Sync: each gets one fsync there.
  std::set<std::filesystem::path> dirty_dirs_;
  friend class DirUpload;
};

// Whether this process has fsync'd `dir` since it started (any DirDestination): what Sync skips.
bool DirectorySyncedInThisProcess(const std::filesystem::path& dir);

}  // namespace sinkd::lake
