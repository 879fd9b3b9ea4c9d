// FilesCatalog keeps an Iceberg table in the lake itself, with no catalog service: the table's
// metadata files are <table>/metadata/v<N>.metadata.json, and creating v<N+1> is the commit
// (its Catalog::Swap, catalog.h).
// It is the layout DuckDB's iceberg_scan, PyIceberg's StaticTable, Spark's HadoopCatalog and
// icebird read (iceberg-tables.md §2.1).
//
// Why this is safe when several processes commit to one table (drains sharing a durable, a
// compactor): v<N+1> is created through the lake's placement seam, which never replaces a key
// (lake/destination.h: a unique temporary file renamed with RENAME_NOREPLACE on a directory,
// If-None-Match: * on S3), so of two committers building on v<N> exactly one creates v<N+1>; the
// other is told the key is taken, re-reads the newest metadata, re-applies its append on top and
// tries v<N+2>, waiting by sinkd's one Backoff (base/backoff.h) with jitter between attempts, a
// bounded number of times (then the commit fails and nothing was committed: the caller's flush
// fails and is retried).
//
// The newest version is found by probing: metadata/version-hint.text (digits only, no newline —
// DuckDB reads it verbatim) is a starting point, never trusted: v<hint+1>, v<hint+2>, … are tried
// until one is missing. Without a readable hint, the highest v<N> listed is the start. The hint is
// written after the metadata file, only ever forward, best effort: a stale hint costs readers that
// do not probe (DuckDB, PyIceberg) the newest commits, never a writer its correctness.
//
// An answer lost after the create (a timeout after the store wrote it, a crash of the network)
// is resolved by reading back: every snapshot sinkd writes carries its commit's random id in the
// summary (sinkd.commit-id), so a create that failed or found the key taken is ours exactly when
// the newest metadata holds a snapshot with our id. No append is ever committed twice.
//
// What a commit writes, in order, each before what names it: the manifests of the appended
// files (one per merge_max_entries files; once per commit: their ADDED entries inherit their
// sequence numbers from the list, so they are reused by every attempt), per attempt a merged
// manifest when the parent's have accumulated (CommitOptions), a manifest list naming the
// parent's manifests (or the merge) and ours, then v<N+1>. A directory lake is synced before the
// metadata create (so v<N+1> never names a file a power cut could lose) and after it. Files of
// attempts that lost are deleted when they are known to be unreferenced; what a crash leaves is
// an orphan (no snapshot names it).
//
// Ownership: borrows the Destination, which must outlive the catalog. Threads: one thread at a
// time (as the Destination). Errors: Redeliver when the lake cannot be read or written or every
// attempt lost its race; Reject when the newest metadata is not a table this spec can extend
// (corrupt JSON, another schema); whatever the caller's `marks` returns.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "avro/container.h"
#include "base/backoff.h"
#include "base/result.h"
#include "base/work_pool.h"
#include "iceberg/catalog.h"
#include "iceberg/data_file.h"
#include "iceberg/manifest.h"
#include "iceberg/table_metadata.h"
#include "lake/destination.h"

namespace sinkd::iceberg {

// How every metadata file's name ends, the files catalog's v<N> and a metastore's <N>-<uuid>.
inline constexpr std::string_view kMetadataFileSuffix = ".metadata.json";

// The summary key holding the id of the commit that wrote a snapshot.
inline constexpr char kCommitIdKey[] = "sinkd.commit-id";

struct CommitOptions {
  // Attempts per commit, the first included. Each lost race costs one; ten let a handful of
  // drains and a compactor committing every few seconds all get through (Java Iceberg tries 5).
  int attempts = 10;
  // The wait after the n-th lost attempt: 50 ms doubling to 5 s, half of it random, so that
  // committers that lost together do not retry together.
  Backoff backoff{std::chrono::milliseconds(50), std::chrono::seconds(5), 2.0, 0.5};
  avro::Codec codec = avro::Codec::kDeflate;
  // Manifest merging: one manifest per commit would leave a day of five-minute commits from a
  // few drains with hundreds per snapshot, each opened by every reader's planning. When a
  // snapshot would name more than merge_min_count manifests, some of those under
  // merge_target_bytes are rewritten as one (their entries EXISTING, with their snapshot and
  // sequence numbers kept), in the same commit: those of one size tier (ManifestsToMerge), so
  // that a commit rewrites manifests about as large as each other, never the table's whole
  // history every merge_min_count commits. 0: never merge.
  int merge_min_count = 32;
  uint64_t merge_target_bytes = 8 << 20;
  // No merge writes a manifest of more data files than this. Chosen when sinkd's Avro reader
  // built every value of a file (ReadLimits::max_values, 16 Mi): a ledger entry with every
  // statistic is about 420 values, so a merged manifest of some 40,000 files, which deflate keeps
  // far under merge_target_bytes, could not be read again — every later commit of the table
  // failed (table_bench after 10,000 commits of 4 files). The reader now decodes entries from
  // their bytes and counts only the values it skips; the cap stays, bounding what one merge
  // rewrites. A commit adding more files than this (table register) writes them as several
  // manifests.
  uint64_t merge_max_entries = 4096;
  // How to wait; default: sleep the thread. Tests pass their own.
  std::function<void(std::chrono::milliseconds)> sleep;
  // Threads inflating, decoding and deflating a manifest's Avro blocks (the catalog's own pool
  // when above 1; the bytes are the same): a compaction pass reads a register's 4,096-entry
  // manifests and rewrites them in its replace, a third of the table's share of the pass on one
  // thread. `sinkd compact` passes --encode-threads.
  size_t threads = 1;

  // Refuse when attempts < 1 or the backoff is not valid.
  Status Validate() const;
};

// One append: the data files it adds, and the caller's summary keys for the snapshot.
struct Append {
  std::vector<DataFile> files;
  // Called on every attempt with the newest metadata (nullptr for a table not created yet),
  // inside the retry loop: returns the keys sinkd adds to the snapshot's summary (its markers),
  // or an error that ends the commit with nothing committed (a batch found already committed).
  // Empty: no keys. Keys without sinkd.positions: the base's positions are carried (positions.h).
  std::function<Result<Summary>(const TableMetadata* base)> marks;
  // Start a new table (a new UUID, this catalog's location, no snapshot before this one) as the
  // next metadata version instead of extending the newest metadata, whose file stays in the
  // version chain, unnamed by the new metadata's log: `sinkd table register --replace-metadata`
  // rebuilding the table of a lake copied from elsewhere, whose metadata names the old location.
  // `marks` is then given nullptr. Refused (Refuse, nothing written) when the newest metadata
  // already names this catalog's location: that table may hold commits a rebuild would drop.
  bool fresh = false;
};

// One replace (compaction's rewrite, Spec "Rewrite data files"): `removed` data files leave the
// table and `added` ones, holding the same rows, enter it, in one snapshot (operation "replace").
// The manifests naming a removed file are rewritten as one (the removed entries DELETED with their
// original sequence numbers, the rest EXISTING); the others are carried unchanged. The table's
// committed positions (positions.h) are carried forward into the new snapshot.
// Conflicts: an append committed meanwhile never conflicts (the retry re-reads the newest
// metadata and re-applies on top). A replace conflicts only when a file it removes is no longer
// live in the newest metadata — another replace (a second compactor) removed it first; then
// nothing is committed and CommitReplace returns NotFound naming the file, so the caller drops that
// merge (its inputs stay live in the table; nothing is lost).
struct Replace {
  std::vector<std::string> removed;  // DataFile::path (URIs) of live files of the table
  std::vector<DataFile> added;
};

struct CommitReport {
  std::string commit_id;
  int64_t version = 0;  // the metadata file that made it current
  int64_t snapshot_id = 0;
  int attempts = 0;          // 1 when no race was lost
  bool hint_written = true;  // false when version-hint.text could not be moved forward
};

// The catalog's Load and Swap are virtual: SqlCatalog (sql_catalog.h) keeps every object this
// class writes and moves the pointer in PostgreSQL instead.
class FilesCatalog : public Catalog {
 public:
  // The table `table_key` (its objects under "<table_key>/", e.g. "ledger") of the lake in
  // `destination`, whose keys are URIs under `lake_uri` ("file:///abs/lake", "s3://bucket"):
  // the table's location is "<lake_uri>/<table_key>". `spec` is what a new table is created with.
  FilesCatalog(lake::Destination& destination, std::string lake_uri, std::string table_key,
               TableSpec spec, CommitOptions options = {});

  // The newest metadata, found by probing past the hint.
  Result<LoadedTable> Load() override;
  // Creates v<base.version+1>, never replacing it (taken by another: lost, unless it holds
  // `commit_id`), syncs it, then moves the hint forward.
  Result<Swapped> Swap(const LoadedTable& base, TableMetadata next,
                       const std::string& commit_id) override;
  // Moves the hint forward to current.version.
  Status Published(const LoadedTable& current) override;

  // Commits `append` as one append snapshot on top of the newest metadata (creating the table
  // when it has none). REQUIRES: every file's path is Uri() of a key in this lake.
  Result<CommitReport> Commit(const Append& append);

  // Commits `replace` as one replace snapshot on top of the newest metadata. NotFound when a file
  // it removes is not live there (see Replace); Refuse when it removes nothing or the table has no
  // snapshot yet. REQUIRES: as for Commit.
  Result<CommitReport> CommitReplace(const Replace& replace);

  // A change of the newest metadata that adds no snapshot (expiry): `change` is given the newest
  // metadata and the URI of its file on every attempt and returns the metadata to write next
  // (its last-updated-ms is set here), or nullopt when there is nothing to change — then nothing
  // is written and the report names the newest version. Retried as a commit is; `change` must be
  // a function of its base, so that re-applying it after a lost answer is harmless. The pointer
  // moves through Swap, so a catalog overriding Load and Swap (sql) is changed alike. NotFound
  // when the table has no metadata.
  using MetadataChange = std::function<Result<std::optional<TableMetadata>>(
      const TableMetadata& base, const std::string& base_uri)>;
  Result<CommitReport> CommitMetadata(const MetadataChange& change);

  // Why Load found no table (version 0), for the message that says so: here, no
  // metadata/v<N>.metadata.json under the location; the sql catalog names its row or tables.
  virtual std::string NoTableReason() const;

  // The URI of the lake object at `key`, as metadata names it.
  std::string Uri(const std::string& key) const { return lake_uri_ + "/" + key; }
  // The key of an object the metadata names by `uri`; Reject when it is outside this lake.
  Result<std::string> KeyOf(const std::string& uri) const;
  std::string location() const { return Uri(table_key_); }

  // The entries of manifest `m` as stored (inherited numbers not applied): a copy kept by an
  // earlier call with `keep`, else read and decoded (and kept when `keep`). A compaction pass
  // decodes the current snapshot's manifests to plan (IcebergCommit::Live, keep) and its replace
  // rewrites some of them (RemoveFiles): decoding a register's 4,096-entry manifests twice was a
  // quarter of what the table cost the pass. A kept copy stays true, since a manifest is never
  // written twice under its name (each name carries a commit's random id; the length is checked
  // too). Kept copies live until ForgetDecoded or until a commit lands whose snapshot no longer
  // names them. Reject (naming the manifest) as ReadManifest.
  using Entries = std::shared_ptr<const std::vector<ManifestEntry>>;
  Result<Entries> Decoded(const ManifestFile& m, bool keep);
  void ForgetDecoded() { decoded_.clear(); }
  std::string MetadataKey(int64_t version) const;
  std::string HintKey() const { return table_key_ + "/metadata/version-hint.text"; }

 protected:
  // The metadata file of `key` whose bytes are `json`: the one this catalog parsed or wrote last
  // when the bytes are the same, else parsed (and kept as the last).
  Result<TableMetadata> Parsed(const std::string& key, std::string json);
  // Keeps `metadata`, just written to `key` as `json`, as the last one this catalog wrote.
  void Remember(std::string key, std::string json, TableMetadata metadata);
  Result<std::string> ReadWhole(const std::string& key);
  Result<bool> Exists(const std::string& key);
  Result<int64_t> HighestListed();
  // Places `bytes` at `key` never replacing: kNew/kSame/kTaken as the seam says.
  Result<lake::Placed> Create(const std::string& key, const std::string& bytes);
  // `manifests` with the small ones merged into one new manifest at `key`, written under
  // `snapshot_id` and `sequence` (or `manifests` unchanged when fewer than two are small).
  // `merged` tells whether a file was written.
  Result<std::vector<ManifestFile>> MergeSmall(std::vector<ManifestFile> manifests,
                                               const std::string& key, int64_t snapshot_id,
                                               int64_t sequence, bool& merged);
  // What one commit changes: files added, for a replace files removed (nullptr: an append).
  struct Change {
    const std::vector<DataFile>* added = nullptr;
    const std::vector<std::string>* removed = nullptr;
    std::function<Result<Summary>(const TableMetadata* base)> marks;
    bool fresh = false;  // Append::fresh
  };
  Result<CommitReport> Run(const Change& change);
  // Of `manifests`, those naming none of `removed` stay in `kept`; those naming one are rewritten
  // as one manifest at `key` under `snapshot_id`/`sequence` (removed entries DELETED, the rest
  // EXISTING). NotFound when a file of `removed` is live in none of them.
  struct Removal {
    std::vector<ManifestFile> kept;
    std::optional<ManifestFile> rewritten;
    AppendCounts counts;
  };
  Result<Removal> RemoveFiles(std::vector<ManifestFile> manifests,
                              const std::vector<std::string>& removed, const std::string& key,
                              int64_t snapshot_id, int64_t sequence);
  // Moves version-hint.text forward to `version` (or past it, to the newest found).
  Status WriteHint(int64_t version);
  std::string NewUuid();

  lake::Destination& destination_;
  std::string lake_uri_;
  std::string table_key_;
  TableSpec spec_;
  CommitOptions options_;
  std::mt19937_64 random_;
  // The newest metadata this catalog parsed or wrote, with its bytes. Parsing the metadata JSON
  // was most of a commit's CPU once a table holds a thousand snapshots (table_bench: 31 of 33 ms
  // at 1,000 prior commits), and a flush parsed the same file up to three times (Committed,
  // then Load and the retry loop's Load; the next flush reads the file its own commit wrote).
  // Equal bytes, not the name, decide a hit: a table removed and created again reuses names.
  struct Cached {
    std::string key;
    std::string json;
    TableMetadata metadata;
  };
  std::optional<Cached> cache_;
  // Decoded's kept manifests, by path. A manifest a replace rewrote is kept as how to build its
  // entries (`build`), built on the first Decoded that asks: a pass that commits once never does.
  struct DecodedManifest {
    uint64_t length = 0;
    Entries entries;
    std::function<std::vector<ManifestEntry>()> build;
  };
  std::map<std::string, DecodedManifest, std::less<>> decoded_;
  std::unique_ptr<WorkPool> pool_;  // options_.threads > 1
};

// Which of `manifests` (a snapshot's list) a commit that merges rewrites as one: of the manifests
// under options.merge_target_bytes and holding at most half of merge_max_entries, those whose
// live entries (added + existing files) are within a factor of 4 of each other — the tier
// holding the most of them, the smaller of equals, in list order as long as the merge stays
// within merge_max_entries — or, when no tier holds two, the two smallest. Empty when fewer than
// two qualify.
std::set<size_t> ManifestsToMerge(const std::vector<ManifestFile>& manifests,
                                  const CommitOptions& options);

// Whether `metadata` holds a snapshot written by commit `commit_id`.
bool HoldsCommit(const TableMetadata& metadata, const std::string& commit_id);

}  // namespace sinkd::iceberg
