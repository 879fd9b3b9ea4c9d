// The operator's guide (README.md) and the design notes (docs/design.md) point into each other
// by file and heading; an operator who follows a link to a heading that was renamed or moved lands
// nowhere. These tests read the documents as a Markdown viewer would.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "support/support.h"

namespace sinkd::testing {
namespace {

namespace fs = std::filesystem;

// The documents whose links and lines are checked: what an operator reads, and what it links.
std::vector<fs::path> Documents() {
  std::vector<fs::path> documents = {SourceDir() / "README.md"};
  for (const auto& entry : fs::directory_iterator(SourceDir() / "docs")) {
    if (entry.path().extension() == ".md") documents.push_back(entry.path());
  }
  return documents;
}

// Each line of `text` outside fenced code blocks, with its 1-based number.
std::vector<std::pair<size_t, std::string>> ProseLines(const std::string& text) {
  std::vector<std::pair<size_t, std::string>> lines;
  bool fenced = false;
  size_t number = 0, at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(at, end - at);
    at = end + 1;
    ++number;
    if (line.rfind("```", 0) == 0) {
      fenced = !fenced;
      continue;
    }
    if (!fenced) lines.emplace_back(number, line);
  }
  return lines;
}

// The anchors of a document's headings; a repeated heading gets -1, -2, … as on GitHub.
std::set<std::string> Anchors(const std::string& text) {
  std::set<std::string> anchors;
  std::map<std::string, int> seen;
  for (const auto& [number, line] : ProseLines(text)) {
    const size_t hashes = line.find_first_not_of('#');
    if (hashes == 0 || hashes == std::string::npos || line[hashes] != ' ') continue;
    const std::string anchor = HeadingAnchor(line.substr(hashes + 1));
    const int repeat = seen[anchor]++;
    anchors.insert(repeat == 0 ? anchor : anchor + "-" + std::to_string(repeat));
  }
  return anchors;
}

TEST(Docs, EveryLinkBetweenTheDocumentsReachesAFileAndAHeadingThatExist) {
  const std::regex link(R"(\]\(([^)\s]+)\))");
  size_t checked = 0;
  for (const fs::path& document : Documents()) {
    const std::string text = ReadFile(document);
    for (const auto& [number, line] : ProseLines(text)) {
      for (auto it = std::sregex_iterator(line.begin(), line.end(), link);
           it != std::sregex_iterator(); ++it) {
        const std::string target = (*it)[1];
        if (target.find("://") != std::string::npos || target.rfind("mailto:", 0) == 0) continue;
        const std::string where = document.filename().string() + ":" + std::to_string(number) +
                                  ": (" + target + ")";
        const size_t hash = target.find('#');
        const std::string file = target.substr(0, hash);
        const fs::path path = file.empty() ? document : document.parent_path() / file;
        ++checked;
        if (!fs::exists(path)) {
          ADD_FAILURE() << where << ": no file " << path;
          continue;
        }
        if (hash == std::string::npos) continue;
        EXPECT_TRUE(Anchors(ReadFile(path)).count(target.substr(hash + 1)))
            << where << ": " << path.filename() << " has no heading #" << target.substr(hash + 1);
      }
    }
  }
  // The premise: links are found (the README links docs/design.md and its own sections).
  EXPECT_GT(checked, 10u);
}

// A line a terminal or a diff shows whole: prose and headings stay within 100 columns (code
// blocks and tables, which cannot wrap, are left out).
TEST(Docs, ProseLinesAreAtMost100Columns) {
  for (const fs::path& document : Documents()) {
    for (const auto& [number, line] : ProseLines(ReadFile(document))) {
      if (line.rfind("|", 0) == 0) continue;
      size_t columns = 0;
      for (unsigned char c : line) columns += (c & 0xC0) != 0x80;  // UTF-8 lead bytes
      EXPECT_LE(columns, 100u) << document.filename().string() << ":" << number << ": " << line;
    }
  }
}

}  // namespace
}  // namespace sinkd::testing
