// The commit step of a compaction: what makes a merge's outputs take its inputs' place in the
// table kept over the Parts (table/commit.h is a flush's). `sinkd compact --table-format`
// selects it (iceberg/table_format.h: MakeTableRewrite); with `none` there is no Rewrite and the
// hive layout alone is the table (compact/compactor.h's grace deleter).
// With a table, compaction works on what the table holds, never on what a listing finds:
//   Live        the Parts the table's current snapshot holds: the only Parts a pass merges. A Part
//               on disk that is not there (a flush's Part whose commit failed, one placed and not
//               yet committed, an output whose replace was never committed) is not the table's
//               and is never merged into it; `sinkd table orphans` removes what stays unnamed.
//   Replace     merges, one atomic step: each one's `removed` leave the table and its `added`
//               (the outputs, holding the same rows once each) enter it; the table's committed
//               source positions are carried. It conflicts only with another replace that removed
//               one of the same Parts first: then NotFound, nothing committed, and the caller
//               drops the merges (or commits them one by one to find the one that lost).
//               Appends committed meanwhile never conflict.
//   Referenced  every Part a retained snapshot names: such a Part is never deleted by the
//               compactor, whatever its grace (an engine can still read that snapshot); `sinkd
//               table expire` deletes it once no retained snapshot names it.
// Keys are the lake's (relative, as lake::Destination takes them).
// Threads: one thread at a time per object.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "parquet/file_statistics.h"
#include "row/column_table.h"

namespace sinkd::table {

// A merge output as a table records it: its key, its size and the statistics its writer made
// (never read back from the Part).
struct RewrittenPart {
  std::string key;
  uint64_t bytes = 0;
  parquet::FileStatistics statistics;
};

// One merge as a replace records it: its inputs, all of one partition, and its outputs, of the
// same partition.
struct PartRewrite {
  std::vector<std::string> removed;
  std::vector<RewrittenPart> added;
};

struct LiveParts {
  bool exists = false;         // false: no table, or one without a snapshot yet
  std::set<std::string> keys;  // the data files of the current snapshot
};

class Rewrite {
 public:
  virtual ~Rewrite() = default;
  // "iceberg".
  virtual std::string_view format() const = 0;
  // The table under key prefix `table` (columns `columns`) as its current snapshot holds it.
  virtual Result<LiveParts> Live(std::string_view table, const row::ColumnTable& columns) = 0;
  // Every data file a snapshot of the newest metadata names (the current one's included).
  virtual Result<std::set<std::string>> Referenced(std::string_view table,
                                                   const row::ColumnTable& columns) = 0;
  // Commits `rewrites` as one replace. REQUIRES: at least one; every removed key was in Live's
  // answer and in no other rewrite. NotFound: a removed file is no longer live (another replace
  // took it); nothing committed.
  virtual Status Replace(std::string_view table, const row::ColumnTable& columns,
                         const std::vector<PartRewrite>& rewrites) = 0;
};

}  // namespace sinkd::table
