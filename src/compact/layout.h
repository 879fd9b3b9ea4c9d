// Which keys of a lake are a table's objects, and in which partition: the inverse of lake/key.h.
// A key is an object of the table exactly when it reads
//   <prefix>/date=YYYY-MM-DD/<partition column>=<escaped value>/…(one per partition column, in
//   table order)/<name>.parquet
// with a name of safe characters. Everything else under the prefix (dead letters, `.incomplete`
// files, a foreign tree) is not, and compaction never reads, merges or deletes it.
// Threads: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "row/column_table.h"

namespace sinkd::compact {

struct ObjectKey {
  std::string partition;            // "<prefix>/date=…/app=…" (no trailing '/')
  std::string date;                 // YYYY-MM-DD
  std::vector<std::string> values;  // the partition columns' values as the key holds them,
                                    // unescaped; nullopt-like: `exact` says whether they are whole
  bool exact = true;                // false when a segment may have been shortened (lake/key.h)
  std::string name;                 // "part-….parquet" or "compact-….parquet"
  bool output = false;              // named like a compaction output
};

// nullopt when `key` is not an object of `table` under `prefix`.
std::optional<ObjectKey> ParseObjectKey(const row::ColumnTable& table, std::string_view prefix,
                                        std::string_view key);

// Milliseconds since the Unix epoch at which UTC date `date` (YYYY-MM-DD) ends; nullopt when it
// is not a valid date.
std::optional<int64_t> DateEndUnixMs(std::string_view date);

}  // namespace sinkd::compact
