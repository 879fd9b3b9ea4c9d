// The footer as the reader needs it: the public FileFooter plus where each column chunk lies and
// what its metadata promises (checked later against its pages). Internal to src/parquet.
// Threads: plain values and a free function.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "parquet/part_reader.h"

namespace sinkd::parquet {

struct ChunkLocation {
  uint64_t offset = 0;  // of its first page (the dictionary page when there is one)
  uint64_t length = 0;  // total_compressed_size, page headers included
  int32_t codec = 0;    // parquet.thrift CompressionCodec
  uint64_t num_values = 0;
};

struct DecodedFooter {
  FileFooter footer;
  std::vector<std::vector<ChunkLocation>> chunks;  // [row group][column]
};

// Reads and checks the footer (see ReadFooter in part_reader.h).
Result<DecodedFooter> ReadDecodedFooter(const ReadAt& read, uint64_t file_size,
                                        std::string_view name);

}  // namespace sinkd::parquet
