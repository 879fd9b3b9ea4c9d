// The command tree as `sinkd --help` shows it, for the tests that must cover every command and
// every flag (exit codes, size flags, completion): a new command or flag is in them without
// anyone listing it. Reads the help text, not the sources, so it sees what an operator sees.
// Also the way those tests run sinkd, away from any server.
// Header-only. Threads: one thread at a time.
#pragma once

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "support/support.h"

namespace sinkd::testing {

// `sinkd <path> --help`, failing the test when it does not exit 0.
inline std::string HelpOf(const std::vector<std::string>& path) {
  std::vector<std::string> argv = {SinkdBinary().string()};
  argv.insert(argv.end(), path.begin(), path.end());
  argv.push_back("--help");
  const CommandResult r = RunCommand(argv);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

// The names under "Subcommands:" in a help text.
inline std::vector<std::string> SubcommandsIn(const std::string& help) {
  std::vector<std::string> names;
  std::istringstream in(help);
  bool listed = false;
  for (std::string line; std::getline(in, line);) {
    if (line == "Subcommands:") {
      listed = true;
    } else if (listed && line.rfind("  ", 0) == 0 && line.size() > 2 && line[2] != ' ') {
      names.push_back(line.substr(2, line.find(' ', 2) - 2));
    } else if (listed && !line.empty() && line[0] != ' ') {
      listed = false;
    }
  }
  return names;
}

// Every command that runs something (a leaf of the tree), as its words: {"drain", "ledger"}.
inline std::vector<std::vector<std::string>> LeafCommands(const std::vector<std::string>& at = {}) {
  std::vector<std::vector<std::string>> leaves;
  const std::vector<std::string> subs = SubcommandsIn(HelpOf(at));
  if (subs.empty() && !at.empty()) leaves.push_back(at);
  for (const std::string& sub : subs) {
    std::vector<std::string> path = at;
    path.push_back(sub);
    for (auto& leaf : LeafCommands(path)) leaves.push_back(std::move(leaf));
  }
  return leaves;
}

struct HelpFlag {
  std::vector<std::string> names;  // "--help", "-h"
  std::string type;                // "SIZE", "TEXT:{ledger,audit}", "" for a bare flag
};

// The options listed under "Options:" in a help text. CLI11 writes "  -h,--help   text" and
// "  --batch-max-bytes SIZE=512MiB   text": the names, one space, then the type if any.
inline std::vector<HelpFlag> FlagsIn(const std::string& help) {
  std::vector<HelpFlag> flags;
  std::istringstream in(help);
  bool listed = false;
  for (std::string line; std::getline(in, line);) {
    if (line == "Options:") {
      listed = true;
      continue;
    }
    if (!listed || line.rfind("  -", 0) != 0) {
      if (listed && !line.empty() && line[0] != ' ') listed = false;
      continue;
    }
    HelpFlag flag;
    const size_t names_end = line.find(' ', 2);
    std::stringstream names(line.substr(2, names_end - 2));
    for (std::string name; std::getline(names, name, ',');) flag.names.push_back(name);
    if (names_end != std::string::npos && names_end + 1 < line.size() &&
        line[names_end + 1] != ' ') {
      flag.type = line.substr(names_end + 1, line.find(' ', names_end + 1) - names_end - 1);
      flag.type = flag.type.substr(0, flag.type.find('='));
    }
    flags.push_back(std::move(flag));
  }
  return flags;
}

// `sinkd <args>` with the destination and NATS variables emptied (NATS_URL pointing at a closed
// port), so no default reaches a server on this machine.
inline CommandResult SinkdWithoutServers(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {SinkdBinary().string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunCommand(
      argv, "", std::chrono::seconds(60),
      {"LAKE_DIR=", "AWS_ENDPOINT_URL=", "S3_BUCKET=", "NATS_URL=nats://127.0.0.1:1"});
}

inline std::vector<std::string> Plus(std::vector<std::string> a,
                                     const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

inline std::string Joined(const std::vector<std::string>& words) {
  std::string line;
  for (const std::string& w : words) line += (line.empty() ? "" : " ") + w;
  return line;
}

}  // namespace sinkd::testing
