// PageWriter turns encoded page payloads into a column chunk's bytes: it compresses each payload
// with zstd, puts the Thrift PageHeader in front, and keeps the chunk's totals, encodings and
// encoding_stats. Offsets are relative to the chunk start: page bytes never depend on where the
// chunk lands in the file, so only the PartWriter deals in absolute offsets.
//
// A chunk is: [dictionary page] data page… — the dictionary page first and at most once.
// OPTIONAL columns: V1 data pages put the definition levels (RLE/bit-packed hybrid, bit width 1,
// u32 LE length prefix) in front of the values, inside the compressed payload. The column
// writers never see levels: they encode only the non-NULL values and cut pages by those, and
// this class spreads the chunk's levels over the pages (SetDefinitionLevels).
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

  // Makes the next chunk's data pages carry definition levels: `levels` holds one per row of the
  // chunk in output order (1 = value, 0 = NULL) and is borrowed until Finish. AddDataPage's
  // `values` then counts non-NULL values, and its page takes the levels of the rows up to and
  // including its last value, plus every NULL after it when that is the chunk's last value. A
  // chunk of NULLs only is one data page of levels and no values (AddDataPage with values = 0).
  // Without this call (REQUIRED columns) pages have no levels.
  // REQUIRES: every level is 0 or 1; no data page has been added to the chunk yet.
  void SetDefinitionLevels(std::span<const uint32_t> levels);

  // REQUIRES: no page has been added to `chunk` since Clear().
  Status AddDictionaryPage(std::span<const uint8_t> plain_values, uint32_t entries,
                           EncodedChunk& chunk);
  // REQUIRES: the page covers at least one row (an empty page is unreadable for some readers):
  //           values > 0, or levels remain; with levels, `values` of them remain defined.
  Status AddDataPage(std::span<const uint8_t> payload, uint32_t values, Encoding encoding,
                     EncodedChunk& chunk);
  // Sets chunk.encodings from the pages added and forgets the definition levels.
  // REQUIRES: with levels, the pages took every one of them.
  void Finish(EncodedChunk& chunk);

 private:
  Status AddPage(PageHeader& header, std::span<const uint8_t> payload, EncodedChunk& chunk);

  ZstdCompressor compressor_;
  ByteBuffer compressed_;
  // Definition levels of the current chunk (empty for REQUIRED), the next row without a page,
  // and the non-NULL values not yet in a page.
  std::span<const uint32_t> levels_;
  size_t next_level_ = 0;
  size_t defined_left_ = 0;
  ByteBuffer leveled_;  // levels + values of one page, before compression
};

}  // namespace sinkd::parquet
