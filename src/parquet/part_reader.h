// PartReader reads the Parquet files sinkd must read back (compaction, verify): every Part sinkd
// writes, and the Parts DuckDB writes with COPY … (FORMAT parquet, COMPRESSION zstd) in the
// ledger's shape (the Go sink's lake). Anything else is refused, naming the file and the feature:
//   supported: flat schemas of BOOLEAN, INT32, INT64, DOUBLE, BYTE_ARRAY leaves, REQUIRED or
//     OPTIONAL; annotations STRING/UTF8, TIMESTAMP(MICROS) with or without UTC adjustment, and the
//     plain integer annotations INT(32|64, signed) / INT_32 / INT_64; codecs ZSTD and UNCOMPRESSED;
//     DATA_PAGE (V1) and DICTIONARY_PAGE pages; encodings PLAIN, RLE_DICTIONARY and
//     PLAIN_DICTIONARY (values), RLE (definition levels; booleans); page CRCs checked when present.
//   refused: nested or repeated fields, other physical or logical types, DATA_PAGE_V2, other
//     codecs and encodings, encrypted files.
// Every length, offset, count and index read from the file is checked against its buffer before
// use: a corrupt or truncated file is Refuse, never a crash and never a wrong row.
//
// ReadFooter reads the footer alone (2 reads at most; 1 when the footer is in the last 64 KiB).
// PartReader::Open reads the footer; ReadRowGroup reads one row group's column chunks (one read
// per chunk) and decodes them straight into ColumnValues.
// Ownership: PartReader owns its ReadAt, its footer, its scratch buffers and its ZSTD context,
// reused across chunks and row groups.
// Threads: one thread at a time per PartReader; separate readers are independent.
// Errors: Refuse "<name>: <what>" for what the file holds (corrupt, truncated, unsupported); the
// ReadAt's own error (with the name in front) when a read fails; Internal on a caller bug.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "parquet/part_writer.h"
#include "parquet/schema.h"

namespace sinkd::parquet {

// Reads up to `length` bytes at `offset` of one file (fewer only at its end). lake::Destination::Read
// fits it: [&](uint64_t o, uint64_t n) { return destination.Read(key, o, n); }
using ReadAt = std::function<Result<std::string>(uint64_t offset, uint64_t length)>;

struct ColumnInfo {            // one leaf column of the file, in file order
  std::string name;
  PhysicalType physical = PhysicalType::kByteArray;
  Annotation annotation = Annotation::kNone;  // kTimestampMicrosNaive for isAdjustedToUTC=false
  bool optional = false;       // OPTIONAL (definition level 1) vs REQUIRED
  int32_t field_id = -1;
};
struct ColumnChunkInfo {
  uint64_t values = 0;
  uint64_t compressed_bytes = 0;
  uint64_t null_count = 0;
  bool has_null_count = false;  // the chunk's statistics carry a null_count (else 0 above)
  // Raw PLAIN bytes of the chunk's bounds (min_value/max_value; legacy min/max for non-strings),
  // when the file has them. Bounds only: a writer may truncate long strings.
  std::optional<std::string> min, max;
};
struct RowGroupInfo {
  uint64_t rows = 0;
  uint64_t compressed_bytes = 0;
  uint64_t offset = 0;  // where its first chunk's first page starts (the writer's file_offset)
  std::vector<ColumnChunkInfo> columns;
};
struct FileFooter {
  std::vector<ColumnInfo> columns;
  std::vector<RowGroupInfo> row_groups;
  uint64_t rows = 0;
  std::vector<KeyValue> metadata;   // key_value_metadata, in file order (a missing value is "")
  std::string created_by;
  // The value of metadata key `key` (the first, if repeated), or nullopt.
  std::optional<std::string_view> Find(std::string_view key) const;
};
// Reads only the last 8 bytes and the footer (2 reads at most; 1 when the footer is in the last
// 64 KiB). Checks the schema (supported as above), that the row groups' rows add up to the file's,
// and that every chunk lies inside the file before the footer.
Result<FileFooter> ReadFooter(const ReadAt& read, uint64_t file_size, std::string_view name);

// Decoded values of one column chunk (or a whole row group's column), owning. One slot per row:
// a NULL row holds a placeholder (0, false, or an empty string) and defined[i] == 0. `defined` is
// empty when the column has no NULL in this chunk.
struct ColumnValues {
  PhysicalType physical = PhysicalType::kByteArray;
  std::vector<uint8_t> bools;
  std::vector<int32_t> int32s;
  std::vector<int64_t> int64s;
  std::vector<double> doubles;
  std::vector<uint32_t> offsets{0};
  std::string bytes;  // kByteArray: value i = bytes[offsets[i], offsets[i+1])
  std::vector<uint8_t> defined;
  size_t size() const;
};

class PartReader {
 public:
  static Result<std::unique_ptr<PartReader>> Open(ReadAt read, uint64_t file_size,
                                                  std::string name);
  ~PartReader();
  PartReader(const PartReader&) = delete;
  PartReader& operator=(const PartReader&) = delete;

  const FileFooter& footer() const;
  // Every column of row group `index` (or only `columns`, by file column index, in that order),
  // decoded. Checks every page: its CRC when present, every length against its buffer, definition
  // levels <= 1, dictionary indices < dictionary size, the values of its pages against the
  // chunk's num_values, and the rows of every column against the row group's.
  // Errors: Internal for an index or column out of range; Refuse as above.
  Result<std::vector<ColumnValues>> ReadRowGroup(size_t index, std::span<const int> columns = {});
  // The same into `out` (resized to the columns read), reusing its buffers' capacity: a reader of
  // row group after row group (compaction) then allocates only when a row group outgrows the last.
  // On error `out` holds partial values and must not be used.
  Status ReadRowGroup(size_t index, std::span<const int> columns, std::vector<ColumnValues>& out);
  // ReadRowGroup in its two halves, for a caller that reads on one thread (its ReadAt's) and
  // decodes on another (compaction decodes inputs on its pool; a Destination is one thread's):
  // FetchRowGroup reads the chunks' bytes and keeps them, DecodeFetched decodes them into `out`
  // with the errors ReadRowGroup gives. Internal when DecodeFetched has nothing fetched (each
  // fetch is decoded once).
  Status FetchRowGroup(size_t index, std::span<const int> columns);
  Status DecodeFetched(std::vector<ColumnValues>& out);

 private:
  struct Rep;
  explicit PartReader(std::unique_ptr<Rep> rep);
  std::unique_ptr<Rep> rep_;
};

}  // namespace sinkd::parquet
