// Catalog is the one step in which Iceberg catalogs differ: where the pointer to a table's current
// metadata file is kept and how it is moved. Everything else of a commit (manifests, manifest
// lists, the metadata JSON file, all of them new never-replaced objects in the lake beside the
// Parts; the retry loop; the commit id) is the same for every catalog and lives in FilesCatalog
// (files_catalog.h), whose Load and Swap are the `files` catalog's. Implementations:
//   files  FilesCatalog: the newest metadata/v<N>.metadata.json is current (probed past
//          version-hint.text); a never-replace create of v<N+1> moves the pointer.
//   sql    SqlCatalog (sql_catalog.h): a row of Iceberg's JDBC catalog table `iceberg_tables` in
//          PostgreSQL names the current file; a compare-and-swap UPDATE of that row moves it.
// Contract: Swap is a compare-and-swap against what Load returned. Of two committers that loaded
// the same current metadata, exactly one wins; the other is told it lost (won=false) and nothing
// of its is current, so it re-reads, re-applies and retries. An error from Swap means the outcome
// is unknown: the next Load tells (sinkd's snapshots carry their commit id, catalog.h's callers
// look for it).
// Threads: one thread at a time per object.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/result.h"
#include "iceberg/table_metadata.h"

namespace sinkd::iceberg {

// The table's current metadata as its catalog names it.
struct LoadedTable {
  int64_t version = 0;                    // N of the current metadata file; 0: no table yet
  std::string key;                        // the metadata file's lake key ("" when version is 0)
  std::optional<TableMetadata> metadata;  // present when version > 0
  int64_t hint = 0;  // files: what version-hint.text said (0: absent or unreadable)
  // sql: the metadata_location the row holds, what the next swap compares against; the URI of
  // `key` unless the row names the file at its old place in a lake copied here.
  std::string pointer;
};

// What a Swap did.
struct Swapped {
  bool won = false;
  int64_t version = 0;       // when won: the version now current
  bool hint_written = true;  // files: false when version-hint.text could not be moved forward
};

class Catalog {
 public:
  virtual ~Catalog() = default;

  // The current metadata (version 0: the table does not exist yet).
  virtual Result<LoadedTable> Load() = 0;

  // Makes `next` current when `base` (what Load returned) still is: writes it as a new metadata
  // file of version base.version + 1, never replacing an object, and moves the pointer to it.
  // `commit_id` is the sinkd.commit-id of next's new snapshot, by which a swap whose answer was
  // lost is recognised as ours.
  // `next` is taken by value: a catalog keeps the metadata it wrote (the next Load finds it
  // without parsing), and a caller that moves it in makes no copy of a table's every snapshot.
  virtual Result<Swapped> Swap(const LoadedTable& base, TableMetadata next,
                               const std::string& commit_id) = 0;

  // Called when a retry finds an earlier attempt's swap landed unheard (`current` holds it):
  // what a won Swap does for readers that do not ask the catalog. Default: nothing.
  virtual Status Published(const LoadedTable& current);
};

}  // namespace sinkd::iceberg
