// Table maintenance over the files catalog (issue 26 §4, iceberg-tables.md §5): expiring old
// snapshots and the files only they named, and finding the files under a table's location that
// no snapshot names (orphans).
//
// Expire (Spec "Snapshot Retention Policy"): a snapshot is kept when it is the current one, one of
// the `retain_last` newest on the current snapshot's chain, not older than `older_than`, or on
// the chain from the current one down to its nearest ancestor carrying sinkd.positions (so the
// positions that make the table exactly-once are never lost, even under snapshots that carry
// none: another engine's, or sinkd's own written before every snapshot carried them —
// CommittedPositions walks that chain); a chain carrying none (a table only imports wrote) keeps
// nothing for them. The
// shrunken metadata is committed first (a metadata-only commit, retried like any); only then are
// files deleted, and only those the expired snapshots named that no kept snapshot names —
// computed against the metadata that was committed, so a commit landing meanwhile (which builds
// on it) cannot be robbed of a file. The parent of a replace younger than data_grace (the glob
// view's grace) is kept too, so a compaction's inputs outlive their replace by that grace.
// Metadata files beyond `previous_versions_max` in the log are deleted last
// (write.metadata.previous-versions-max); the newest and the hint never are.
//
// Orphans (Iceberg's remove_orphan_files): objects under "<table>/" that no snapshot of the
// newest metadata names (data files, manifests, manifest lists), older than `older_than` — a
// file a running commit has written but not yet committed looks orphaned, which is why the
// default is three days. Never orphans: metadata files v<N>.metadata.json (the version chain;
// expiry prunes those), version-hint.text, and objects older than the table itself (its
// creation time, sinkd.created-ms, else the oldest time the metadata records): a lake's Parts
// from before its table are the hive view's rows — `sinkd table register` adopts them.
//
// Threads: one thread at a time (as the catalog's Destination). Errors: those of the catalog; a
// delete that fails is counted and named, never fatal (the file stays an orphan for the next run).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "base/result.h"
#include "iceberg/files_catalog.h"
#include "lake/destination.h"

namespace sinkd::iceberg {

// Iceberg's defaults (configuration.md): history.expire.max-snapshot-age-ms 5 days,
// history.expire.min-snapshots-to-keep 1, write.metadata.previous-versions-max 100.
struct ExpireOptions {
  std::chrono::milliseconds older_than = std::chrono::hours(24 * 5);
  int retain_last = 1;
  int previous_versions_max = 100;
  // The glob view's grace ([compaction] grace): the parent of a replace younger than this is
  // kept, so the files the replace removed (a compaction's inputs) stay named and are deleted
  // by the first expiry after the grace, as the hive view's own deleter waits after an output
  // appears: a reader that listed the partition a moment ago can still open them.
  std::chrono::milliseconds data_grace = std::chrono::hours(1);
  bool dry_run = false;  // decide and report, commit and delete nothing
  Status Validate() const;
};

struct ExpireReport {
  std::vector<int64_t> expired;          // snapshot ids
  int64_t version = 0;                   // the metadata version that has them no more
  std::vector<std::string> deleted;      // URIs deleted (or, on a dry run, to delete)
  std::vector<std::string> not_deleted;  // URIs whose delete failed, with the reason
  std::vector<int64_t> kept_for_grace;   // snapshots kept for data_grace alone
};

// Expires `catalog`'s table as above at `now_ms`.
Result<ExpireReport> ExpireSnapshots(FilesCatalog& catalog, lake::Destination& destination,
                                     const ExpireOptions& options, int64_t now_ms);

struct OrphanOptions {
  std::chrono::milliseconds older_than = std::chrono::hours(24 * 3);
  bool remove = false;  // delete them (else only list)
  Status Validate() const;
};

struct OrphanReport {
  std::vector<lake::StoredObject> orphans;  // keys under the table no snapshot names
  uint64_t bytes = 0;
  size_t deleted = 0;
  std::vector<std::string> not_deleted;  // key: reason
};

Result<OrphanReport> FindOrphans(FilesCatalog& catalog, lake::Destination& destination,
                                 const OrphanOptions& options, int64_t now_ms);

// Every URI the snapshots `ids` of `metadata` name: manifest lists, manifests, and the data files
// live in them (ADDED and EXISTING entries).
Result<std::set<std::string>> FilesOf(FilesCatalog& catalog, lake::Destination& destination,
                                      const TableMetadata& metadata, const std::set<int64_t>& ids);

// The table property recording when sinkd created a table (ms since the epoch).
inline constexpr char kCreatedMsProperty[] = "sinkd.created-ms";

// When the table of `metadata` was created: kCreatedMsProperty, else (a table sinkd did not
// create) the oldest time its metadata records. Objects older than that are not the table's
// leftovers but the hive view's Parts from before it (orphans never takes them; register adopts
// them).
int64_t TableCreatedMs(const TableMetadata& metadata);

// Maps a URI a table's metadata names to the lake key holding it (FilesCatalog::KeyOf, or a
// mapping from a location the table was copied from).
using KeyOfUri = std::function<Result<std::string>(const std::string& uri)>;

// The data files the current snapshot of `metadata` holds (ADDED and EXISTING entries of its
// manifests), as the manifests describe them; empty without a current snapshot. Reject naming a
// list or manifest that does not parse; the store's error naming one it cannot read.
Result<std::vector<DataFile>> CurrentDataFiles(lake::Destination& destination,
                                               const TableMetadata& metadata,
                                               const KeyOfUri& key_of);

}  // namespace sinkd::iceberg
