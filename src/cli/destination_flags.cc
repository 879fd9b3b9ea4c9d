#include "cli/destination_flags.h"

#include <cstdlib>

#include "lake/dir_destination.h"

namespace sinkd::cli {

void AddDestinationFlags(CLI::App& cmd, DestinationFlags& flags) {
  if (const char* env = std::getenv("LAKE_DIR")) flags.lake_dir = env;
  cmd.add_option("--lake-dir", flags.lake_dir, "write the lake to this directory (env LAKE_DIR)");
}

Result<std::unique_ptr<lake::Destination>> MakeDestination(const DestinationFlags& flags) {
  if (flags.lake_dir.empty()) {
    return Status::Refuse("no destination: pass --lake-dir <path> for a lake on this machine");
  }
  SINKD_ASSIGN_OR_RETURN(auto dir, lake::DirDestination::Make(flags.lake_dir));
  return std::unique_ptr<lake::Destination>(std::move(dir));
}

}  // namespace sinkd::cli
