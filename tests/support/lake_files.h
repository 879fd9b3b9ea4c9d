// Listing a directory lake in tests: the files under a root whose name ends in a suffix, the one
// copy of what test files each wrote for themselves. Safe beside a running writer: an entry
// renamed or removed between the listing and the look at it (a Part's `.incomplete` placed, an
// input deleted by a compactor) is skipped, never thrown.
#pragma once

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace sinkd::testing {

// The regular files under `root` whose name ends in `suffix`, sorted; none when root is absent.
inline std::vector<std::filesystem::path> LakeFiles(const std::filesystem::path& root,
                                                    std::string_view suffix = ".parquet") {
  std::vector<std::filesystem::path> out;
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(root, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code type_ec;
    if (it->is_regular_file(type_ec) && it->path().filename().string().ends_with(suffix)) {
      out.push_back(it->path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The same files as keys: relative to `root`, '/'-separated.
inline std::set<std::string> LakeKeys(const std::filesystem::path& root,
                                      std::string_view suffix = ".parquet") {
  std::set<std::string> keys;
  for (const std::filesystem::path& p : LakeFiles(root, suffix)) {
    keys.insert(std::filesystem::relative(p, root).generic_string());
  }
  return keys;
}

// The keys of one table's files: those under `root`/`prefix` ("ledger"), still relative to `root`
// ("ledger/date=…/…"), as the lake and its footers name them.
inline std::set<std::string> TableKeys(const std::filesystem::path& root, std::string_view prefix,
                                       std::string_view suffix = ".parquet") {
  std::set<std::string> keys;
  for (const std::filesystem::path& p : LakeFiles(root / prefix, suffix)) {
    keys.insert(std::filesystem::relative(p, root).generic_string());
  }
  return keys;
}

}  // namespace sinkd::testing
