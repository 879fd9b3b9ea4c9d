#include "parquet/part_reader.h"

#include <fmt/format.h>

#include <algorithm>

#include "parquet/column_chunk_decoder.h"
#include "parquet/footer_decoder.h"

namespace sinkd::parquet {

size_t ColumnValues::size() const {
  switch (physical) {
    case PhysicalType::kBoolean: return bools.size();
    case PhysicalType::kInt32: return int32s.size();
    case PhysicalType::kInt64: return int64s.size();
    case PhysicalType::kDouble: return doubles.size();
    case PhysicalType::kByteArray: return offsets.empty() ? 0 : offsets.size() - 1;
  }
  return 0;
}

namespace {

// Chunks to read together when the bytes between them (other columns) stay under this: one read
// of a row group instead of one per column is what makes S3 reads cheap.
constexpr uint64_t kMaxGapBytes = 1 << 20;

}  // namespace

// What FetchRowGroup read for DecodeFetched: the row group's bytes in one coalesced read
// (`buffer`, from `begin`) or one buffer per chunk.
struct Fetched {
  bool ready = false;
  size_t index = 0;
  std::vector<int> columns;
  bool together = false;
  uint64_t begin = 0;
  std::vector<std::string> chunks;  // by position in `columns`, when not together
};

struct PartReader::Rep {
  ReadAt read;
  std::string name;
  DecodedFooter decoded;
  ColumnChunkDecoder decoder;
  std::string buffer;  // the row group's bytes of the last coalesced read
  Fetched fetched;
};

PartReader::PartReader(std::unique_ptr<Rep> rep) : rep_(std::move(rep)) {}
PartReader::~PartReader() = default;

Result<std::unique_ptr<PartReader>> PartReader::Open(ReadAt read, uint64_t file_size,
                                                     std::string name) {
  SINKD_ASSIGN_OR_RETURN(DecodedFooter decoded, ReadDecodedFooter(read, file_size, name));
  auto rep = std::make_unique<Rep>();
  rep->read = std::move(read);
  rep->name = std::move(name);
  rep->decoded = std::move(decoded);
  return std::unique_ptr<PartReader>(new PartReader(std::move(rep)));
}

const FileFooter& PartReader::footer() const { return rep_->decoded.footer; }

Result<std::vector<ColumnValues>> PartReader::ReadRowGroup(size_t index,
                                                           std::span<const int> columns) {
  std::vector<ColumnValues> out;
  Status s = ReadRowGroup(index, columns, out);
  if (!s.ok()) return s;
  return out;
}

Status PartReader::ReadRowGroup(size_t index, std::span<const int> columns,
                                std::vector<ColumnValues>& out) {
  SINKD_RETURN_IF_ERROR(FetchRowGroup(index, columns));
  return DecodeFetched(out);
}

Status PartReader::FetchRowGroup(size_t index, std::span<const int> columns) {
  Rep& r = *rep_;
  Fetched& f = r.fetched;
  f.ready = false;
  const FileFooter& footer = r.decoded.footer;
  if (index >= footer.row_groups.size()) {
    return Status::Internal(fmt::format("{}: row group {} of {}", r.name, index,
                                        footer.row_groups.size()));
  }
  f.columns.clear();
  if (columns.empty()) {
    for (size_t c = 0; c < footer.columns.size(); ++c) f.columns.push_back(static_cast<int>(c));
  } else {
    f.columns.assign(columns.begin(), columns.end());
  }
  const std::vector<ChunkLocation>& chunks = r.decoded.chunks[index];
  uint64_t begin = UINT64_MAX, end = 0, sum = 0;
  for (const int c : f.columns) {
    if (c < 0 || static_cast<size_t>(c) >= footer.columns.size()) {
      return Status::Internal(fmt::format("{}: column {} of {}", r.name, c, footer.columns.size()));
    }
    begin = std::min(begin, chunks[c].offset);
    end = std::max(end, chunks[c].offset + chunks[c].length);
    sum += chunks[c].length;
  }
  f.index = index;
  f.together = end - begin <= sum + kMaxGapBytes;
  f.begin = begin;
  f.chunks.clear();
  if (f.together) {
    Result<std::string> bytes = r.read(begin, end - begin);
    if (!bytes.ok()) return bytes.status().WithContext(r.name);
    if (bytes->size() != end - begin) {
      return Status::Refuse(fmt::format("{}: truncated: read {} of row group {}'s {} bytes at {}",
                                        r.name, bytes->size(), index, end - begin, begin));
    }
    r.buffer = std::move(bytes).value();
  } else {
    for (const int c : f.columns) {
      const ChunkLocation& location = chunks[c];
      Result<std::string> bytes = r.read(location.offset, location.length);
      if (!bytes.ok()) return bytes.status().WithContext(r.name);
      if (bytes->size() != location.length) {
        return Status::Refuse(fmt::format("{}: truncated: read {} of a chunk's {} bytes at {}",
                                          r.name, bytes->size(), location.length, location.offset));
      }
      f.chunks.push_back(std::move(bytes).value());
    }
  }
  f.ready = true;
  return Status::OK();
}

Status PartReader::DecodeFetched(std::vector<ColumnValues>& out) {
  Rep& r = *rep_;
  Fetched& f = r.fetched;
  if (!f.ready) return Status::Internal(r.name + ": a row group decoded before it was fetched");
  f.ready = false;
  const FileFooter& footer = r.decoded.footer;
  const size_t index = f.index;
  const std::vector<ChunkLocation>& chunks = r.decoded.chunks[index];
  out.resize(f.columns.size());
  uint64_t budget = kMaxRowGroupDecodedBytes;
  for (size_t k = 0; k < f.columns.size(); ++k) {
    const size_t c = static_cast<size_t>(f.columns[k]);
    const ChunkLocation& location = chunks[c];
    const std::string_view chunk =
        f.together ? std::string_view(r.buffer).substr(location.offset - f.begin, location.length)
                   : std::string_view(f.chunks[k]);
    const std::string where =
        fmt::format("{}: row group {}: column {}", r.name, index, footer.columns[c].name);
    Status s = r.decoder.Decode(chunk, footer.columns[c], location,
                                footer.row_groups[index].columns[c], where, &budget, out[k]);
    if (!s.ok()) return s;
    if (out[k].size() != footer.row_groups[index].rows) {
      return Status::Refuse(fmt::format("{}: {} rows, the row group has {}", where, out[k].size(),
                                        footer.row_groups[index].rows));
    }
  }
  f.chunks.clear();
  return Status::OK();
}

}  // namespace sinkd::parquet
