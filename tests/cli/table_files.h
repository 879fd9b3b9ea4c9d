// The data files a directory lake's Iceberg table names, read by python3-avro (tools/avro-dump.py,
// an independent reader of sinkd's manifest lists and manifests): what DuckDB is then given to
// count, and what must exist on disk.
// Header-only. Threads: one thread at a time.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
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
  // One interpreter for every list and manifest: starting one per file takes seconds each on a
  // loaded machine.
  static constexpr char kScript[] = R"py(
import json, sys, avro.datafile, avro.io
doc = json.load(open(sys.argv[1][len("file://"):]))
every = sys.argv[2] == "1"
def records(uri):
    with avro.datafile.DataFileReader(open(uri[len("file://"):], "rb"), avro.io.DatumReader()) as r:
        return list(r)
files, read = [], set()
for s in doc.get("snapshots", []):
    if not every and s["snapshot-id"] != doc.get("current-snapshot-id"):
        continue
    for m in records(s["manifest-list"]):
        if m["manifest_path"] in read:
            continue
        read.add(m["manifest_path"])
        for e in records(m["manifest_path"]):
            path = e["data_file"]["file_path"]
            if e["status"] != 2 and path not in files:  # 2: DELETED, not in that snapshot
                files.append(path)
print(json.dumps(files))
)py";
  const CommandResult r =
      RunCommand({"/usr/bin/python3", "-c", kScript, metadata_uri, every_snapshot ? "1" : "0"}, "",
                 std::chrono::seconds(120));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> files;
  const nlohmann::json list = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_TRUE(list.is_array()) << r.out;
  if (!list.is_array()) return files;
  for (const auto& f : list) files.push_back(f.get<std::string>().substr(7));  // "file://"
  EXPECT_FALSE(files.empty()) << "no data file";
  return files;
}

}  // namespace sinkd::testing
