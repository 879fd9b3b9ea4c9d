// A generic Thrift compact-protocol decoder for the tests: it turns footer and page-header bytes
// into a tree without knowing Parquet, so that tests can check what the writer emitted with code
// that shares nothing with the writer's serialiser.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace sinkd::parquet {

struct ThriftValue;
using ThriftStruct = std::map<int16_t, ThriftValue>;

struct ThriftValue {
  enum class Kind { kBool, kInt, kDouble, kBinary, kList, kStruct } kind = Kind::kInt;
  bool b = false;
  int64_t i = 0;
  double d = 0;
  std::string bin;
  std::vector<ThriftValue> list;
  std::shared_ptr<ThriftStruct> fields;  // kStruct

  // Accessors that fail the test (via ADD_FAILURE) and return a default when absent.
  bool Has(int16_t id) const { return fields && fields->count(id); }
  const ThriftValue& operator[](int16_t id) const;
  int64_t Int(int16_t id) const { return (*this)[id].i; }
  const std::string& Bin(int16_t id) const { return (*this)[id].bin; }
  const std::vector<ThriftValue>& List(int16_t id) const { return (*this)[id].list; }
};

// Decodes one struct starting at bytes[0]; sets *consumed to its length. Returns a kStruct value,
// or fails the test on malformed input.
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
