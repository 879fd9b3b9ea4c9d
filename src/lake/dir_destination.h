// DirDestination writes a lake into a directory: each Part is written as
// `<final name>.incomplete` in its final directory, fsync'd, renamed onto its name, and the
// directories that changed are fsync'd in Sync(). The rename is atomic, so a reader globbing
// *.parquet never opens a half-written file, and a crash leaves an `.incomplete` file rather than
// a corrupt Part (`sinkd sweep` removes stale ones).
// Ownership: owns the file descriptors of open uploads. Threads: one thread at a time.
#pragma once

#include <filesystem>
#include <set>
#include <string>

#include "lake/destination.h"

namespace sinkd::lake {

inline constexpr char kIncompleteSuffix[] = ".incomplete";

class DirDestination final : public Destination {
 public:
  // `root` is made absolute once, here. An empty root is refused by Make.
  static Result<std::unique_ptr<DirDestination>> Make(const std::string& root);

  Status Ensure() override;
  std::string Describe() const override;
  Result<std::unique_ptr<PartUpload>> Begin(const std::string& key) override;
  Status Sync() override;

  const std::filesystem::path& root() const { return root_; }

 private:
  explicit DirDestination(std::filesystem::path root) : root_(std::move(root)) {}
  Status MakeParents(const std::filesystem::path& dir);

  std::filesystem::path root_;
  // Directories whose entries changed since the last Sync: each gets one fsync there.
  std::set<std::filesystem::path> dirty_dirs_;
  friend class DirUpload;
};

}  // namespace sinkd::lake
