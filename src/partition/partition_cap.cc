#include "partition/partition_cap.h"

#include "partition/partitioner.h"

namespace sinkd::partition {

PartitionCap::PartitionCap(const row::ColumnTable& table, size_t max)
    : max_(max), columns_(PartitionColumns(table)) {
  key_.values.resize(columns_.size());
}

bool PartitionCap::Take(const row::RowBuffer& batch, size_t row) {
  if (max_ == 0) return true;
  internal::ReadKey(batch, columns_, row, key_);
  // Rows come in runs of one partition (a Batch message is mostly one app on one day): the last
  // row's partition is compared before anything is hashed.
  if (last_ != internal::KeyIds<OwnedKey>::kNone && last_ < ids_.size() &&
      Matches(ids_.keys()[last_], key_)) {
    return true;
  }
  const uint64_t hash = internal::HashOf(key_);
  uint32_t id = ids_.Find(key_, hash);
  if (id == internal::KeyIds<OwnedKey>::kNone) {
    if (ids_.size() >= max_) return false;
    id = ids_.Insert(key_, hash);
  }
  last_ = id;
  return true;
}

}  // namespace sinkd::partition
