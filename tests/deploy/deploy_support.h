// Shared by the deploy tests: finding the operators' tools (systemd-analyze, promtool, man), an
// install of this build into a fresh directory, and the metric names a text exposition defines.
// A missing tool skips the test that needs it, naming the Debian package; anything else that goes
// wrong is a failure. Header-only. Threads: one thread at a time.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/support.h"

namespace sinkd::testing {

// The tool's path on PATH, or "" when it is not installed.
inline std::string FindTool(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::filesystem::path candidate = std::filesystem::path(dir) / name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return "";
}

#define SINKD_REQUIRE_TOOL(tool, package)                           \
  if (::sinkd::testing::FindTool(tool).empty())                     \
  GTEST_SKIP() << tool " is not installed (Debian package " package \
                       "; bash scripts/install-deps.sh installs it)"

inline std::filesystem::path DeployDir() { return SourceDir() / "deploy"; }

// `cmake --install` of this build (by the cmake that configured it) under `prefix`
// (DESTDIR=`destdir` unless empty), the way `make install` runs it. Fails the test, with cmake's
// output, when the install fails.
inline bool InstallBuild(const std::filesystem::path& prefix,
                         const std::filesystem::path& destdir = {}) {
  std::vector<std::string> env;
  if (!destdir.empty()) env.push_back("DESTDIR=" + destdir.string());
  const CommandResult r = RunCommand(
      {SINKD_CMAKE_COMMAND, "--install", BuildDir().string(), "--prefix", prefix.string()}, "",
      std::chrono::seconds(120), env);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  return r.exit_code == 0;
}

// Plain string scanning rather than <regex>: libstdc++'s regex trips -Wmaybe-uninitialized in the
// sanitizer build, and these formats are simple.
inline std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

inline bool IsWordChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// The word of `text` starting at `at` (letters, digits, '_', plus the characters in `more`).
inline std::string WordAt(const std::string& text, size_t at, const std::string& more = "") {
  size_t end = at;
  while (end < text.size() &&
         (IsWordChar(text[end]) || more.find(text[end]) != std::string::npos)) {
    ++end;
  }
  return text.substr(at, end - at);
}

inline std::string ReplaceAll(std::string text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
  return text;
}

// Every metric name a Prometheus text exposition defines: the names of its `# TYPE` lines, with
// _bucket, _sum and _count for a histogram, and the name of every sample line.
inline std::set<std::string> ExposedNames(const std::string& exposition) {
  std::set<std::string> names;
  for (const std::string& line : Lines(exposition)) {
    if (line.rfind("# TYPE ", 0) == 0) {
      const std::string name = WordAt(line, 7, ":");
      names.insert(name);
      if (line.compare(7 + name.size(), std::string::npos, " histogram") == 0) {
        for (const char* suffix : {"_bucket", "_sum", "_count"}) names.insert(name + suffix);
      }
    } else if (!line.empty() && line[0] != '#') {
      names.insert(WordAt(line, 0, ":"));
    }
  }
  return names;
}

// The sinkd metric names a file mentions (words starting with sinkd_).
inline std::set<std::string> MentionedNames(const std::string& text) {
  std::set<std::string> names;
  for (size_t at = text.find("sinkd_"); at != std::string::npos; at = text.find("sinkd_", at + 1)) {
    if (at == 0 || !IsWordChar(text[at - 1])) names.insert(WordAt(text, at));
  }
  return names;
}

}  // namespace sinkd::testing
