// The destination of a lake-writing command (import, drain, dispatch): --lake-dir for a directory,
// or --s3-endpoint and --s3-bucket for an object store. There is no default destination; naming
// both, or neither, is refused with a message that names the options. Selection runs before any
// network I/O.
#pragma once

#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "base/result.h"
#include "lake/destination.h"

namespace sinkd::cli {

struct DestinationFlags {
  std::string lake_dir;  // env LAKE_DIR
};

// Adds the destination flags to `cmd`; environment variables become their defaults here.
void AddDestinationFlags(CLI::App& cmd, DestinationFlags& flags);

// Chooses and builds the destination the flags name (not yet Ensure'd).
Result<std::unique_ptr<lake::Destination>> MakeDestination(const DestinationFlags& flags);

}  // namespace sinkd::cli
