// Plain mirrors of the parquet.thrift structures sinkd writes, with only the fields it writes.
// An optional field is a std::optional and is omitted from the wire when empty; a required field
// is a plain member and is always written (C++ Thrift readers throw on a missing one).
// metadata_serializer.h turns these into compact-protocol bytes; nothing here knows the wire.
// Threads: plain values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sinkd::parquet {

// Frozen: the enum values are parquet.thrift's, and reach disk.
enum class Type : int32_t { kBoolean = 0, kInt32 = 1, kInt64 = 2, kDouble = 5, kByteArray = 6 };
enum class Repetition : int32_t { kRequired = 0, kOptional = 1 };
enum class ConvertedType : int32_t { kUtf8 = 0, kTimestampMicros = 10 };
enum class Encoding : int32_t { kPlain = 0, kRle = 3, kRleDictionary = 8 };
enum class Codec : int32_t { kUncompressed = 0, kZstd = 6 };
enum class PageType : int32_t { kDataPage = 0, kDictionaryPage = 2 };

// The LogicalType union, restricted to the members sinkd writes.
enum class LogicalKind : uint8_t { kString, kTimestampMicrosUtc };

struct SchemaElement {
  std::optional<Type> type;                     // 1, leaves only
  std::optional<Repetition> repetition;         // 3, omitted on the root
  std::string name;                             // 4
  std::optional<int32_t> num_children;          // 5, root only
  std::optional<ConvertedType> converted_type;  // 6
  std::optional<int32_t> field_id;              // 9
  std::optional<LogicalKind> logical_type;      // 10
};

struct Statistics {
  std::optional<std::string> max;         // 1, legacy signed order; never for strings
  std::optional<std::string> min;         // 2
  std::optional<int64_t> null_count;      // 3
  std::optional<int64_t> distinct_count;  // 4
  std::optional<std::string> max_value;   // 5, ColumnOrder (TYPE_ORDER) semantics
  std::optional<std::string> min_value;   // 6
  std::optional<bool> is_max_value_exact;  // 7
  std::optional<bool> is_min_value_exact;  // 8
};

struct PageEncodingStats {
  PageType page_type = PageType::kDataPage;  // 1
  Encoding encoding = Encoding::kPlain;      // 2
  int32_t count = 0;                         // 3
};

struct ColumnMetaData {
  Type type = Type::kBoolean;                   // 1
  std::vector<Encoding> encodings;              // 2
  std::vector<std::string> path_in_schema;      // 3
  Codec codec = Codec::kZstd;                   // 4
  int64_t num_values = 0;                       // 5
  int64_t total_uncompressed_size = 0;          // 6, page headers included
  int64_t total_compressed_size = 0;            // 7, page headers included
  int64_t data_page_offset = 0;                 // 9
  std::optional<int64_t> dictionary_page_offset;  // 11, only when a dictionary page exists
  std::optional<Statistics> statistics;         // 12
  std::vector<PageEncodingStats> encoding_stats;  // 13, written when non-empty
  std::optional<int64_t> bloom_filter_offset;   // 14
  std::optional<int32_t> bloom_filter_length;   // 15, header + bitset
};

struct ColumnChunk {
  int64_t file_offset = 0;  // 2, deprecated meaning; the spec now says write 0
  ColumnMetaData meta_data;  // 3
};

struct RowGroup {
  std::vector<ColumnChunk> columns;             // 1
  int64_t total_byte_size = 0;                  // 2, sum of total_uncompressed_size
  int64_t num_rows = 0;                         // 3
  std::optional<int64_t> file_offset;           // 5, first page of the first chunk
  std::optional<int64_t> total_compressed_size;  // 6
  std::optional<int16_t> ordinal;               // 7
};

struct KeyValueEntry {
  std::string key;                   // 1
  std::optional<std::string> value;  // 2
};

struct FileMetaData {
  int32_t version = 1;                        // 1
  std::vector<SchemaElement> schema;          // 2, root first, then the leaves
  int64_t num_rows = 0;                       // 3
  std::vector<RowGroup> row_groups;           // 4
  std::vector<KeyValueEntry> key_value_metadata;  // 5, written when non-empty
  std::optional<std::string> created_by;      // 6
  // 7: one TYPE_ORDER per leaf when true (Arrow ignores min_value/max_value without it).
  bool type_defined_column_orders = true;
};

struct DataPageHeader {
  int32_t num_values = 0;                                // 1
  Encoding encoding = Encoding::kPlain;                  // 2
  Encoding definition_level_encoding = Encoding::kRle;   // 3
  Encoding repetition_level_encoding = Encoding::kRle;   // 4
};

struct DictionaryPageHeader {
  int32_t num_values = 0;                 // 1
  Encoding encoding = Encoding::kPlain;  // 2
};

struct PageHeader {
  PageType type = PageType::kDataPage;                      // 1
  int32_t uncompressed_page_size = 0;                       // 2, payload only, exact
  int32_t compressed_page_size = 0;                         // 3, payload only
  std::optional<DataPageHeader> data_page_header;           // 5
  std::optional<DictionaryPageHeader> dictionary_page_header;  // 7
};

// BloomFilterHeader with the only algorithm, hash and compression the format defines
// (BLOCK, XXHASH, UNCOMPRESSED), so only the size varies.
struct BloomFilterHeader {
  int32_t num_bytes = 0;  // 1
};

}  // namespace sinkd::parquet
