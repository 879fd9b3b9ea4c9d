// Reading a table as another engine does: icebird (tools/icebird-read.mjs), one reader every
// Iceberg test shares, so each test asserts on rows rather than re-parsing the tool's output.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "support/support.h"

namespace sinkd::testing {

struct IcebirdOptions {
  std::string metadata;                // a metadata file's name under <table>/metadata/ ("" newest)
  std::filesystem::path s3_mirror;     // an s3:// table: the directory its bucket is copied to
  bool files = false;                  // the data files the manifests list instead of the rows
};

// icebird's reading of the table at `table_uri` (file:// or s3://): {"rows": [...]} or, with
// `files`, {"files": [...]}, and "snapshots". A failed read is a test failure and gives a
// discarded value.
inline nlohmann::json IcebirdRead(const std::string& table_uri, const IcebirdOptions& options = {}) {
  std::vector<std::string> argv = {"node", (SourceDir() / "tools/icebird-read.mjs").string(),
                                   table_uri};
  if (!options.metadata.empty()) argv.insert(argv.end(), {"--metadata", options.metadata});
  if (!options.s3_mirror.empty()) argv.insert(argv.end(), {"--s3-mirror", options.s3_mirror.string()});
  if (options.files) argv.push_back("--files");
  const CommandResult r = RunCommand(argv);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (r.exit_code != 0) return nlohmann::json(nlohmann::json::value_t::discarded);
  nlohmann::json j = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << r.out.substr(0, 300);
  return j;
}

// The distinct event_ids of an IcebirdRead's rows.
inline std::set<std::string> EventIdsOf(const nlohmann::json& read) {
  std::set<std::string> ids;
  if (read.is_discarded() || !read.contains("rows")) return ids;
  for (const auto& row : read["rows"]) ids.insert(row["event_id"].get<std::string>());
  return ids;
}

}  // namespace sinkd::testing
