// Sweeping removes the temporary files (`<name>.<token>.incomplete`, lake/dir_destination.h) a
// crash left in a directory lake. Only files older than a threshold go: a younger one may belong
// to a drain or compactor that is writing it right now (its writes keep its mtime fresh).
// Threads: one thread at a time. Never touches a file whose name is not a temporary file's
// (IsTemporaryName).
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "base/result.h"

namespace sinkd::lake {

struct SweepReport {
  std::vector<std::filesystem::path> removed;  // with dry_run: what would have been removed
  size_t kept_young = 0;  // leftovers younger than the threshold, left alone
};

// Removes every temporary file under `root` last modified before `now - older_than`; with
// `dry_run`, removes nothing and reports the same files (`sinkd sweep --dry-run`).
// Fails (Refuse) when root is not a readable directory; a file that cannot be removed is an error
// naming it, after the others were tried.
Result<SweepReport> SweepIncomplete(const std::filesystem::path& root,
                                    std::chrono::seconds older_than,
                                    std::filesystem::file_time_type now, bool dry_run = false);

}  // namespace sinkd::lake
