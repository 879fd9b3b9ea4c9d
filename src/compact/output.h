// A compaction output's name and footer metadata (docs/design.md, "Compaction"), and reading
// back what an output's footer says (the key names: table/footer.h; the key format:
// table::CompactionOutputKey). The name is a function of the inputs alone: the same inputs give
// the same key on every compactor, so two compactors doing the same merge meet at the same key.
// Threads: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "parquet/part_writer.h"
#include "row/column_table.h"

namespace sinkd::compact {

struct InputRef {
  std::string key;
  uint64_t size = 0;
  std::string version;  // lake::StoredObject::version: recorded in sinkd.supersedes
};

// 32 hex digits: the first half of SHA-256 over "<key>\n<size>\n<version>\n" of every input, in
// key order. The version keeps a key re-created after its merge from meeting that merge's name.
std::string MergeHash(std::vector<InputRef> inputs);

struct MergeCounts {
  uint64_t rows_in = 0, rows_out = 0, duplicates_dropped = 0, inputs = 0, outputs = 0;
};

// The footer metadata of output `index`, in docs/design.md's order. `supersedes`: the merge's
// inputs (table::FormatSupersedes sorts them); `stamps` the union's elements as JSON texts,
// sorted, each once.
std::vector<parquet::KeyValue> OutputMetadata(const row::ColumnTable& table,
                                              const std::vector<InputRef>& supersedes,
                                              const std::vector<std::string>& stamps,
                                              const MergeCounts& counts, uint64_t index);

// The elements of a sinkd.stamps value (a JSON array), each as compact JSON text, appended to
// `out`; Refuse when it is not a JSON array.
Status AppendStamps(std::string_view json, std::vector<std::string>& out);

// Sorts and removes exact duplicates.
void SortUnique(std::vector<std::string>& texts);

}  // namespace sinkd::compact
