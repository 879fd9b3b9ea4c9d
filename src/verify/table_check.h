// TableCheck is what `sinkd lake verify --table-format iceberg` adds to the check of a lake table:
// the Iceberg table kept over its Parts (issue 26 §4), read from the metadata its catalog names
// as current (the files catalog's newest v<N>.metadata.json, or the sql catalog's row).
//   - Every data file the current snapshot names exists, and its footer agrees with its manifest
//     entry: the same size and rows, the same statistics (parquet::Summarize of the footer read
//     back, through iceberg::DataFileOf as the writer's commit recorded them), and — for a Part
//     of one flush — a stamp that names this Part (its directory, range and n: a Part's bytes
//     copied over another's carry the other's stamp).
//   - Gaps from the table's committed positions (sinkd.positions): Verify (verify.h) over the
//     objects the table names alone, expecting every sequence the table records per stream. A
//     sequence the table says it holds that no Part it names carries is a gap; a flush with a
//     Part the table does not name is incomplete. Outbox sinks record a high-water mark only
//     (their seq has holes): their expected sequences are the caller's, as for the glob.
// Use: Prepare before the lake's scan, Observe from the scan for every footer (ScanLake's
// on_footer), Finish after it.
// Threads: one thread at a time. Errors: the catalog's and the store's; what the table holds
// wrongly is the report's, never an error.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/result.h"
#include "iceberg/data_file.h"
#include "iceberg/files_catalog.h"
#include "iceberg/positions.h"
#include "lake/destination.h"
#include "parquet/part_reader.h"
#include "verify/verify.h"

namespace sinkd::verify {

struct TableFileProblem {
  std::string uri;
  std::string problem;
};

struct TableReport {
  std::string metadata;  // URI of the metadata file checked; "" when the lake has no table
  int64_t snapshot = 0;  // its current snapshot (0: none)
  uint64_t files = 0;    // data files the current snapshot names
  uint64_t records = 0;  // their rows, as the manifests say
  std::vector<TableFileProblem> problems;
  iceberg::Positions positions;  // committed
  VerifyReport view;             // Verify over the table's files, expecting its positions

  bool ok() const { return !metadata.empty() && problems.empty() && view.ok(); }
};

class TableCheck {
 public:
  // The table of `columns` in `destination` whose catalog is `catalog` (borrowed; opened over
  // the same destination, iceberg::OpenCatalog).
  TableCheck(lake::Destination& destination, const row::ColumnTable& columns,
             iceberg::FilesCatalog& catalog);

  // Reads the newest metadata and the data files its current snapshot names.
  Status Prepare();
  // One object of the scan with its footer: checked when the table names it.
  void Observe(const lake::StoredObject& object, const parquet::FileFooter& footer);
  // The report, given the scan's input (its objects and dead letters; its expected sequences and
  // bounds apply to the table's view too).
  TableReport Finish(const VerifyInput& scanned);

 private:
  lake::Destination& destination_;
  const row::ColumnTable& columns_;
  iceberg::FilesCatalog& catalog_;
  TableReport report_;
  std::map<std::string, iceberg::DataFile> named_;  // by key
  std::map<std::string, bool> seen_;                // key → its footer agreed
};

}  // namespace sinkd::verify
