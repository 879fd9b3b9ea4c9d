#include "verify/stats.h"

#include <map>
#include <optional>
#include <set>
#include <tuple>

#include "table/key.h"

namespace sinkd::verify {

LakeStats Stats(const row::ColumnTable& table, const std::string& prefix,
                const std::vector<ObjectInfo>& objects, uint64_t small_below) {
  LakeStats stats;
  for (const row::ColumnSpec& c : table.columns) {
    if (c.partition) stats.columns.push_back(std::string(c.name));
  }
  std::set<std::tuple<std::string, uint64_t, std::string>> merged;
  for (const ObjectInfo& o : objects) {
    for (const table::SupersededObject& in : o.supersedes) {
      if (!in.version.empty()) merged.emplace(in.key, in.size, in.version);
    }
  }
  std::map<std::string, PartitionStats> partitions;
  for (const ObjectInfo& o : objects) {
    std::optional<table::ObjectKey> key = table::ParseObjectKey(table, prefix, o.key);
    if (!key) {
      stats.foreign.push_back(o.key);
      continue;
    }
    if (!o.error.empty()) {
      stats.unreadable.push_back(o.error.rfind(o.key, 0) == 0 ? o.error : o.key + ": " + o.error);
      continue;
    }
    PartitionStats& p = partitions[key->partition];
    p.partition = key->partition;
    p.date = key->date;
    p.values = key->values;
    for (PartitionStats* s : {&p, &stats.total}) {
      if (merged.count({o.key, o.size, o.version}) > 0) {
        ++s->superseded_parts;
        s->superseded_bytes += o.size;
        continue;
      }
      ++s->parts;
      s->rows += o.rows;
      s->bytes += o.size;
      if (o.size < small_below) ++s->small_parts;
    }
  }
  for (auto& [name, p] : partitions) stats.partitions.push_back(std::move(p));
  return stats;
}

}  // namespace sinkd::verify
