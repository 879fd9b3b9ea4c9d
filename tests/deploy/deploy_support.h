// Shared by the deploy tests: finding the operators' tools (systemd-analyze, promtool, man), an
// install of this build into a fresh directory, and the metric names a text exposition defines.
// A missing tool skips the test that needs it, naming the Debian package; anything else that goes
// wrong is a failure. Header-only. Threads: one thread at a time.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <regex>
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

// Every metric name a Prometheus text exposition defines: the names of its `# TYPE` lines, with
// _bucket, _sum and _count for a histogram, and the name of every sample line.
inline std::set<std::string> ExposedNames(const std::string& exposition) {
  std::set<std::string> names;
  std::istringstream lines(exposition);
  std::string line;
  static const std::regex type_line(R"(^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (\w+))");
  static const std::regex sample_line(R"(^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ])");
  std::smatch m;
  while (std::getline(lines, line)) {
    if (std::regex_search(line, m, type_line)) {
      names.insert(m[1]);
      if (m[2] == "histogram") {
        for (const char* suffix : {"_bucket", "_sum", "_count"}) names.insert(m[1].str() + suffix);
      }
    } else if (std::regex_search(line, m, sample_line)) {
      names.insert(m[1]);
    }
  }
  return names;
}

// The sinkd metric names a file mentions (words starting with sinkd_).
inline std::set<std::string> MentionedNames(const std::string& text) {
  std::set<std::string> names;
  static const std::regex word(R"(\bsinkd_[a-z0-9_]+)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), word); it != std::sregex_iterator();
       ++it) {
    names.insert(it->str());
  }
  return names;
}

}  // namespace sinkd::testing
