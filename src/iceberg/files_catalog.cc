#include "iceberg/files_catalog.h"

#include "iceberg/positions.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <thread>
#include <utility>

namespace sinkd::iceberg {

namespace {

// A metadata file, list or manifest is read whole; no object of a table comes near this.
constexpr uint64_t kWhole = uint64_t{1} << 40;
// Manifests whose live entries are within this factor of each other are merged together.
constexpr uint64_t kTierFactor = 4;
// Far past any table's number of versions: a probe that runs this long is a bug.
constexpr int64_t kMaxProbe = 10'000'000;
constexpr char kVersionPrefix[] = "v";

int64_t NowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Digits only, as sinkd writes the hint and DuckDB needs it; anything else is no hint.
std::optional<int64_t> ParseVersion(std::string_view digits) {
  if (digits.empty() || digits.size() > 15) return std::nullopt;
  int64_t n = 0;
  for (char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + (c - '0');
  }
  return n;
}

AppendCounts CountsOf(const std::vector<DataFile>& files) {
  AppendCounts counts;
  std::set<std::pair<int32_t, std::vector<std::string>>> partitions;
  for (const DataFile& f : files) {
    ++counts.files;
    counts.records += f.records;
    counts.bytes += f.file_size;
    partitions.insert({f.day, f.values});
  }
  counts.partitions = partitions.size();
  return counts;
}

}  // namespace

Status CommitOptions::Validate() const {
  if (attempts < 1) return Status::Refuse("iceberg commit attempts must be at least 1");
  if (merge_max_entries < 2) {
    return Status::Refuse("iceberg merge_max_entries must be at least 2");
  }
  return backoff.Validate("iceberg commit backoff");
}

bool HoldsCommit(const TableMetadata& metadata, const std::string& commit_id) {
  for (const Snapshot& s : metadata.snapshots) {
    const std::string* id = s.Find(kCommitIdKey);
    if (id != nullptr && *id == commit_id) return true;
  }
  return false;
}

std::set<size_t> ManifestsToMerge(const std::vector<ManifestFile>& manifests,
                                  const CommitOptions& options) {
  // One size tier (live entries within a factor of kTierFactor), the tier with the most, the
  // lowest of equals. Merging every small manifest instead rewrote the one merged manifest, which
  // holds nearly every file of the table, at each merge_min_count-th commit: after 1,000 prior
  // commits that commit took 20x the others (bench/table_bench's p99), and the table's history
  // was rewritten O(commits²) times in all. By tiers each entry is rewritten about
  // log(commits) times, and the count of manifests stays as bounded.
  const auto entries_of = [&](size_t i) {
    const ManifestFile& m = manifests[i];
    return static_cast<uint64_t>(std::max(0, m.added_files)) +
           static_cast<uint64_t>(std::max(0, m.existing_files));
  };
  // At most half the entry cap each, so that any two fit in one merge.
  std::vector<size_t> small;
  for (size_t i = 0; i < manifests.size(); ++i) {
    if (manifests[i].length < options.merge_target_bytes &&
        entries_of(i) <= options.merge_max_entries / 2) {
      small.push_back(i);
    }
  }
  if (small.size() < 2) return {};
  const auto tier_of = [&](size_t i) {
    int tier = 0;
    for (uint64_t n = entries_of(i); n >= kTierFactor; n /= kTierFactor) ++tier;
    return tier;
  };
  std::map<int, std::vector<size_t>> tiers;
  for (size_t i : small) tiers[tier_of(i)].push_back(i);
  const std::vector<size_t>* chosen = &tiers.begin()->second;
  for (const auto& [tier, members] : tiers) {
    if (members.size() > chosen->size()) chosen = &members;
  }
  if (chosen->size() >= 2) {
    // In list order (oldest first, so a merged manifest covers neighbouring days) while the
    // merge stays within the cap; two always fit.
    std::set<size_t> out;
    uint64_t entries = 0;
    for (size_t i : *chosen) {
      if (out.size() >= 2 && entries + entries_of(i) > options.merge_max_entries) break;
      out.insert(i);
      entries += entries_of(i);
    }
    return out;
  }
  // Every tier holds one: the two smallest, so that the count still falls.
  std::sort(small.begin(), small.end(),
            [&](size_t a, size_t b) { return entries_of(a) < entries_of(b); });
  return {small[0], small[1]};
}

FilesCatalog::FilesCatalog(lake::Destination& destination, std::string lake_uri,
                           std::string table_key, TableSpec spec, CommitOptions options)
    : destination_(destination),
      lake_uri_(std::move(lake_uri)),
      table_key_(std::move(table_key)),
      spec_(std::move(spec)),
      options_(std::move(options)),
      random_(std::random_device{}()) {
  if (!options_.sleep) {
    options_.sleep = [](std::chrono::milliseconds d) { std::this_thread::sleep_for(d); };
  }
  if (options_.threads > 1) {
    pool_ = std::make_unique<WorkPool>(std::min<size_t>(options_.threads, 256));
  }
}

std::string FilesCatalog::MetadataKey(int64_t version) const {
  return table_key_ + "/metadata/" + kVersionPrefix + std::to_string(version) +
         std::string(kMetadataFileSuffix);
}

Result<std::string> FilesCatalog::KeyOf(const std::string& uri) const {
  const std::string prefix = lake_uri_ + "/";
  if (uri.compare(0, prefix.size(), prefix) != 0 || uri.size() == prefix.size()) {
    return Status::Reject("iceberg: " + uri + " is outside the lake " + lake_uri_);
  }
  return uri.substr(prefix.size());
}

Result<std::string> FilesCatalog::ReadWhole(const std::string& key) {
  return destination_.Read(key, 0, kWhole);
}

Result<bool> FilesCatalog::Exists(const std::string& key) {
  Result<std::string> first = destination_.Read(key, 0, 1);
  if (first.ok()) return true;
  if (first.status().IsNotFound()) return false;
  return first.status();
}

Result<int64_t> FilesCatalog::HighestListed() {
  const std::string prefix = table_key_ + "/metadata/" + kVersionPrefix;
  SINKD_ASSIGN_OR_RETURN(const std::vector<lake::StoredObject> objects, destination_.List(prefix));
  int64_t highest = 0;
  const std::string_view suffix = kMetadataFileSuffix;
  for (const lake::StoredObject& o : objects) {
    std::string_view name = std::string_view(o.key).substr(prefix.size());
    if (name.size() <= suffix.size() || !name.ends_with(suffix)) continue;
    name.remove_suffix(suffix.size());
    const std::optional<int64_t> n = ParseVersion(name);
    if (n && *n > highest) highest = *n;
  }
  return highest;
}

Result<LoadedTable> FilesCatalog::Load() {
  LoadedTable loaded;
  Result<std::string> hint = destination_.Read(HintKey(), 0, 32);
  if (!hint.ok() && !hint.status().IsNotFound()) return hint.status();
  if (hint.ok()) loaded.hint = ParseVersion(*hint).value_or(0);
  int64_t version = loaded.hint;
  // A hint may name a version that is gone (a table copied without it, a metadata file removed
  // by hand): then, as with no hint, the listing decides where probing starts.
  if (version > 0) {
    SINKD_ASSIGN_OR_RETURN(const bool there, Exists(MetadataKey(version)));
    if (!there) version = 0;
  }
  if (version == 0) {
    SINKD_ASSIGN_OR_RETURN(version, HighestListed());
  }
  for (int64_t probes = 0;; ++probes) {
    if (probes == kMaxProbe) return Status::Internal("iceberg: probing never ended");
    SINKD_ASSIGN_OR_RETURN(const bool next, Exists(MetadataKey(version + 1)));
    if (!next) break;
    ++version;
  }
  loaded.version = version;
  if (version == 0) return loaded;
  loaded.key = MetadataKey(version);
  SINKD_ASSIGN_OR_RETURN(std::string json, ReadWhole(loaded.key));
  SINKD_ASSIGN_OR_RETURN(loaded.metadata, Parsed(loaded.key, std::move(json)));
  return loaded;
}

std::string FilesCatalog::NoTableReason() const {
  return "no metadata/v<N>.metadata.json";
}

Result<TableMetadata> FilesCatalog::Parsed(const std::string& key, std::string json) {
  if (cache_ && cache_->key == key && cache_->json == json) return cache_->metadata;
  Result<TableMetadata> parsed = ParseTableMetadata(json);
  if (!parsed.ok()) return parsed.status().WithContext(Uri(key));
  cache_ = Cached{key, std::move(json), *parsed};
  return parsed;
}

Result<lake::Placed> FilesCatalog::Create(const std::string& key, const std::string& bytes) {
  SINKD_ASSIGN_OR_RETURN(std::unique_ptr<lake::PartUpload> upload, destination_.Begin(key));
  const Status appended =
      upload->Append({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
  if (!appended.ok()) {
    upload->Abort();
    return appended;
  }
  return upload->Commit();
}

Status Catalog::Published(const LoadedTable&) { return Status::OK(); }

void FilesCatalog::Remember(std::string key, std::string json, TableMetadata metadata) {
  cache_ = Cached{std::move(key), std::move(json), std::move(metadata)};
}

Result<Swapped> FilesCatalog::Swap(const LoadedTable& base, TableMetadata next,
                                   const std::string& commit_id) {
  Swapped swapped;
  swapped.version = base.version + 1;
  const std::string key = MetadataKey(swapped.version);
  std::string json = ToJson(next);
  SINKD_ASSIGN_OR_RETURN(const lake::Placed created, Create(key, json));
  if (created == lake::Placed::kNew) Remember(key, std::move(json), std::move(next));
  if (created == lake::Placed::kTaken) {
    // Someone's v<N+1>. Ours only if an earlier answer was lost and a store's "same bytes"
    // test could not tell (an S3 ETag we cannot reproduce): the commit id decides.
    Result<std::string> there = ReadWhole(key);
    if (there.ok()) {
      Result<TableMetadata> theirs = ParseTableMetadata(*there);
      swapped.won = theirs.ok() && HoldsCommit(*theirs, commit_id);
    }
    if (!swapped.won) return swapped;
  }
  // Written but maybe not durable when this fails: unknown, like a lost answer.
  SINKD_RETURN_IF_ERROR(destination_.Sync());
  swapped.won = true;
  swapped.hint_written = WriteHint(swapped.version).ok();
  return swapped;
}

Status FilesCatalog::Published(const LoadedTable& current) { return WriteHint(current.version); }

Status FilesCatalog::WriteHint(int64_t version) {
  // Forward only: a committer that finished after us may have written a higher number; and one
  // that committed after us may have written its hint before ours, so after writing we look for
  // a newer version and move the hint on to it. Bounded: each round needs a new commit.
  for (int round = 0; round < 4; ++round) {
    Result<std::string> current = destination_.Read(HintKey(), 0, 32);
    if (!current.ok() && !current.status().IsNotFound()) {
      return current.status();
    }
    const int64_t there = current.ok() ? ParseVersion(*current).value_or(0) : 0;
    if (there < version) {
      SINKD_RETURN_IF_ERROR(destination_.Replace(HintKey(), std::to_string(version)));
      SINKD_RETURN_IF_ERROR(destination_.Sync());
    }
    SINKD_ASSIGN_OR_RETURN(const bool newer, Exists(MetadataKey(version + 1)));
    if (!newer) return Status::OK();
    ++version;
    for (;;) {
      SINKD_ASSIGN_OR_RETURN(const bool next, Exists(MetadataKey(version + 1)));
      if (!next) break;
      ++version;
    }
  }
  return Status::OK();
}

std::string FilesCatalog::NewUuid() {
  // Version 4 (random), RFC 9562's 8-4-4-4-12 form.
  uint64_t hi = random_(), lo = random_();
  hi = (hi & ~uint64_t{0xF000}) | 0x4000;
  lo = (lo & ~(uint64_t{0xC} << 60)) | (uint64_t{0x8} << 60);
  char text[37];
  std::snprintf(text, sizeof text, "%08x-%04x-%04x-%04x-%012llx", static_cast<unsigned>(hi >> 32),
                static_cast<unsigned>((hi >> 16) & 0xFFFF), static_cast<unsigned>(hi & 0xFFFF),
                static_cast<unsigned>(lo >> 48),
                static_cast<unsigned long long>(lo & 0xFFFF'FFFF'FFFFull));
  return text;
}

Result<FilesCatalog::Entries> FilesCatalog::Decoded(const ManifestFile& m, bool keep) {
  auto kept = decoded_.find(m.path);
  if (kept != decoded_.end() && kept->second.length == m.length) {
    DecodedManifest& d = kept->second;
    if (!d.entries && d.build) {
      d.entries = std::make_shared<const std::vector<ManifestEntry>>(d.build());
      d.build = nullptr;
    }
    if (d.entries) return d.entries;
  }
  SINKD_ASSIGN_OR_RETURN(const std::string key, KeyOf(m.path));
  SINKD_ASSIGN_OR_RETURN(const std::string bytes, ReadWhole(key));
  Result<std::vector<ManifestEntry>> read = ReadManifest(bytes, spec_, pool_.get());
  if (!read.ok()) return read.status().WithContext(m.path);
  auto entries = std::make_shared<const std::vector<ManifestEntry>>(std::move(*read));
  if (keep) decoded_[m.path] = {m.length, entries};
  return Entries(std::move(entries));
}

Result<std::vector<ManifestFile>> FilesCatalog::MergeSmall(std::vector<ManifestFile> manifests,
                                                           const std::string& key,
                                                           int64_t snapshot_id, int64_t sequence,
                                                           bool& merged) {
  merged = false;
  const std::set<size_t> merging = ManifestsToMerge(manifests, options_);
  if (merging.empty()) return manifests;
  std::vector<ManifestFile> kept, to_merge;
  for (size_t i = 0; i < manifests.size(); ++i) {
    (merging.count(i) ? to_merge : kept).push_back(std::move(manifests[i]));
  }
  std::vector<BorrowedEntry> entries;
  std::vector<Entries> sources;  // what `entries` borrows from
  for (const ManifestFile& m : to_merge) {
    SINKD_ASSIGN_OR_RETURN(const Entries read, Decoded(m, false));
    sources.push_back(read);
    for (const ManifestEntry& e : *read) {
      // A DELETED entry only says what its own snapshot removed; it has no place in a later one.
      if (e.status == EntryStatus::kDeleted) continue;
      // What an ADDED entry inherited from the list is written out: the spec requires explicit
      // numbers on EXISTING entries, and they must stay those of the snapshot that added it.
      entries.push_back(BorrowedEntry{EntryStatus::kExisting,
                                      e.snapshot_id.value_or(m.added_snapshot_id),
                                      e.sequence_number.value_or(m.sequence_number),
                                      e.file_sequence_number.value_or(m.sequence_number), &e.file});
    }
  }
  SINKD_ASSIGN_OR_RETURN(Manifest manifest, WriteManifest(spec_, Uri(key), snapshot_id, sequence,
                                                          entries, options_.codec, pool_.get()));
  SINKD_ASSIGN_OR_RETURN(const lake::Placed placed, Create(key, manifest.bytes));
  if (placed == lake::Placed::kTaken) {
    return Status::Internal("iceberg: the merged manifest's name " + key + " is taken");
  }
  merged = true;
  kept.push_back(std::move(manifest.file));
  return kept;
}

Result<FilesCatalog::Removal> FilesCatalog::RemoveFiles(std::vector<ManifestFile> manifests,
                                                        const std::vector<std::string>& removed,
                                                        const std::string& key,
                                                        int64_t snapshot_id, int64_t sequence) {
  Removal out;
  std::set<std::string> left(removed.begin(), removed.end());
  // The rewrite's entries borrow their files from the decoded manifests, held by `sources`.
  std::vector<BorrowedEntry> entries;
  std::vector<Entries> sources;
  std::set<std::pair<int32_t, std::vector<std::string>>> partitions;
  for (ManifestFile& m : manifests) {
    if (left.empty()) {
      out.kept.push_back(std::move(m));
      continue;
    }
    SINKD_ASSIGN_OR_RETURN(const Entries read, Decoded(m, false));
    bool names_one = false;
    for (const ManifestEntry& e : *read) {
      if (e.status != EntryStatus::kDeleted && left.count(e.file.path) > 0) names_one = true;
    }
    if (!names_one) {
      out.kept.push_back(std::move(m));
      continue;
    }
    sources.push_back(read);
    for (const ManifestEntry& from : *read) {
      // An earlier snapshot's DELETED entry has no place in this one (as in MergeSmall).
      if (from.status == EntryStatus::kDeleted) continue;
      BorrowedEntry e{EntryStatus::kExisting, from.snapshot_id.value_or(m.added_snapshot_id),
                      from.sequence_number.value_or(m.sequence_number),
                      from.file_sequence_number.value_or(m.sequence_number), &from.file};
      if (left.erase(from.file.path) > 0) {
        // Spec: a DELETED entry names the snapshot that deleted it and keeps its numbers.
        e.status = EntryStatus::kDeleted;
        e.snapshot_id = snapshot_id;
        ++out.counts.files;
        out.counts.records += from.file.records;
        out.counts.bytes += from.file.file_size;
        partitions.insert({from.file.day, from.file.values});
      }
      entries.push_back(e);
    }
  }
  if (!left.empty()) {
    return Status::NotFound("iceberg: " + *left.begin() +
                            " is no longer in the table (another replace removed it)");
  }
  out.counts.partitions = partitions.size();
  if (entries.empty()) return out;
  SINKD_ASSIGN_OR_RETURN(Manifest manifest, WriteManifest(spec_, Uri(key), snapshot_id, sequence,
                                                          entries, options_.codec, pool_.get()));
  SINKD_ASSIGN_OR_RETURN(const lake::Placed placed, Create(key, manifest.bytes));
  if (placed == lake::Placed::kTaken) {
    return Status::Internal("iceberg: the rewritten manifest's name " + key + " is taken");
  }
  if (!decoded_.empty()) {
    // A pass that commits its merges in several replaces rewrites this manifest again next; one
    // that commits once never reads it, so its entries are copied only when asked for.
    decoded_[manifest.file.path] = {
        manifest.file.length, nullptr,
        [sources = std::move(sources), entries = std::move(entries)] {
          std::vector<ManifestEntry> built;
          built.reserve(entries.size());
          for (const BorrowedEntry& e : entries) {
            built.push_back(ManifestEntry{e.status, e.snapshot_id, e.sequence_number,
                                          e.file_sequence_number, *e.file});
          }
          return built;
        }};
  }
  out.rewritten = std::move(manifest.file);
  return out;
}

Result<CommitReport> FilesCatalog::Commit(const Append& append) {
  return Run({&append.files, nullptr, append.marks, append.fresh});
}

Result<CommitReport> FilesCatalog::CommitReplace(const Replace& replace) {
  if (replace.removed.empty()) return Status::Refuse("iceberg: a replace must remove a file");
  // Its positions are its base's, whatever they are then: Run carries them into every snapshot.
  const auto needs_table = [](const TableMetadata* base) -> Result<Summary> {
    if (base == nullptr || base->Current() == nullptr) {
      return Status::Refuse("iceberg: a replace needs a table with a snapshot");
    }
    return Summary{};
  };
  return Run({&replace.added, &replace.removed, needs_table});
}

Result<CommitReport> FilesCatalog::CommitMetadata(const MetadataChange& change) {
  SINKD_RETURN_IF_ERROR(options_.Validate());
  CommitReport report;
  Status last = Status::OK();
  for (int attempt = 1; attempt <= options_.attempts; ++attempt) {
    report.attempts = attempt;
    if (attempt > 1) {
      const double unit = std::uniform_real_distribution<double>(0.0, 1.0)(random_);
      options_.sleep(options_.backoff.Wait(attempt - 1, unit));
    }
    Result<LoadedTable> base = Load();
    if (!base.ok()) {
      last = base.status();
      if (last.IsReject()) return last;
      continue;
    }
    if (!base->metadata) {
      return Status::NotFound("iceberg: no table at " + location() + " (" + NoTableReason() + ")");
    }
    SINKD_ASSIGN_OR_RETURN(std::optional<TableMetadata> next,
                           change(*base->metadata, Uri(base->key)));
    report.snapshot_id = base->metadata->current_snapshot_id.value_or(0);
    if (!next) {
      report.version = base->version;
      return report;
    }
    // Never earlier than the base's: readers order metadata files by it.
    next->last_updated_ms = std::max(NowMs(), base->metadata->last_updated_ms + 1);
    // Through the catalog's own compare-and-swap, so that every catalog (files, sql) expires
    // alike. The id names no snapshot: a swap whose answer was lost is simply tried again, and the
    // change re-applied to the newest metadata is the same change (or none).
    Result<Swapped> swapped = Swap(*base, std::move(*next), NewUuid());
    if (!swapped.ok()) {
      last = swapped.status();
      continue;
    }
    if (!swapped->won) {
      last = Status::Redeliver("iceberg: lost the race for version " +
                               std::to_string(base->version + 1) + " of " + location());
      continue;
    }
    report.version = swapped->version;
    report.hint_written = swapped->hint_written;
    return report;
  }
  return Status::Redeliver("iceberg: metadata change of " + location() + " failed after " +
                           std::to_string(options_.attempts) + " attempts: " + last.message());
}

Result<CommitReport> FilesCatalog::Run(const Change& change) {
  SINKD_RETURN_IF_ERROR(options_.Validate());
  CommitReport report;
  report.commit_id = NewUuid();
  const std::string metadata_dir = table_key_ + "/metadata/";

  // The manifests of the added files, once: their entries inherit the sequence number the list
  // gives, so every attempt names the same files. One manifest per merge_max_entries files, so
  // that every manifest stays readable (a commit of a whole lake's Parts: table register).
  std::vector<std::string> manifest_keys;
  std::vector<ManifestFile> ours_manifests;
  const auto drop_manifests = [&] {
    for (const std::string& key : manifest_keys) (void)destination_.Delete(key);
  };
  const size_t per_manifest = std::max<uint64_t>(1, options_.merge_max_entries);
  for (size_t first = 0; first == 0 || first < change.added->size(); first += per_manifest) {
    std::vector<ManifestEntry> entries;
    for (size_t i = first; i < change.added->size() && i < first + per_manifest; ++i) {
      entries.push_back({EntryStatus::kAdded, {}, {}, {}, (*change.added)[i]});
    }
    const std::string manifest_key =
        metadata_dir + report.commit_id + "-m" + std::to_string(manifest_keys.size()) + ".avro";
    Result<Manifest> manifest =
        WriteManifest(spec_, Uri(manifest_key), 0, 0, entries, options_.codec);
    if (!manifest.ok()) {
      drop_manifests();
      return manifest.status();
    }
    Result<lake::Placed> placed_manifest = Create(manifest_key, manifest->bytes);
    if (!placed_manifest.ok()) {
      drop_manifests();
      return placed_manifest.status();
    }
    if (*placed_manifest == lake::Placed::kTaken) {
      drop_manifests();
      return Status::Internal("iceberg: the new manifest's name " + manifest_key + " is taken");
    }
    manifest_keys.push_back(manifest_key);
    ours_manifests.push_back(std::move(manifest->file));
  }
  const AppendCounts counts = CountsOf(*change.added);

  Status last = Status::OK();
  bool unknown = false;  // an attempt whose create may have landed without our hearing of it
  for (int attempt = 1; attempt <= options_.attempts; ++attempt) {
    report.attempts = attempt;
    if (attempt > 1) {
      const double unit = std::uniform_real_distribution<double>(0.0, 1.0)(random_);
      options_.sleep(options_.backoff.Wait(attempt - 1, unit));
    }
    Result<LoadedTable> base = Load();
    if (!base.ok()) {
      last = base.status();
      if (last.IsReject()) return last;
      continue;
    }
    const TableMetadata* newest = base->metadata ? &*base->metadata : nullptr;
    if (newest != nullptr && HoldsCommit(*newest, report.commit_id)) {
      // An earlier attempt's create landed and its answer was lost. Which version holds it is
      // not needed by anyone; the newest does (or a later one built on it).
      for (const Snapshot& s : newest->snapshots) {
        const std::string* id = s.Find(kCommitIdKey);
        if (id != nullptr && *id == report.commit_id) report.snapshot_id = s.id;
      }
      report.version = base->version;
      report.hint_written = Published(*base).ok();
      return report;
    }
    if (change.fresh && newest != nullptr && newest->location == location()) {
      if (!unknown) drop_manifests();
      return Status::Refuse("iceberg: the table's metadata " + Uri(base->key) +
                            " already names this location (" + location() +
                            "): a new table there would drop its snapshots");
    }
    // The metadata this commit builds on: none for a new table.
    const TableMetadata* parent = change.fresh ? nullptr : newest;
    Summary extra = {{kCommitIdKey, report.commit_id}};
    if (change.marks) {
      Result<Summary> marks = change.marks(parent);
      if (!marks.ok()) {
        if (!unknown) drop_manifests();
        return marks.status();
      }
      extra.insert(extra.end(), marks->begin(), marks->end());
    }
    // Every snapshot sinkd writes carries the table's positions (positions.h), whatever the
    // caller marks: an import's append records none of its own, and a current snapshot without
    // them made expiry keep every snapshot down to one that had them.
    if (std::none_of(extra.begin(), extra.end(),
                     [](const auto& kv) { return kv.first == kPositionsKey; })) {
      Result<Positions> carried = CommittedPositions(parent);
      if (!carried.ok()) {
        if (!unknown) drop_manifests();
        return carried.status();
      }
      if (!carried->empty()) extra.emplace_back(kPositionsKey, PositionsJson(*carried));
    }

    // The parent's manifests, then ours under this attempt's snapshot and sequence number.
    std::vector<ManifestFile> manifests;
    if (parent != nullptr && parent->Current() != nullptr) {
      Result<std::string> list_key = KeyOf(parent->Current()->manifest_list);
      if (!list_key.ok()) return list_key.status();
      Result<std::string> list = ReadWhole(*list_key);
      if (!list.ok()) {
        last = list.status();
        continue;
      }
      Result<std::vector<ManifestFile>> listed = ReadManifestList(*list);
      if (!listed.ok()) return listed.status().WithContext(Uri(*list_key));
      manifests = std::move(*listed);
    }
    const int64_t snapshot_id = SnapshotIdFrom(random_());
    const int64_t sequence = parent != nullptr ? parent->last_sequence_number + 1 : 1;
    const std::string merged_key =
        metadata_dir + report.commit_id + "-merged-" + std::to_string(snapshot_id) + ".avro";
    const std::string rewritten_key =
        metadata_dir + report.commit_id + "-rewritten-" + std::to_string(snapshot_id) + ".avro";
    std::optional<ManifestFile> rewritten;
    AppendCounts removed;
    if (change.removed != nullptr) {
      Result<Removal> removal =
          RemoveFiles(std::move(manifests), *change.removed, rewritten_key, snapshot_id, sequence);
      if (!removal.ok()) {
        last = removal.status();
        if (last.IsNotFound()) {
          // Another replace took one of our files first: this one is dropped, nothing named ours.
          if (!unknown) drop_manifests();
          return last;
        }
        if (last.IsReject() || last.IsInternal()) return last;
        continue;
      }
      manifests = std::move(removal->kept);
      rewritten = std::move(removal->rewritten);
      removed = removal->counts;
    }
    bool merged = false;
    if (options_.merge_min_count > 0 &&
        manifests.size() + 1 > static_cast<size_t>(options_.merge_min_count)) {
      Result<std::vector<ManifestFile>> merging =
          MergeSmall(std::move(manifests), merged_key, snapshot_id, sequence, merged);
      if (!merging.ok()) {
        last = merging.status();
        if (last.IsReject() || last.IsInternal()) return last;
        continue;
      }
      manifests = std::move(*merging);
    }
    if (rewritten) manifests.push_back(*rewritten);
    for (ManifestFile ours : ours_manifests) {
      ours.added_snapshot_id = snapshot_id;
      ours.sequence_number = sequence;
      ours.min_sequence_number = sequence;
      manifests.push_back(std::move(ours));
    }
    const std::optional<int64_t> parent_id =
        parent != nullptr ? parent->current_snapshot_id : std::nullopt;
    SINKD_ASSIGN_OR_RETURN(
        const std::string list_bytes,
        WriteManifestList(manifests, snapshot_id, parent_id, sequence, options_.codec));
    const std::string list_key =
        metadata_dir + "snap-" + std::to_string(snapshot_id) + "-" + report.commit_id + ".avro";
    Result<lake::Placed> placed_list = Create(list_key, list_bytes);
    if (!placed_list.ok()) {
      last = placed_list.status();
      continue;
    }
    // Everything v<N+1> names must survive a power cut before v<N+1> can.
    if (Status synced = destination_.Sync(); !synced.ok()) {
      last = synced;
      continue;
    }

    const int64_t now = NowMs();
    const std::string previous = parent != nullptr ? Uri(base->key) : "";
    // Moved out of `base` (the attempt's own copy; a retry loads again), never copied: a table
    // kept at expiry's defaults holds 1,440 snapshots, and copying them was a commit's cost.
    TableMetadata start = parent != nullptr ? std::move(*base->metadata)
                                            : NewTable(spec_, NewUuid(), location(), now);
    Snapshot snapshot =
        ReplaceSnapshot(start, snapshot_id, now, Uri(list_key), counts, removed, extra);
    TableMetadata next = WithSnapshot(std::move(start), std::move(snapshot), now, previous);
    Result<Swapped> swapped = Swap(*base, std::move(next), report.commit_id);
    if (!swapped.ok()) {
      // Maybe done, maybe not: the next attempt's Load finds our commit id if it was.
      last = swapped.status();
      unknown = true;
      continue;
    }
    if (!swapped->won) {
      last = Status::Redeliver("iceberg: lost the race for " + location() + " at version " +
                               std::to_string(base->version + 1));
      // Named by nothing: the current metadata is another's.
      (void)destination_.Delete(list_key);
      if (merged) (void)destination_.Delete(merged_key);
      if (rewritten) (void)destination_.Delete(rewritten_key);
      continue;
    }
    report.version = swapped->version;
    report.snapshot_id = snapshot_id;
    report.hint_written = swapped->hint_written;
    // What the new snapshot no longer names is no use to a later replace.
    std::erase_if(decoded_, [&](const auto& kept) {
      return std::none_of(manifests.begin(), manifests.end(),
                          [&](const ManifestFile& m) { return m.path == kept.first; });
    });
    return report;
  }
  if (!unknown) drop_manifests();
  return Status::Redeliver("iceberg: commit to " + location() + " failed after " +
                           std::to_string(options_.attempts) + " attempts: " + last.message());
}

}  // namespace sinkd::iceberg
