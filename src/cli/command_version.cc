#include <cstdio>

#include "base/build_info.h"
#include "cli/command.h"

namespace sinkd::cli {

void AddVersionCommand(CLI::App& root, Invocation& invocation) {
  CLI::App* cmd = root.add_subcommand("version", "print the version and build of this binary");
  cmd->callback([&invocation] {
    invocation.run = [] {
      std::printf("sinkd version %s (build %s)\n", kVersion, kBuildId);
      return Status::OK();
    };
  });
}

}  // namespace sinkd::cli
