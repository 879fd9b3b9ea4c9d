// A ledger table as the iceberg tests need it: real Parts written by LakeWriter into a directory
// lake (several apps over two days per flush), and an Iceberg table over them written with
// src/iceberg — one append snapshot per flush, each adding one manifest, the list naming every
// manifest so far — under <lake>/ledger/metadata as v1 (empty) … v<flushes+1>.metadata.json
// plus version-hint.text, the layout file-based readers find without a catalog.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "iceberg/manifest.h"
#include "iceberg/table_metadata.h"
#include "lake/dir_destination.h"
#include "lake/lake_writer.h"
#include "row/ledger_columns.h"
#include "support/ledger_rows.h"
#include "support/support.h"

namespace sinkd::iceberg {

struct LedgerTable {
  std::filesystem::path lake;   // the lake root
  std::filesystem::path table;  // <lake>/ledger
  std::vector<lake::PartReport> parts;
  std::vector<DataFile> files;
  std::vector<std::string> manifests;  // file:// URIs, oldest first
  std::vector<std::string> lists;      // one per snapshot
  std::vector<ManifestFile> listed;    // what the last list names
  uint64_t rows = 0;
  int versions = 0;  // metadata files written
};

inline std::string FileUri(const std::filesystem::path& p) { return "file://" + p.string(); }

inline void WriteBytes(const std::string& uri, const std::string& bytes) {
  testing::WriteFile(uri.substr(std::string("file://").size()), bytes);
}

// `flushes` flushes of `rows_per_flush` rows each; every id unique.
inline LedgerTable WriteLedgerTable(const std::filesystem::path& lake_root, int flushes,
                                    int rows_per_flush, avro::Codec codec = avro::Codec::kDeflate) {
  LedgerTable t;
  t.lake = lake_root;
  t.table = lake_root / "ledger";
  auto dest = lake::DirDestination::Make(lake_root.string());
  EXPECT_TRUE(dest.ok());
  EXPECT_TRUE((*dest)->Ensure().ok());
  lake::LakeWriterOptions options;
  options.key_prefix = "ledger";
  options.instance = "box-1";
  options.parquet.row_group_rows = 64;  // several row groups, so split offsets matter
  lake::LakeWriter writer(**dest, options);
  const TableSpec spec = SpecOf(row::kLedgerColumns);
  TableMetadata meta =
      NewTable(spec, "9f1c8a6e-3b0d-4a43-8d55-0c8f2f6f1a01", FileUri(t.table), 1'767'225'600'000);
  const auto write_metadata = [&] {
    ++t.versions;
    const std::string name = "v" + std::to_string(t.versions) + ".metadata.json";
    testing::WriteFile(t.table / "metadata" / name, ToJson(meta));
    testing::WriteFile(t.table / "metadata/version-hint.text", std::to_string(t.versions));
    return FileUri(t.table / "metadata" / name);
  };
  std::string previous = write_metadata();
  const char* apps[] = {"billing", "crm-sync", "search"};
  for (int f = 0; f < flushes; ++f) {
    row::RowBuffer rows(row::kLedgerColumns);
    for (int i = 0; i < rows_per_flush; ++i) {
      const int n = f * rows_per_flush + i;
      const int64_t micros =
          1'767'225'600'000'000 + int64_t{577'000'000} * n % (2 * 86'400'000'000);
      testing::AddLedgerRow(rows, "evt-" + std::to_string(n), micros, apps[n % 3]);
    }
    Result<lake::FlushReport> report =
        writer.Flush(rows, {"GARM_LEDGER", uint64_t(f) * 10 + 1, uint64_t(f) * 10 + 10});
    EXPECT_TRUE(report.ok()) << report.status().ToString();
    if (!report.ok()) return t;
    const int64_t snapshot_id = SnapshotIdFrom(0x5EED0000ull + f);
    const int64_t sequence = meta.last_sequence_number + 1;
    std::vector<ManifestEntry> entries;
    AppendCounts added;
    for (const lake::PartReport& p : report->parts) {
      Result<DataFile> file =
          DataFileOf(spec, FileUri(lake_root / p.key), p.bytes, p.values, p.statistics);
      EXPECT_TRUE(file.ok()) << file.status().ToString();
      if (!file.ok()) return t;
      entries.push_back({EntryStatus::kAdded, {}, {}, {}, *file});
      t.parts.push_back(p);
      t.files.push_back(*file);
      ++added.files;
      added.records += p.rows;
      added.bytes += p.bytes;
      ++added.partitions;
      t.rows += p.rows;
    }
    const std::string manifest =
        FileUri(t.table / "metadata" / ("m-" + std::to_string(snapshot_id) + "-0.avro"));
    Result<Manifest> m = WriteManifest(spec, manifest, snapshot_id, sequence, entries, codec);
    EXPECT_TRUE(m.ok()) << m.status().ToString();
    if (!m.ok()) return t;
    WriteBytes(manifest, m->bytes);
    t.manifests.push_back(manifest);
    t.listed.push_back(m->file);
    const std::optional<int64_t> parent = meta.current_snapshot_id;
    Result<std::string> list = WriteManifestList(t.listed, snapshot_id, parent, sequence, codec);
    EXPECT_TRUE(list.ok()) << list.status().ToString();
    if (!list.ok()) return t;
    const std::string list_uri =
        FileUri(t.table / "metadata" / ("snap-" + std::to_string(snapshot_id) + ".avro"));
    WriteBytes(list_uri, *list);
    t.lists.push_back(list_uri);
    const int64_t now = 1'767'225'600'000 + 1000 * (f + 1);
    meta = WithSnapshot(
        meta,
        AppendSnapshot(meta, snapshot_id, now, list_uri, added, {{"sinkd.instance", "box-1"}}), now,
        previous);
    previous = write_metadata();
  }
  return t;
}

}  // namespace sinkd::iceberg
