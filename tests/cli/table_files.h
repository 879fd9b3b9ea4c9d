// The data files a directory lake's Iceberg table names, read by python3-avro (tools/avro-dump.py,
// an independent reader of sinkd's manifest lists and manifests): what DuckDB is then given to
// count, and what must exist on disk.
// Header-only. Threads: one thread at a time.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "support/support.h"

namespace sinkd::testing {

// The data files (paths, file:// removed) the manifests of the metadata file at `metadata_uri`
// (file://…) list: of its current snapshot (ADDED and EXISTING entries), or with
// `every_snapshot` of every snapshot it keeps (each once).
inline std::vector<std::string> ManifestFiles(const std::string& metadata_uri,
                                              bool every_snapshot = false) {
  const std::string scheme = "file://";
  const auto dump = [&](const std::string& uri) {
    CommandResult r = RunCommand({"/usr/bin/python3", (SourceDir() / "tools/avro-dump.py").string(),
                                  uri.substr(scheme.size())});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out, nullptr, false);
  };
  const nlohmann::json doc = nlohmann::json::parse(ReadFile(metadata_uri.substr(scheme.size())));
  std::vector<std::string> lists;
  for (const auto& s : doc["snapshots"]) {
    if (every_snapshot || s["snapshot-id"] == doc["current-snapshot-id"]) {
      lists.push_back(s["manifest-list"].get<std::string>());
    }
  }
  std::vector<std::string> files;
  EXPECT_FALSE(lists.empty()) << "no current snapshot";
  std::set<std::string> manifests_read, seen;
  for (const std::string& list : lists) {
    const nlohmann::json manifests = dump(list);
    for (const auto& m : manifests["records"]) {
      const std::string path = m["manifest_path"].get<std::string>();
      if (!manifests_read.insert(path).second) continue;
      const nlohmann::json entries = dump(path);
      for (const auto& e : entries["records"]) {
        if (e["status"] == 2) continue;  // DELETED: not in that snapshot
        const std::string file = e["data_file"]["file_path"].get<std::string>();
        if (seen.insert(file).second) files.push_back(file.substr(scheme.size()));
      }
    }
  }
  return files;
}

}  // namespace sinkd::testing
