#include <cstdio>

#include "base/build_info.h"
#include "cli/command.h"

namespace sinkd::cli {

std::string VersionLine() {
  return std::string("sinkd version ") + kVersion + " (build " + kBuildId + ")";
}

void AddVersionCommand(CLI::App& root, Invocation& invocation) {
  CLI::App* cmd = root.add_subcommand("version", "print the version and build of this binary");
  cmd->callback([&invocation] {
    invocation.run = [] {
      std::printf("%s\n", VersionLine().c_str());
      return Status::OK();
    };
  });
}

}  // namespace sinkd::cli
