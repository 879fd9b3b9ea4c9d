// What the catalog tests share, on a directory lake and on S3: a committer that flushes real Parts
// with LakeWriter and commits each flush as one append through a FilesCatalog, the checks of a
// table's history after committers raced (every commit once, the parent chain whole), and icebird
// (npm, an independent reader) reading a table.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "iceberg/files_catalog.h"
#include "iceberg/positions.h"
#include "lake/lake_writer.h"
#include "row/ledger_columns.h"
#include "support/icebird.h"
#include "support/ledger_rows.h"
#include "support/support.h"

namespace sinkd::iceberg {

using testing::IcebirdRead;  // support/icebird.h, by the name these tests always used

struct Committed {
  std::vector<std::string> commit_ids;  // in commit order
  std::set<std::string> event_ids;      // every row committed
  int lost_races = 0;                   // attempts beyond the first, summed
};

// `flushes` flushes of `rows` rows, event ids "<instance>-<n>", each committed as one append;
// with a `stream` identity, each commit also records its flush's sequences (Marks).
inline Committed CommitFlushes(lake::Destination& destination, FilesCatalog& catalog,
                               const std::string& instance, int flushes, int rows,
                               const std::string& stream = "") {
  Committed out;
  lake::LakeWriterOptions options;
  options.key_prefix = "ledger";
  options.instance = instance;
  options.encode_threads = 1;
  lake::LakeWriter writer(destination, options);
  const TableSpec spec = SpecOf(row::kLedgerColumns);
  const char* apps[] = {"billing", "crm-sync"};
  for (int f = 0; f < flushes; ++f) {
    row::RowBuffer batch(row::kLedgerColumns);
    std::vector<std::string> ids;
    for (int i = 0; i < rows; ++i) {
      const int n = f * rows + i;
      ids.push_back(instance + "-" + std::to_string(n));
      testing::AddLedgerRow(batch, ids.back(), 1'767'225'600'000'000 + int64_t{1'000'000} * n,
                            apps[n % 2]);
    }
    const uint64_t first = uint64_t(f) * rows + 1;
    Result<lake::FlushReport> report =
        writer.Flush(batch, {"GARM_LEDGER", first, first + rows - 1});
    EXPECT_TRUE(report.ok()) << report.status().ToString();
    if (!report.ok()) return out;
    Append append;
    if (!stream.empty()) {
      BatchPositions batch;
      batch.positions.streams[stream] = {{first, first + rows - 1}};
      append.marks = Marks(std::move(batch));
    }
    for (const lake::PartReport& p : report->parts) {
      Result<DataFile> file = DataFileOf(spec, catalog.Uri(p.key), p.bytes, p.values, p.statistics);
      EXPECT_TRUE(file.ok()) << file.status().ToString();
      if (!file.ok()) return out;
      append.files.push_back(std::move(*file));
    }
    Result<CommitReport> committed = catalog.Commit(append);
    EXPECT_TRUE(committed.ok()) << committed.status().ToString();
    if (!committed.ok()) return out;
    out.commit_ids.push_back(committed->commit_id);
    out.lost_races += committed->attempts - 1;
    out.event_ids.insert(ids.begin(), ids.end());
  }
  return out;
}

// The history of `metadata` is exactly `commit_ids`, each once, on one unbroken chain from the
// current snapshot to the first, sequence numbers falling by one at each step, totals adding up.
inline void ExpectOneChainOf(const TableMetadata& metadata,
                             const std::vector<std::string>& commit_ids, uint64_t records) {
  std::map<int64_t, const Snapshot*> by_id;
  std::multiset<std::string> seen;
  for (const Snapshot& s : metadata.snapshots) {
    EXPECT_TRUE(by_id.emplace(s.id, &s).second) << "snapshot id " << s.id << " twice";
    const std::string* id = s.Find(kCommitIdKey);
    ASSERT_NE(id, nullptr);
    seen.insert(*id);
  }
  EXPECT_EQ(seen, std::multiset<std::string>(commit_ids.begin(), commit_ids.end()))
      << "every commit exactly once";
  size_t chain = 0;
  const Snapshot* s = metadata.Current();
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(*s->Find("total-records"), std::to_string(records));
  int64_t sequence = metadata.last_sequence_number;
  while (s != nullptr) {
    ++chain;
    EXPECT_EQ(s->sequence_number, sequence--);
    if (!s->parent_id) break;
    auto it = by_id.find(*s->parent_id);
    EXPECT_NE(it, by_id.end()) << "parent " << *s->parent_id << " missing";
    s = it == by_id.end() ? nullptr : it->second;
  }
  EXPECT_EQ(chain, metadata.snapshots.size()) << "one chain holds every snapshot";
  EXPECT_EQ(sequence, 0);
}

// The table's live data files, read from the current snapshot's manifests.
inline std::vector<DataFile> LiveFiles(lake::Destination& destination, FilesCatalog& catalog) {
  std::vector<DataFile> out;
  Result<LoadedTable> table = catalog.Load();
  EXPECT_TRUE(table.ok() && table->metadata && table->metadata->Current());
  if (!table.ok() || !table->metadata || !table->metadata->Current()) return out;
  const auto read = [&](const std::string& uri) {
    Result<std::string> key = catalog.KeyOf(uri);
    EXPECT_TRUE(key.ok());
    Result<std::string> bytes = destination.Read(*key, 0, uint64_t{1} << 40);
    EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
    return *bytes;
  };
  Result<std::vector<ManifestFile>> list =
      ReadManifestList(read(table->metadata->Current()->manifest_list));
  EXPECT_TRUE(list.ok());
  for (const ManifestFile& m : *list) {
    Result<std::vector<ManifestEntry>> entries =
        ReadManifest(read(m.path), SpecOf(row::kLedgerColumns));
    EXPECT_TRUE(entries.ok());
    for (const ManifestEntry& e : *entries) {
      if (e.status != EntryStatus::kDeleted) out.push_back(e.file);
    }
  }
  return out;
}

// A compactor's output: the rows of `ids` (as CommitFlushes wrote them for `instance`, n-th
// row at second n) flushed again by another writer, one Part per partition.
inline std::vector<DataFile> Rewritten(lake::Destination& destination, FilesCatalog& catalog,
                                const std::string& instance, int first, int count,
                                const std::string& writer_instance) {
  lake::LakeWriterOptions options;
  options.key_prefix = "ledger";
  options.instance = writer_instance;
  options.encode_threads = 1;
  lake::LakeWriter writer(destination, options);
  const char* apps[] = {"billing", "crm-sync"};
  row::RowBuffer batch(row::kLedgerColumns);
  for (int n = first; n < first + count; ++n) {
    testing::AddLedgerRow(batch, instance + "-" + std::to_string(n),
                          1'767'225'600'000'000 + int64_t{1'000'000} * n, apps[n % 2]);
  }
  std::vector<DataFile> out;
  Result<lake::FlushReport> report = writer.Flush(batch, {"GARM_LEDGER", uint64_t(first) + 1, uint64_t(first + count)});
  EXPECT_TRUE(report.ok()) << report.status().ToString();
  if (!report.ok()) return out;
  for (const lake::PartReport& p : report->parts) {
    Result<DataFile> file = DataFileOf(SpecOf(row::kLedgerColumns), catalog.Uri(p.key), p.bytes,
                                       p.values, p.statistics);
    EXPECT_TRUE(file.ok());
    out.push_back(std::move(*file));
  }
  return out;
}

}  // namespace sinkd::iceberg
