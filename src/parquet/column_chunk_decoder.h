// ColumnChunkDecoder turns the bytes of one column chunk ([dictionary page] data pages…) into
// ColumnValues: pages are checked (CRC when present, sizes, counts), inflated with one reused
// ZSTD context, definition levels decoded, and values decoded PLAIN or through the dictionary
// straight into the output arrays; NULL slots are opened by moving the dense values back in place.
// Internal to src/parquet.
// Ownership: owns its scratch (page buffer, levels, indices, dictionary), reused across chunks.
// Threads: one thread at a time.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "parquet/byte_buffer.h"
#include "parquet/footer_decoder.h"
#include "parquet/part_reader.h"
#include "parquet/zstd_decompressor.h"

namespace sinkd::parquet {

// Larger row groups or chunks are refused (not supported), so that a corrupt count cannot make the
// reader allocate without bound: sinkd and DuckDB write 122,880-row row groups.
// Likewise for what one ReadRowGroup decodes (values, offsets, string bytes, NULL flags and
// dictionaries): compaction's whole budget is 512 MiB.
inline constexpr uint64_t kMaxRowGroupRows = uint64_t{1} << 24;
inline constexpr uint64_t kMaxRowGroupDecodedBytes = uint64_t{1} << 30;

class ColumnChunkDecoder {
 public:
  // Replaces `out` with the chunk's values. `chunk` holds the chunk's bytes from its first page;
  // `where` ("<file>: row group g: column c") prefixes every error (Refuse). *budget is the bytes
  // the row group may still decode to; the chunk's are taken from it.
  Status Decode(std::string_view chunk, const ColumnInfo& column, const ChunkLocation& location,
                const ColumnChunkInfo& info, const std::string& where, uint64_t* budget,
                ColumnValues& out);

 private:
  Status DataPage(const uint8_t* page, size_t size, uint32_t num_values, int32_t encoding,
                  int32_t level_encoding, const ColumnInfo& column, const std::string& where,
                  uint64_t* budget, ColumnValues& out);
  Status Spend(uint64_t bytes, const std::string& where, uint64_t* budget) const;
  Status Bad(const std::string& where, std::string_view what) const;

  ZstdDecompressor zstd_;
  ByteBuffer page_;
  std::vector<uint32_t> levels_;
  std::vector<uint32_t> indices_;
  ColumnValues dictionary_;
  bool has_dictionary_ = false;
  size_t page_index_ = 0;
};

}  // namespace sinkd::parquet
