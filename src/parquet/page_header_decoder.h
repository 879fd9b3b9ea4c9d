// PageHeader (parquet.thrift) as the reader needs it, decoded from the bytes in front of each page
// and checked against what is left of its chunk. Internal to src/parquet.
// Threads: a free function.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"

namespace sinkd::parquet {

struct PageHeaderInfo {
  int32_t type = 0;  // PageType: 0 DATA_PAGE, 1 INDEX_PAGE, 2 DICTIONARY_PAGE, 3 DATA_PAGE_V2
  size_t header_bytes = 0;
  size_t uncompressed = 0;
  size_t compressed = 0;  // payload bytes after the header, inside the chunk
  std::optional<uint32_t> crc;
  // DATA_PAGE / DICTIONARY_PAGE fields (num_values, encoding; levels for data pages).
  uint32_t num_values = 0;
  int32_t encoding = 0;
  int32_t definition_level_encoding = 3;
};

// Decodes the header at the start of `bytes` (the rest of the chunk). Errors: Refuse with the
// reason alone (the caller names the file, row group and column).
Result<PageHeaderInfo> DecodePageHeader(std::string_view bytes);

// parquet.thrift names, for messages.
std::string EncodingName(int64_t encoding);
std::string CodecName(int64_t codec);

}  // namespace sinkd::parquet
