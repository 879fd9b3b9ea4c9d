// PageWriter turns encoded page payloads into a column chunk's bytes: it compresses each payload
// with zstd, puts the Thrift PageHeader in front, and keeps the chunk's totals, encodings and
// encoding_stats. Offsets are relative to the chunk start: page bytes never depend on where the
// chunk lands in the file, so only the PartWriter deals in absolute offsets.
//
// A chunk is: [dictionary page] data page… — the dictionary page first and at most once.
// Ownership: EncodedChunk owns its bytes; PageWriter owns its compressor and scratch buffers,
// reused for every page of the Part.
// Threads: one thread at a time.
// Errors: a page too large for Parquet's i32 sizes is Reject; a zstd failure is Internal.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "base/status.h"
#include "parquet/bloom_filter.h"
#include "parquet/byte_buffer.h"
#include "parquet/metadata.h"
#include "parquet/zstd_compressor.h"

namespace sinkd::parquet {

// One column chunk, encoded, waiting for its place in the file.
struct EncodedChunk {
  ByteBuffer bytes;                              // page headers and compressed payloads
  std::optional<int64_t> dictionary_page_offset;  // relative to the chunk start
  int64_t data_page_offset = 0;                  // relative to the chunk start
  int64_t total_uncompressed_size = 0;           // headers + uncompressed payloads
  int64_t num_values = 0;
  int32_t data_pages = 0;
  std::vector<Encoding> encodings;               // filled by PageWriter::Finish
  std::vector<PageEncodingStats> encoding_stats;
  Statistics statistics;                         // set by the column writer
  std::optional<SplitBlockBloomFilter> bloom;    // set by the column writer if asked for

  // Empties everything but keeps the byte buffer's capacity.
  void Clear();
};

class PageWriter {
 public:
  explicit PageWriter(int zstd_level) : compressor_(zstd_level) {}

  // REQUIRES: no page has been added to `chunk` since Clear().
  Status AddDictionaryPage(std::span<const uint8_t> plain_values, uint32_t entries,
                           EncodedChunk& chunk);
  // REQUIRES: values > 0 (an empty page is unreadable for some readers).
  Status AddDataPage(std::span<const uint8_t> payload, uint32_t values, Encoding encoding,
                     EncodedChunk& chunk);
  // Sets chunk.encodings from the pages added.
  void Finish(EncodedChunk& chunk) const;

 private:
  Status AddPage(PageHeader& header, std::span<const uint8_t> payload, EncodedChunk& chunk);

  ZstdCompressor compressor_;
  ByteBuffer compressed_;
};

}  // namespace sinkd::parquet
