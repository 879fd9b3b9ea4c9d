// Bytes of one page: PageHeader (Thrift compact) | zstd frame of the payload.
//   PageHeader{1 type, 2 uncompressed_page_size, 3 compressed_page_size,
//              5 DataPageHeader{num_values, encoding, RLE, RLE} | 7 DictionaryPageHeader{n, PLAIN}}
// An OPTIONAL column's data page payload: u32 LE n | n bytes of definition levels (RLE/bit-packed,
// width 1) | values; num_values counts the rows, NULLs included.
// Both sizes exclude the header; the uncompressed size must be exact or Arrow's zstd path fails.
#include "parquet/page_writer.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <string>

#include "parquet/metadata_serializer.h"
#include "parquet/rle_bit_packed_encoder.h"

namespace sinkd::parquet {
namespace {

constexpr size_t kMaxPageBytes = std::numeric_limits<int32_t>::max();

void CountPage(std::vector<PageEncodingStats>& stats, PageType type, Encoding encoding) {
  for (PageEncodingStats& s : stats) {
    if (s.page_type == type && s.encoding == encoding) {
      ++s.count;
      return;
    }
  }
  stats.push_back(PageEncodingStats{type, encoding, 1});
}

}  // namespace

void EncodedChunk::Clear() {
  bytes.Clear();
  dictionary_page_offset.reset();
  data_page_offset = 0;
  total_uncompressed_size = 0;
  num_values = 0;
  data_pages = 0;
  encodings.clear();
  encoding_stats.clear();
  statistics = Statistics{};
  bloom.reset();
}

Status PageWriter::AddDictionaryPage(std::span<const uint8_t> plain_values, uint32_t entries,
                                     EncodedChunk& chunk) {
  assert(chunk.bytes.empty() && "the dictionary page must be the first page of its chunk");
  PageHeader header;
  header.type = PageType::kDictionaryPage;
  header.dictionary_page_header = DictionaryPageHeader{static_cast<int32_t>(entries),
                                                       Encoding::kPlain};
  chunk.dictionary_page_offset = 0;
  CountPage(chunk.encoding_stats, PageType::kDictionaryPage, Encoding::kPlain);
  return AddPage(header, plain_values, chunk);
}

void PageWriter::SetDefinitionLevels(std::span<const uint32_t> levels) {
  levels_ = levels;
  next_level_ = 0;
  defined_left_ = 0;
  for (uint32_t level : levels) defined_left_ += level;
}

Status PageWriter::AddDataPage(std::span<const uint8_t> payload, uint32_t values,
                               Encoding encoding, EncodedChunk& chunk) {
  uint32_t rows = values;
  if (!levels_.empty()) {
    assert(values <= defined_left_ && "a page holds more values than the chunk has left");
    const size_t start = next_level_;
    size_t end = start;
    for (uint32_t seen = 0; seen < values && end < levels_.size(); ++end) seen += levels_[end];
    defined_left_ -= values;
    // The NULLs after the chunk's last value have no later page to go to.
    if (defined_left_ == 0) end = levels_.size();
    next_level_ = end;
    rows = static_cast<uint32_t>(end - start);
    leveled_.Clear();
    leveled_.AppendU32(0);
    EncodeRleBitPacked(levels_.subspan(start, end - start), 1, leveled_);
    const auto level_bytes = static_cast<uint32_t>(leveled_.size() - 4);
    for (int i = 0; i < 4; ++i) leveled_.data()[i] = static_cast<uint8_t>(level_bytes >> (8 * i));
    leveled_.Append(payload);
    payload = leveled_.span();
  }
  assert(rows > 0 && "never emit an empty page");
  PageHeader header;
  header.type = PageType::kDataPage;
  header.data_page_header = DataPageHeader{static_cast<int32_t>(rows), encoding,
                                           Encoding::kRle, Encoding::kRle};
  if (chunk.data_pages++ == 0) chunk.data_page_offset = static_cast<int64_t>(chunk.bytes.size());
  chunk.num_values += rows;
  CountPage(chunk.encoding_stats, PageType::kDataPage, encoding);
  return AddPage(header, payload, chunk);
}

Status PageWriter::AddPage(PageHeader& header, std::span<const uint8_t> payload,
                           EncodedChunk& chunk) {
  if (payload.size() > kMaxPageBytes) {
    return Status::Reject("a page of " + std::to_string(payload.size()) +
                          " bytes exceeds Parquet's 2 GiB page size");
  }
  SINKD_RETURN_IF_ERROR(compressor_.Compress(payload, compressed_));
  if (compressed_.size() > kMaxPageBytes) {
    return Status::Reject("a compressed page exceeds Parquet's 2 GiB page size");
  }
  header.uncompressed_page_size = static_cast<int32_t>(payload.size());
  header.compressed_page_size = static_cast<int32_t>(compressed_.size());
  const size_t header_start = chunk.bytes.size();
  SerializePageHeader(header, chunk.bytes);
  const size_t header_bytes = chunk.bytes.size() - header_start;
  chunk.bytes.Append(compressed_.span());
  chunk.total_uncompressed_size += static_cast<int64_t>(header_bytes + payload.size());
  return Status::OK();
}

void PageWriter::Finish(EncodedChunk& chunk) {
  assert(next_level_ == levels_.size() && "the pages left definition levels behind");
  levels_ = {};
  next_level_ = 0;
  defined_left_ = 0;
  // RLE is listed even without levels: every data page header names it as the level encoding,
  // and readers (Arrow, parquet-java) expect it in the set.
  chunk.encodings = {Encoding::kRle};
  for (const PageEncodingStats& s : chunk.encoding_stats) {
    if (std::find(chunk.encodings.begin(), chunk.encodings.end(), s.encoding) ==
        chunk.encodings.end()) {
      chunk.encodings.push_back(s.encoding);
    }
  }
  std::sort(chunk.encodings.begin(), chunk.encodings.end());
}

}  // namespace sinkd::parquet
