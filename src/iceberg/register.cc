#include "iceberg/register.h"

#include <algorithm>
#include <set>

#include "iceberg/data_file.h"
#include "iceberg/maintenance.h"
#include "iceberg/sql_catalog.h"
#include "lake/stamp.h"
#include "parquet/file_statistics.h"
#include "parquet/part_reader.h"
#include "table/footer.h"
#include "table/key.h"

namespace sinkd::iceberg {

namespace {

// One Part of the listing with what its footer says.
struct FoundPart {
  lake::StoredObject object;
  table::ObjectKey key;
  parquet::FileFooter footer;
  std::vector<lake::FlushStamp> stamps;
};

Result<parquet::FileFooter> ReadPartFooter(lake::Destination& destination,
                                           const lake::StoredObject& object) {
  Result<parquet::FileFooter> footer = parquet::ReadFooter(
      [&](uint64_t offset, uint64_t length) {
        return destination.Read(object.key, offset, length);
      },
      object.size, object.key);
  if (!footer.ok() && footer.status().IsRefuse()) {
    return Status::Refuse("table register: " + footer.status().message() +
                          " (a Part whose footer cannot be read is not adopted; move it away)");
  }
  return footer;
}

// Every Part of the table under `prefix`, its footer read; Refuse naming one that is unreadable.
Result<std::vector<FoundPart>> FindParts(lake::Destination& destination,
                                         const row::ColumnTable& columns,
                                         const std::string& prefix) {
  SINKD_ASSIGN_OR_RETURN(const std::vector<lake::StoredObject> listed,
                         destination.List(prefix + "/"));
  std::vector<FoundPart> parts;
  for (const lake::StoredObject& object : listed) {
    std::optional<table::ObjectKey> key = table::ParseObjectKey(columns, prefix, object.key);
    if (!key) continue;  // metadata, a foreign file: not a Part of the table
    SINKD_ASSIGN_OR_RETURN(parquet::FileFooter footer, ReadPartFooter(destination, object));
    FoundPart part{object, std::move(*key), std::move(footer), {}};
    if (auto stamps = part.footer.Find(table::kStampsKey)) {
      Result<std::vector<lake::FlushStamp>> parsed = lake::ParseStamps(*stamps);
      if (!parsed.ok()) return parsed.status().WithContext("table register: " + object.key);
      part.stamps = std::move(*parsed);
    }
    parts.push_back(std::move(part));
  }
  return parts;
}

// The exact partition values of a Part: its key's when whole, else its column's bounds when they
// agree (the value is a column of every Part: table/key.h).
Result<std::vector<std::string>> PartitionValues(const TableSpec& spec, const FoundPart& part,
                                                 const parquet::FileStatistics& statistics) {
  if (part.key.exact) return part.key.values;
  std::vector<std::string> values;
  for (size_t i = 1; i < spec.partition.size(); ++i) {
    const PartitionField& field = spec.partition[i];
    const parquet::ColumnSummary* column = nullptr;
    for (const parquet::ColumnSummary& c : statistics.columns) {
      if (c.field_id == field.source_id) column = &c;
    }
    if (column == nullptr || !column->min || !column->max || *column->min != *column->max) {
      return Status::Refuse("table register: " + part.object.key + ": the key shortens the " +
                            field.name + " value and the Part's footer has no exact bound for it");
    }
    values.push_back(*column->min);
  }
  return values;
}

// The entry of `part` at `uri`, from its footer read back.
Result<DataFile> EntryOf(const TableSpec& spec, const FoundPart& part, const std::string& uri,
                         const std::vector<std::string>* values) {
  const parquet::FileStatistics statistics = parquet::Summarize(part.footer);
  std::vector<std::string> own;
  if (values == nullptr) {
    SINKD_ASSIGN_OR_RETURN(own, PartitionValues(spec, part, statistics));
    values = &own;
  }
  Result<DataFile> file = DataFileOf(spec, uri, part.object.size, *values, statistics);
  if (!file.ok()) {
    return Status::Refuse("table register: " + part.object.key + ": " + file.status().message());
  }
  return file;
}

std::function<Result<Summary>(const TableMetadata*)> MergedPositions(Positions add) {
  return [add = std::move(add)](const TableMetadata* base) -> Result<Summary> {
    SINKD_ASSIGN_OR_RETURN(const Positions committed, CommittedPositions(base));
    const Positions all = Merge(committed, add);
    if (all.empty()) return Summary{};
    return Summary{{kPositionsKey, PositionsJson(all)}};
  };
}

Result<RegisterReport> Rebuild(FilesCatalog& catalog, lake::Destination& destination,
                               const row::ColumnTable& columns, const std::string& prefix,
                               const LoadedTable& loaded) {
  RegisterReport report;
  const TableMetadata& old = *loaded.metadata;
  report.replaced_location = old.location;
  const std::string old_prefix = old.location + "/";
  // The copy holds the old table's objects at the same keys under the table's prefix.
  const KeyOfUri key_of = [&](const std::string& uri) -> Result<std::string> {
    if (uri.compare(0, old_prefix.size(), old_prefix) != 0) {
      return Status::Refuse("table register --replace-metadata: " + catalog.Uri(loaded.key) +
                            " names " + uri + ", outside its location " + old.location);
    }
    return prefix + "/" + uri.substr(old_prefix.size());
  };
  SINKD_ASSIGN_OR_RETURN(const std::vector<DataFile> named,
                         CurrentDataFiles(destination, old, key_of));
  SINKD_ASSIGN_OR_RETURN(const Positions positions, CommittedPositions(&old));
  SINKD_ASSIGN_OR_RETURN(const std::vector<lake::StoredObject> listed,
                         destination.List(prefix + "/"));
  std::map<std::string, const lake::StoredObject*> by_key;
  for (const lake::StoredObject& o : listed) by_key[o.key] = &o;
  const TableSpec spec = SpecOf(columns);
  Append append;
  for (const DataFile& was : named) {
    SINKD_ASSIGN_OR_RETURN(const std::string key, key_of(was.path));
    auto it = by_key.find(key);
    if (it == by_key.end()) {
      return Status::Refuse(
          "table register --replace-metadata: the table's current snapshot "
          "names " +
          was.path + ", and " + catalog.Uri(key) + " is not in this lake (copy the whole table)");
    }
    std::optional<table::ObjectKey> parsed = table::ParseObjectKey(columns, prefix, key);
    if (!parsed) {
      return Status::Refuse("table register --replace-metadata: " + was.path +
                            " is not a Part of the table " + std::string(columns.name));
    }
    SINKD_ASSIGN_OR_RETURN(parquet::FileFooter footer, ReadPartFooter(destination, *it->second));
    const FoundPart part{*it->second, std::move(*parsed), std::move(footer), {}};
    SINKD_ASSIGN_OR_RETURN(DataFile file, EntryOf(spec, part, catalog.Uri(key), &was.values));
    report.records += file.records;
    report.bytes += file.file_size;
    report.added.push_back(key);
    append.files.push_back(std::move(file));
  }
  std::sort(report.added.begin(), report.added.end());
  append.fresh = true;
  append.marks = MergedPositions(positions);
  SINKD_ASSIGN_OR_RETURN(report.commit, catalog.Commit(append));
  return report;
}

}  // namespace

Result<Positions> PositionsOfStamps(const std::vector<lake::FlushStamp>& stamps,
                                    const std::map<std::string, std::string>& stream_created) {
  Positions out;
  for (const lake::FlushStamp& s : stamps) {
    std::vector<lake::SequenceRange> acked = s.acked;
    if (acked.empty()) acked.push_back({s.first, s.last});
    if (s.scope == "stream") {
      auto created = stream_created.find(s.source);
      if (created == stream_created.end()) created = stream_created.find("*");
      if (created == stream_created.end()) {
        return Status::Refuse("table register: Parts of stream " + s.source +
                              " record its sequences; the table keys them by the stream's "
                              "creation time, which no Part carries: give it (--stream-created, "
                              "as `nats stream info " +
                              s.source + "` shows it)");
      }
      Positions one;
      one.streams[StreamIdentity(s.source, created->second)] = MergeRanges(std::move(acked));
      out = Merge(std::move(out), one);
    } else if (s.scope == "outbox") {
      constexpr std::string_view kOutbox = "outbox:";
      const std::string sink =
          s.source.starts_with(kOutbox) ? s.source.substr(kOutbox.size()) : s.source;
      uint64_t& mark = out.outbox[sink];
      mark = std::max(mark, s.last);
    }
    // "run" (import): its numbers mean nothing across runs; the table records none for it.
  }
  return out;
}

Result<RegisterReport> Register(FilesCatalog& catalog, lake::Destination& destination,
                                const row::ColumnTable& columns, const std::string& prefix,
                                const RegisterOptions& options) {
  std::string adopted;
  if (auto* sql = dynamic_cast<SqlCatalog*>(&catalog)) {
    SINKD_ASSIGN_OR_RETURN(adopted, sql->AdoptFilesTable(options.replace_metadata));
  }
  SINKD_ASSIGN_OR_RETURN(const LoadedTable loaded, catalog.Load());
  if (options.replace_metadata) {
    if (!loaded.metadata) {
      return Status::Refuse("table register --replace-metadata: no table metadata under " +
                            catalog.location() + "/metadata to rebuild (register without it)");
    }
    if (loaded.metadata->location == catalog.location()) {
      return Status::Refuse("table register --replace-metadata: " + catalog.Uri(loaded.key) +
                            " already names this location (" + catalog.location() +
                            "): nothing to rebuild");
    }
    SINKD_ASSIGN_OR_RETURN(RegisterReport rebuilt,
                           Rebuild(catalog, destination, columns, prefix, loaded));
    rebuilt.adopted = adopted;
    return rebuilt;
  }
  if (loaded.metadata && loaded.metadata->location != catalog.location()) {
    return Status::Refuse("table register: " + catalog.Uri(loaded.key) + " names the location " +
                          loaded.metadata->location + ", not " + catalog.location() +
                          " (a copied lake): rebuild it with --replace-metadata");
  }

  RegisterReport report;
  report.adopted = adopted;
  SINKD_ASSIGN_OR_RETURN(std::vector<FoundPart> parts, FindParts(destination, columns, prefix));
  std::vector<table::PresentObject> present;
  for (const FoundPart& p : parts) {
    std::vector<table::SupersededObject> supersedes;
    if (auto value = p.footer.Find(table::kSupersedesKey)) {
      Result<std::vector<table::SupersededObject>> parsed = table::ParseSupersedes(*value);
      if (!parsed.ok()) return parsed.status().WithContext("table register: " + p.object.key);
      supersedes = std::move(*parsed);
    }
    present.push_back({p.object.key, p.object.size, p.object.version, std::move(supersedes)});
  }
  const std::set<std::string> superseded = table::SupersededKeys(present);

  std::set<std::string> named;
  std::optional<int64_t> created;
  if (loaded.metadata) {
    created = TableCreatedMs(*loaded.metadata);
    const KeyOfUri key_of = [&](const std::string& uri) { return catalog.KeyOf(uri); };
    SINKD_ASSIGN_OR_RETURN(const std::vector<DataFile> files,
                           CurrentDataFiles(destination, *loaded.metadata, key_of));
    for (const DataFile& f : files) named.insert(f.path);
  }

  const TableSpec spec = SpecOf(columns);
  Append append;
  for (const FoundPart& p : parts) {
    if (superseded.count(p.object.key) > 0) {
      ++report.superseded;
      continue;
    }
    const std::string uri = catalog.Uri(p.object.key);
    if (named.count(uri) > 0) {
      ++report.already;
      continue;
    }
    // An unknown time (<= 0) is not known to be older than the table.
    if (created && (p.object.modified_unix_ms <= 0 || p.object.modified_unix_ms >= *created)) {
      report.not_adopted.push_back(p.object.key);
      continue;
    }
    SINKD_ASSIGN_OR_RETURN(DataFile file, EntryOf(spec, p, uri, nullptr));
    SINKD_ASSIGN_OR_RETURN(const Positions positions,
                           PositionsOfStamps(p.stamps, options.stream_created));
    report.seeded = Merge(std::move(report.seeded), positions);
    report.records += file.records;
    report.bytes += file.file_size;
    report.added.push_back(p.object.key);
    append.files.push_back(std::move(file));
  }
  if (append.files.empty()) return report;
  append.marks = MergedPositions(report.seeded);
  SINKD_ASSIGN_OR_RETURN(report.commit, catalog.Commit(append));
  return report;
}

}  // namespace sinkd::iceberg
