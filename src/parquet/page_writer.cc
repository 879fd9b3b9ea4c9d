// Bytes of one page: PageHeader (Thrift compact) | zstd frame of the payload.
//   PageHeader{1 type, 2 uncompressed_page_size, 3 compressed_page_size,
//              5 DataPageHeader{num_values, encoding, RLE, RLE} | 7 DictionaryPageHeader{n, PLAIN}}
// Both sizes exclude the header; the uncompressed size must be exact or Arrow's zstd path fails.
#include "parquet/page_writer.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <string>

#include "parquet/metadata_serializer.h"

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

Status PageWriter::AddDataPage(std::span<const uint8_t> payload, uint32_t values,
                               Encoding encoding, EncodedChunk& chunk) {
  assert(values > 0 && "never emit an empty page");
  PageHeader header;
  header.type = PageType::kDataPage;
  header.data_page_header = DataPageHeader{static_cast<int32_t>(values), encoding,
                                           Encoding::kRle, Encoding::kRle};
  if (chunk.data_pages++ == 0) chunk.data_page_offset = static_cast<int64_t>(chunk.bytes.size());
  chunk.num_values += values;
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

void PageWriter::Finish(EncodedChunk& chunk) const {
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
