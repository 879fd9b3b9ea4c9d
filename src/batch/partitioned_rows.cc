#include "batch/partitioned_rows.h"

#include <cassert>
#include <cstring>

#include "batch/civil_date.h"
#include "batch/partitioner.h"

namespace sinkd::batch {

namespace {

void AppendKey(std::string& key, int64_t day, std::span<const std::string_view> values) {
  key.clear();
  key.append(reinterpret_cast<const char*>(&day), sizeof day);
  for (std::string_view v : values) {
    const auto length = static_cast<uint32_t>(v.size());
    key.append(reinterpret_cast<const char*>(&length), sizeof length);
    key.append(v);
  }
}

}  // namespace

PartitionedRows::PartitionedRows(const row::ColumnTable& table)
    : table_(&table), partition_columns_(PartitionColumns(table)) {}

row::RowBatch& PartitionedRows::BatchFor(int64_t time_micros,
                                         std::span<const std::string_view> partition_values) {
  assert(partition_values.size() == partition_columns_.size());
  const int64_t day = DayOf(time_micros);
  AppendKey(key_, day, partition_values);
  ++rows_;
  if (has_last_ && key_ == last_key_) return *parts_[last_].rows;
  auto [it, fresh] = index_.try_emplace(key_, static_cast<uint32_t>(parts_.size()));
  if (fresh) {
    Part part{day, {}, std::make_unique<row::RowBatch>(*table_)};
    part.values.assign(partition_values.begin(), partition_values.end());
    parts_.push_back(std::move(part));
  }
  last_key_.swap(key_);
  last_ = it->second;
  has_last_ = true;
  return *parts_[last_].rows;
}

void PartitionedRows::AppendRows(const row::RowBatch& from, size_t first, size_t count) {
  assert(&from.table() == table_ && first + count <= from.rows());
  std::vector<std::string_view> values(partition_columns_.size());
  size_t r = first;
  const size_t end = first + count;
  while (r < end) {
    for (size_t c = 0; c < partition_columns_.size(); ++c) {
      values[c] = from.column(partition_columns_[c]).strings.at(r);
    }
    row::RowBatch& to = BatchFor(from.TimeMicros(r), values);
    --rows_;  // counted below, with the run
    // The run of rows after r that go to the same partition, copied in one call.
    size_t run = r + 1;
    const int64_t day = DayOf(from.TimeMicros(r));
    while (run < end && DayOf(from.TimeMicros(run)) == day) {
      bool same = true;
      for (size_t c = 0; c < partition_columns_.size() && same; ++c) {
        same = from.column(partition_columns_[c]).strings.at(run) == values[c];
      }
      if (!same) break;
      ++run;
    }
    to.AppendRows(from, r, run - r);
    rows_ += run - r;
    r = run;
  }
}

size_t PartitionedRows::bytes() const {
  size_t total = 0;
  for (const Part& p : parts_) total += p.rows->bytes();
  return total;
}

void PartitionedRows::Clear() {
  parts_.clear();
  index_.clear();
  has_last_ = false;
  rows_ = 0;
}

}  // namespace sinkd::batch
