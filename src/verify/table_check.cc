#include "verify/table_check.h"

#include <algorithm>

#include "iceberg/maintenance.h"
#include "lake/stamp.h"
#include "parquet/file_statistics.h"
#include "table/footer.h"

namespace sinkd::verify {

namespace {

std::string DirOf(const std::string& key) {
  const size_t slash = key.rfind('/');
  return slash == std::string::npos ? std::string() : key.substr(0, slash);
}

std::string NameOf(const std::string& key) {
  const size_t slash = key.rfind('/');
  return slash == std::string::npos ? key : key.substr(slash + 1);
}

// Whether the stamp of a Part of one flush names the Part at `key`: the same directory and the
// name the flush meant, or that name moved to an alternative ("part-<instance>.<k>-…").
bool StampNames(const lake::FlushStamp& stamp, const std::string& key) {
  if (DirOf(stamp.key) != DirOf(key)) return false;
  const std::string meant = NameOf(stamp.key), name = NameOf(key);
  if (meant == name) return true;
  const std::string tail = "-" + std::to_string(stamp.first) + "-" + std::to_string(stamp.last) +
                           "-" + std::to_string(stamp.n) + ".parquet";
  if (!meant.ends_with(tail) || !name.ends_with(tail)) return false;
  const std::string stem = meant.substr(0, meant.size() - tail.size()) + ".";
  const std::string rest = name.substr(0, name.size() - tail.size());
  if (!rest.starts_with(stem) || rest.size() == stem.size()) return false;
  return std::all_of(rest.begin() + static_cast<std::ptrdiff_t>(stem.size()), rest.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

// What differs between the manifest's entry and the one the footer gives ("" when nothing).
std::string Difference(const iceberg::DataFile& manifest, const iceberg::DataFile& footer) {
  if (manifest.file_size != footer.file_size) {
    return "is " + std::to_string(footer.file_size) + " bytes, the manifest says " +
           std::to_string(manifest.file_size);
  }
  if (manifest.records != footer.records) {
    return "holds " + std::to_string(footer.records) + " rows, the manifest says " +
           std::to_string(manifest.records);
  }
  if (manifest.day != footer.day) return "holds rows of another day than the manifest's";
  if (manifest.split_offsets != footer.split_offsets) {
    return "has other row groups than the manifest says";
  }
  for (const iceberg::ColumnMetrics& m : manifest.columns) {
    auto it =
        std::find_if(footer.columns.begin(), footer.columns.end(),
                     [&](const iceberg::ColumnMetrics& f) { return f.field_id == m.field_id; });
    if (it == footer.columns.end()) {
      return "has no column of field id " + std::to_string(m.field_id) +
             ", which the manifest describes";
    }
    if (!(*it == m)) {
      return "has other statistics for the column of field id " + std::to_string(m.field_id) +
             " than the manifest";
    }
  }
  if (footer.columns.size() != manifest.columns.size()) {
    return "has other columns than the manifest describes";
  }
  return "";
}

}  // namespace

TableCheck::TableCheck(lake::Destination& destination, const row::ColumnTable& columns,
                       iceberg::FilesCatalog& catalog)
    : destination_(destination), columns_(columns), catalog_(catalog) {}

Status TableCheck::Prepare() {
  SINKD_ASSIGN_OR_RETURN(const iceberg::LoadedTable loaded, catalog_.Load());
  if (!loaded.metadata) return Status::OK();
  report_.metadata = catalog_.Uri(loaded.key);
  const iceberg::TableMetadata& m = *loaded.metadata;
  if (m.Current() != nullptr) report_.snapshot = m.Current()->id;
  SINKD_ASSIGN_OR_RETURN(report_.positions, iceberg::CommittedPositions(&m));
  const iceberg::KeyOfUri key_of = [&](const std::string& uri) { return catalog_.KeyOf(uri); };
  SINKD_ASSIGN_OR_RETURN(std::vector<iceberg::DataFile> files,
                         iceberg::CurrentDataFiles(destination_, m, key_of));
  for (iceberg::DataFile& f : files) {
    ++report_.files;
    report_.records += f.records;
    Result<std::string> key = catalog_.KeyOf(f.path);
    if (!key.ok()) {
      report_.problems.push_back({f.path, "is outside the lake " + destination_.Uri()});
      continue;
    }
    named_.emplace(*key, std::move(f));
  }
  return Status::OK();
}

void TableCheck::Observe(const lake::StoredObject& object, const parquet::FileFooter& footer) {
  auto it = named_.find(object.key);
  if (it == named_.end()) return;
  const iceberg::DataFile& entry = it->second;
  seen_[object.key] = true;
  const auto problem = [&](const std::string& what) {
    report_.problems.push_back({entry.path, what});
  };
  Result<iceberg::DataFile> read = iceberg::DataFileOf(
      iceberg::SpecOf(columns_), entry.path, object.size, entry.values, parquet::Summarize(footer));
  if (!read.ok()) {
    problem("cannot be the manifest's file: " + read.status().message());
    return;
  }
  const std::string difference = Difference(entry, *read);
  if (!difference.empty()) {
    problem(difference);
    return;
  }
  // A Part of one flush (not a compaction output, which carries its inputs' stamps) names itself.
  if (!NameOf(object.key).starts_with("part-")) return;
  if (auto stamps = footer.Find(table::kStampsKey)) {
    Result<std::vector<lake::FlushStamp>> parsed = lake::ParseStamps(*stamps);
    if (parsed.ok() && parsed->size() == 1 && !StampNames(parsed->front(), object.key)) {
      problem("carries the stamp of another Part (" + parsed->front().key + ")");
    }
  }
}

TableReport TableCheck::Finish(const VerifyInput& scanned) {
  VerifyInput view;
  view.dead_letters = scanned.dead_letters;
  view.expected = scanned.expected;
  view.from = scanned.from;
  view.to = scanned.to;
  view.small_part_bytes = scanned.small_part_bytes;
  for (const ObjectInfo& o : scanned.objects) {
    if (named_.count(o.key) > 0) view.objects.push_back(o);
  }
  for (const auto& [key, entry] : named_) {
    if (seen_.count(key) > 0) continue;
    const bool listed = std::any_of(scanned.objects.begin(), scanned.objects.end(),
                                    [&](const ObjectInfo& o) { return o.key == key; });
    report_.problems.push_back(
        {entry.path, listed ? "has a footer that cannot be read" : "does not exist"});
  }
  // Every sequence the table records, per stream (the space of a stream's stamps is its name).
  for (const auto& [identity, ranges] : report_.positions.streams) {
    const std::string stream = identity.substr(0, identity.rfind('@'));
    std::vector<lake::SequenceRange>& expected = view.expected[stream];
    expected.insert(expected.end(), ranges.begin(), ranges.end());
    expected = Merge(std::move(expected));
  }
  if (!report_.metadata.empty()) report_.view = Verify(view);
  return std::move(report_);
}

}  // namespace sinkd::verify
