#include "iceberg/data_file.h"

#include <cstring>

#include "partition/civil_date.h"

namespace sinkd::iceberg {

namespace {

std::optional<int64_t> Int64Bound(const std::optional<std::string>& bytes) {
  if (!bytes || bytes->size() != 8) return std::nullopt;
  int64_t v = 0;
  std::memcpy(&v, bytes->data(), 8);  // little-endian, as Parquet and Iceberg store it
  return v;
}

}  // namespace

Result<DataFile> DataFileOf(const TableSpec& spec, std::string path, uint64_t file_size,
                            const std::vector<std::string>& values,
                            const parquet::FileStatistics& statistics) {
  if (values.size() + 1 != spec.partition.size()) {
    return Status::Internal("iceberg: " + std::to_string(values.size()) +
                            " partition values for a spec of " +
                            std::to_string(spec.partition.size() - 1) + " identity fields");
  }
  DataFile file;
  file.path = std::move(path);
  file.file_size = file_size;
  file.records = statistics.rows;
  file.values = values;
  file.split_offsets = statistics.row_group_offsets;
  std::optional<int64_t> min_time, max_time;
  for (const parquet::ColumnSummary& c : statistics.columns) {
    if (c.field_id < 0) continue;
    file.columns.push_back({c.field_id, c.bytes, c.values, c.nulls, c.min, c.max});
    if (c.field_id == spec.time_field_id) {
      min_time = Int64Bound(c.min);
      max_time = Int64Bound(c.max);
    }
  }
  if (!min_time || !max_time) {
    return Status::Internal("iceberg: " + file.path +
                            " has no minimum and maximum of time in its statistics");
  }
  const int64_t day = partition::DayOf(*min_time);
  if (partition::DayOf(*max_time) != day) {
    return Status::Internal("iceberg: " + file.path + " holds rows of more than one day");
  }
  file.day = static_cast<int32_t>(day);
  return file;
}

}  // namespace sinkd::iceberg
