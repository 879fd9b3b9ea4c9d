// An Avro object container file (Avro specification, "Object Container Files"), written and read
// whole in memory — the size of an Iceberg manifest or manifest list:
//   "Obj" 0x01 | metadata map<bytes> (avro.schema, avro.codec, the caller's keys) | 16-byte sync
//   then blocks: long record count | long byte size | records (codec-compressed) | the sync
// Codecs: null and deflate (raw RFC 1951), the two every Avro reader must know.
// Threads: ContainerWriter is one thread at a time; the readers are pure functions. With a
// WorkPool (WriterOptions::pool, ReadContainerBlocks' pool) the blocks are deflated or inflated on
// it, each block being a stream of its own: the bytes do not depend on it.
// Errors: the writer keeps the first failure (Append does nothing after it, Finish returns it);
// the reader returns Reject for anything corrupt or past its limits, naming it, and never reads
// past the bytes it was given.
// Never touches a file, a socket or the clock.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "avro/datum.h"
#include "avro/schema.h"
#include "avro/value.h"
#include "base/result.h"
#include "base/work_pool.h"

namespace sinkd::avro {

enum class Codec : uint8_t { kNull, kDeflate };

using Metadata = std::vector<std::pair<std::string, std::string>>;

struct WriterOptions {
  Codec codec = Codec::kDeflate;
  // zlib level, 1-9. 6 is zlib's default; Iceberg's manifests use 1 (iceberg/manifest.h says
  // why).
  int deflate_level = 6;
  // Records are gathered into a block until it holds this many bytes (before compression).
  size_t block_bytes = 64 * 1024;
  // The marker after the header and every block. Readers resynchronise on it, so it must be
  // unlikely to occur in the data: random, or a hash of something unique to the file. Passed
  // in, so that the same records give the same bytes (no hidden randomness).
  std::array<uint8_t, 16> sync{};
  // Deflates the blocks at Finish on this pool (borrowed), not one by one on the calling thread:
  // a compaction's replace deflated a 5,156-entry manifest (7 MB) on its one thread. nullptr:
  // the calling thread.
  WorkPool* pool = nullptr;
};

class ContainerWriter {
 public:
  // `metadata`: the caller's header keys, written after avro.schema and avro.codec, in order.
  // A key starting with "avro." leaves the writer failed with Refuse (the specification reserves
  // them).
  ContainerWriter(Schema schema, Metadata metadata, WriterOptions options = {});

  // Encodes one record of the schema's root type from a value tree: the generic form, for any
  // schema (iceberg's manifests use AppendEncoded). Refuse (from EncodeDatum) for a value that
  // does not fit; the record is then not written and the writer is failed.
  Status Append(const Value& record);

  // Appends one record its caller encodes itself, for a writer of one fixed schema that need not
  // build a Value first (iceberg's manifests): `encode` appends exactly one datum of the schema's
  // root to `out`, the block being filled. When it fails, what it appended is dropped and the
  // writer is failed with its error.
  Status AppendEncoded(const std::function<Status(std::string& out)>& encode);

  // The whole file. REQUIRES: called once.
  Result<std::string> Finish();

  const Status& status() const { return status_; }

 private:
  Status FlushBlock();

  Schema schema_;
  Metadata metadata_;
  WriterOptions options_;
  // Finished blocks, not yet through the codec: their record counts and records.
  std::vector<std::pair<int64_t, std::string>> blocks_;
  std::string block_;  // records of the block being filled
  int64_t block_records_ = 0;
  Status status_;
  bool finished_ = false;
};

struct ReadLimits {
  uint64_t max_file_bytes = 256u << 20;
  uint64_t max_block_bytes = 64u << 20;  // a block after inflating
  // Every block after inflating, for ReadContainerBlocks, which holds them all at once.
  uint64_t max_blocks_bytes = 256u << 20;
  uint64_t max_values = 16u << 20;       // values built in all (records, fields, items)
};

struct ContainerFile {
  Schema schema;
  std::string codec;  // "null" or "deflate"
  Metadata metadata;  // every header key, avro.schema and avro.codec included, in file order
  std::array<uint8_t, 16> sync{};
  std::vector<Value> records;

  // The value of header key `key`, or nullptr.
  const std::string* Find(std::string_view key) const;
};

// Reads a whole container file. Reject for a wrong magic, a header without avro.schema or with
// an unknown codec, a schema that does not parse, a block whose sync marker differs or whose
// records do not fill it exactly, and every corruption DatumReader names.
Result<ContainerFile> ReadContainer(std::string_view bytes, const ReadLimits& limits = {});

// ReadContainer with each record handed to `read_record` instead of built as a Value (`records`
// stays empty): with the file's header read so far (schema, codec, metadata, sync), it must read
// exactly one datum of the schema's root from the reader, and an error from it ends the read.
// For a caller that keeps a few fields of large records.
struct ContainerFile;
using RecordReader = std::function<Status(DatumReader& in, const ContainerFile& header)>;
Result<ContainerFile> ReadContainerEach(std::string_view bytes, const RecordReader& read_record,
                                        const ReadLimits& limits = {});

// A container's blocks, read and checked (magic, header, every sync marker, the codec, each
// block's size within limits) and decoded by the codec, their records not yet read: for a reader
// that decodes blocks in parallel (each block's records stand alone). Rejects as ReadContainer.
struct ContainerBlock {
  int64_t count = 0;  // records
  std::string data;   // after the codec
};
struct ContainerBlocks {
  ContainerFile header;  // records empty
  std::vector<ContainerBlock> blocks;
};
Result<ContainerBlocks> ReadContainerBlocks(std::string_view bytes, const ReadLimits& limits = {},
                                            WorkPool* pool = nullptr);

// Reads block `block`'s `count` records through `read_record`, allowing at most `max_values`
// values; adds those built to `values`. Reject when the count cannot fit the block's bytes or
// bytes are left after the last record.
Status ReadBlockRecords(const ContainerBlock& block, const ContainerFile& header,
                        uint64_t max_values, const RecordReader& read_record, uint64_t* values);

}  // namespace sinkd::avro
