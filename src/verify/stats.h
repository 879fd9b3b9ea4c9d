// Stats sums what a scan found (verify/scan.h) per partition of a table: `sinkd lake stats`. The
// figures are the live objects' (those no present compaction output supersedes as the very object
// it merged, the rule of verify.h and compact/grace.h), so the rows are what a reader sees once
// the superseded objects awaiting deletion are gone; those are counted beside them.
// Threads: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "row/column_table.h"
#include "verify/verify.h"

namespace sinkd::verify {

struct PartitionStats {
  std::string partition;            // "<prefix>/date=…/app=…"; "" for the total
  std::string date;                 // YYYY-MM-DD
  std::vector<std::string> values;  // the partition columns' values, table order
  uint64_t parts = 0, rows = 0, bytes = 0;  // live objects
  uint64_t small_parts = 0;                 // live objects below small_below bytes
  uint64_t superseded_parts = 0, superseded_bytes = 0;  // awaiting their grace deletion
};

struct LakeStats {
  std::vector<std::string> columns;        // the partition columns' names, table order
  std::vector<PartitionStats> partitions;  // key order
  PartitionStats total;
  // Objects under the prefix that are not the table's (ParseObjectKey: another layout), and
  // those whose footer could not be read ("<key>: <why>"): in no partition's figures.
  std::vector<std::string> foreign, unreadable;
};

LakeStats Stats(const row::ColumnTable& table, const std::string& prefix,
                const std::vector<ObjectInfo>& objects, uint64_t small_below);

}  // namespace sinkd::verify
