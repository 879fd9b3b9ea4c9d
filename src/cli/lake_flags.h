// Flags every command that writes a lake shares (import now; drain and dispatch later), and their
// validation into LakeWriterOptions. A bad value stops the program before anything is read.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "base/result.h"
#include "base/work_pool.h"
#include "lake/lake_writer.h"

namespace sinkd::cli {

struct LakeFlags {
  std::string key_prefix;   // default: the origin ("ledger", "audit")
  std::string instance_id;  // default: <hostname>-<pid>
  int zstd_level = 3;
  size_t row_group_rows = 122'880;
  size_t encode_threads = WorkPool::DefaultThreads();
};

// Adds --key-prefix, --instance-id, --zstd-level, --row-group-rows, --encode-threads.
void AddLakeFlags(CLI::App& cmd, LakeFlags& flags);

// Checks the flags (prefix and instance are single safe key tokens, levels in range) and builds the
// writer options; `origin` is the default key prefix.
Result<lake::LakeWriterOptions> LakeWriterOptionsFrom(const LakeFlags& flags,
                                                      const std::string& origin);

// "sinkd version X (build Y)": the created_by of every Part.
std::string CreatedBy();

}  // namespace sinkd::cli
