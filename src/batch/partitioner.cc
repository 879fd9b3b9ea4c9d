#include "batch/partitioner.h"

#include <algorithm>
#include <cassert>
#include <map>
#include <tuple>

#include "batch/civil_date.h"

namespace sinkd::batch {

std::vector<int> PartitionColumns(const row::ColumnTable& table) {
  std::vector<int> columns;
  for (size_t i = 0; i < table.columns.size(); ++i) {
    if (table.columns[i].partition) {
      assert(table.columns[i].type == row::ColumnType::kString);
      columns.push_back(static_cast<int>(i));
    }
  }
  return columns;
}

namespace {

// The partition a row belongs to, as views into the batch (valid while the batch is).
struct KeyView {
  int64_t day;
  std::vector<std::string_view> values;
  bool operator<(const KeyView& other) const {
    return std::tie(day, values) < std::tie(other.day, other.values);
  }
};

}  // namespace

std::vector<Partition> PartitionRows(const row::RowBatch& batch) {
  const std::vector<int> columns = PartitionColumns(batch.table());
  const size_t n = batch.rows();
  // Two passes: assign each row a partition number through an ordered map (few distinct keys,
  // typically tens to hundreds), then bucket the row indices. A map keyed by views costs no copy.
  std::map<KeyView, uint32_t> ids;
  std::vector<uint32_t> row_partition(n);
  KeyView key;
  key.values.resize(columns.size());
  for (size_t r = 0; r < n; ++r) {
    key.day = DayOf(batch.TimeMicros(r));
    for (size_t c = 0; c < columns.size(); ++c) {
      key.values[c] = batch.column(columns[c]).strings.at(r);
    }
    auto [it, inserted] = ids.try_emplace(key, static_cast<uint32_t>(ids.size()));
    row_partition[r] = it->second;
  }
  // Map iteration order is key order; renumber so partition i is the i-th smallest key.
  std::vector<uint32_t> rank(ids.size());
  std::vector<Partition> partitions(ids.size());
  uint32_t next = 0;
  for (const auto& [k, id] : ids) {
    rank[id] = next;
    Partition& p = partitions[next++];
    p.date = FormatDay(k.day);
    p.values.assign(k.values.begin(), k.values.end());
  }
  std::vector<uint32_t> sizes(ids.size(), 0);
  for (uint32_t id : row_partition) ++sizes[rank[id]];
  for (size_t i = 0; i < partitions.size(); ++i) partitions[i].rows.reserve(sizes[i]);
  for (size_t r = 0; r < n; ++r) partitions[rank[row_partition[r]]].rows.push_back(
      static_cast<uint32_t>(r));

  const auto& times = batch.column(batch.table().time_column).int64s;
  const auto& ids_column = batch.column(batch.table().id_column).strings;
  for (Partition& p : partitions) {
    std::sort(p.rows.begin(), p.rows.end(), [&](uint32_t a, uint32_t b) {
      if (times[a] != times[b]) return times[a] < times[b];
      const std::string_view ia = ids_column.at(a), ib = ids_column.at(b);
      if (ia != ib) return ia < ib;
      return a < b;  // identical (time, id): keep arrival order, so the sort is deterministic
    });
  }
  return partitions;
}

bool OrderByPartition(row::RowBatch& batch, std::vector<Partition>& partitions, WorkPool& pool) {
  const row::ColumnTable& table = batch.table();
  for (size_t c = 0; c < table.columns.size(); ++c) {
    if (batch.column(static_cast<int>(c)).strings.overflowed()) return false;
  }
  std::vector<uint32_t> position(batch.rows());
  uint32_t next = 0;
  for (Partition& p : partitions) {
    for (uint32_t& row : p.rows) {
      position[row] = next;
      row = next++;
    }
  }
  assert(next == batch.rows() && "every row is in exactly one partition");
  std::vector<row::ReorderScratch> scratch(pool.threads());
  pool.ParallelFor(table.columns.size(), [&](size_t c, size_t slot) {
    batch.ReorderColumn(c, position, scratch[slot]);
  });
  return true;
}

}  // namespace sinkd::batch
