// Test helpers over the one Thrift compact decoder (parquet/thrift_compact_reader.h): footer and
// page walks that fail the test on malformed input, so that tests can check what the writer
// emitted with code that shares nothing with the writer's serialiser.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "parquet/thrift_compact_reader.h"

namespace sinkd::parquet {

// Decodes one struct starting at bytes[0]; sets *consumed to its length. Fails the test on
// malformed input (and returns an empty struct).
ThriftValue DecodeStruct(std::string_view bytes, size_t* consumed = nullptr);

// The FileMetaData of a whole Parquet file (checks both magics and the length).
ThriftValue DecodeFooter(std::string_view file);

// Field ids on the way from the footer to a column's metadata (parquet.thrift):
// FileMetaData.row_groups, RowGroup.columns, ColumnChunk.meta_data.
constexpr int16_t kRowGroups = 4, kColumns = 1, kMeta = 3;

// One page as found in a file: header fields and where its payload is.
struct PageInFile {
  ThriftValue header;
  size_t offset = 0;          // of the header
  size_t header_bytes = 0;
  size_t payload_offset = 0;
  size_t compressed_bytes = 0;
  std::string Uncompressed(std::string_view file) const;  // zstd-decompressed payload
};

// Walks the pages of the chunk described by ColumnMetaData `meta` (from its first page to
// total_compressed_size).
std::vector<PageInFile> ChunkPages(std::string_view file, const ThriftValue& meta);

}  // namespace sinkd::parquet
