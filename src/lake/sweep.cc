#include "lake/sweep.h"

#include "lake/dir_destination.h"

namespace sinkd::lake {

Result<SweepReport> SweepIncomplete(const std::filesystem::path& root,
                                    std::chrono::seconds older_than,
                                    std::filesystem::file_time_type now, bool dry_run) {
  std::error_code ec;
  if (!std::filesystem::is_directory(root, ec)) {
    return Status::Refuse("sweep: " + root.string() + " is not a directory");
  }
  SweepReport report;
  std::string failures;
  auto it = std::filesystem::recursive_directory_iterator(
      root, std::filesystem::directory_options::skip_permission_denied, ec);
  if (ec) return Status::Refuse("sweep: " + root.string() + ": " + ec.message());
  for (; it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    if (!it->is_regular_file(ec) || !IsTemporaryName(it->path().filename().string())) continue;
    const auto modified = it->last_write_time(ec);
    if (ec) continue;
    if (now - modified < older_than) {
      ++report.kept_young;
      continue;
    }
    if (dry_run) {
      report.removed.push_back(it->path());
    } else if (std::filesystem::remove(it->path(), ec)) {
      report.removed.push_back(it->path());
    } else if (ec) {
      failures += (failures.empty() ? "" : "; ") + it->path().string() + ": " + ec.message();
    }
  }
  if (ec) return Status::Retry("sweep: walking " + root.string() + ": " + ec.message());
  if (!failures.empty()) return Status::Retry("sweep: could not remove " + failures);
  return report;
}

}  // namespace sinkd::lake
