// Bytes of an object container file:
//   magic        4 bytes  "Obj" 0x01
//   metadata     map<bytes>: long count, count × (string key, bytes value), long 0
//   sync         16 bytes
//   block*       long record count, long byte size, size bytes of records (after the codec),
//                the 16 sync bytes again
#include "avro/container.h"

#include <fmt/format.h>

#include <atomic>
#include <cstring>

#include "avro/datum.h"
#include "avro/deflate.h"

namespace sinkd::avro {

namespace {

constexpr char kMagic[4] = {'O', 'b', 'j', 1};

void AppendString(std::string_view s, std::string& out) {
  AppendLong(static_cast<int64_t>(s.size()), out);
  out += s;
}

std::string_view CodecName(Codec codec) { return codec == Codec::kNull ? "null" : "deflate"; }

Status Corrupt(std::string_view what) {
  return Status::Reject("avro: corrupt container: " + std::string(what));
}

}  // namespace

ContainerWriter::ContainerWriter(Schema schema, Metadata metadata, WriterOptions options)
    : schema_(std::move(schema)), metadata_(std::move(metadata)), options_(options) {
  for (const auto& [key, value] : metadata_) {
    if (key.rfind("avro.", 0) == 0) {
      status_ = Status::Refuse("avro: header key \"" + key + "\" is reserved");
    }
  }
  if (options_.deflate_level < 1 || options_.deflate_level > 9) {
    status_ = Status::Refuse("avro: deflate level outside 1-9");
  }
}

Status ContainerWriter::Append(const Value& record) {
  return AppendEncoded(
      [&](std::string& out) { return EncodeDatum(schema_, schema_.root_index(), record, out); });
}

Status ContainerWriter::AppendEncoded(const std::function<Status(std::string& out)>& encode) {
  if (!status_.ok()) return status_;
  const size_t mark = block_.size();
  Status s = encode(block_);
  if (!s.ok()) {
    block_.resize(mark);
    return status_ = s;
  }
  ++block_records_;
  if (block_.size() >= options_.block_bytes) return status_ = FlushBlock();
  return Status::OK();
}

Status ContainerWriter::FlushBlock() {
  if (block_records_ == 0) return Status::OK();
  blocks_.emplace_back(block_records_, std::move(block_));
  block_ = std::string();
  block_.reserve(options_.block_bytes + options_.block_bytes / 4);
  block_records_ = 0;
  return Status::OK();
}

Result<std::string> ContainerWriter::Finish() {
  if (finished_) return Status::Internal("avro: Finish called twice");
  finished_ = true;
  if (status_.ok()) status_ = FlushBlock();
  if (!status_.ok()) return status_;
  if (options_.codec == Codec::kDeflate) {
    std::vector<Status> deflated(blocks_.size());
    const auto deflate = [&](size_t i, size_t) {
      Result<std::string> data = Deflate(blocks_[i].second, options_.deflate_level);
      if (data.ok()) {
        blocks_[i].second = std::move(*data);
      } else {
        deflated[i] = data.status();
      }
    };
    WorkPool::ParallelFor(options_.pool, blocks_.size(), deflate);
    for (const Status& s : deflated) {
      if (!s.ok()) return status_ = s;
    }
  }
  std::string out(kMagic, sizeof kMagic);
  AppendLong(static_cast<int64_t>(metadata_.size() + 2), out);
  AppendString("avro.schema", out);
  AppendString(schema_.json(), out);
  AppendString("avro.codec", out);
  AppendString(CodecName(options_.codec), out);
  for (const auto& [key, value] : metadata_) {
    AppendString(key, out);
    AppendString(value, out);
  }
  AppendLong(0, out);
  out.append(reinterpret_cast<const char*>(options_.sync.data()), options_.sync.size());
  for (const auto& [count, data] : blocks_) {
    AppendLong(count, out);
    AppendString(data, out);
    out.append(reinterpret_cast<const char*>(options_.sync.data()), options_.sync.size());
  }
  blocks_.clear();
  return out;
}

const std::string* ContainerFile::Find(std::string_view key) const {
  for (const auto& [k, v] : metadata) {
    if (k == key) return &v;
  }
  return nullptr;
}

namespace {

// The header's map<bytes>, read with the datum reader's bounds.
Result<Metadata> ReadMetadata(DatumReader& in) {
  Metadata out;
  for (;;) {
    SINKD_ASSIGN_OR_RETURN(int64_t count, in.ReadLong());
    if (count == 0) return out;
    if (count < 0) {
      if (count == INT64_MIN) return Corrupt("a header count out of range");
      count = -count;
      SINKD_ASSIGN_OR_RETURN(const int64_t size, in.ReadLong());
      if (size < 0) return Corrupt("a negative header block size");
    }
    // Each entry takes at least two bytes (two empty lengths).
    if (static_cast<uint64_t>(count) > in.remaining() / 2)
      return Corrupt("a header count past the end");
    for (int64_t i = 0; i < count; ++i) {
      std::string kv[2];
      for (std::string& s : kv) {
        SINKD_ASSIGN_OR_RETURN(const int64_t length, in.ReadLong());
        if (length < 0 || static_cast<uint64_t>(length) > in.remaining()) {
          return Corrupt("a header string past the end");
        }
        SINKD_ASSIGN_OR_RETURN(s, in.ReadRaw(static_cast<size_t>(length)));
      }
      out.emplace_back(std::move(kv[0]), std::move(kv[1]));
    }
  }
}

}  // namespace

Result<ContainerFile> ReadContainer(std::string_view bytes, const ReadLimits& limits) {
  std::vector<Value> records;
  Result<ContainerFile> file = ReadContainerEach(
      bytes,
      [&](DatumReader& in, const ContainerFile& header) {
        SINKD_ASSIGN_OR_RETURN(Value record, in.Read(header.schema, header.schema.root_index()));
        records.push_back(std::move(record));
        return Status::OK();
      },
      limits);
  if (file.ok()) file->records = std::move(records);
  return file;
}

Result<ContainerBlocks> ReadContainerBlocks(std::string_view bytes, const ReadLimits& limits,
                                            WorkPool* pool) {
  if (bytes.size() > limits.max_file_bytes) {
    // One format string, not a sum of literals: gcc stores a summed literal in 16-byte pieces,
    // and "avro: a containe" alone is a spelling finding of lintian's in the packaged binary.
    return Status::Reject(fmt::format("avro: a container of {} bytes, past the limit of {}",
                                      bytes.size(), limits.max_file_bytes));
  }
  if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) {
    return Corrupt("no Obj\\x01 magic");
  }
  DatumReader in(bytes.substr(sizeof kMagic), limits.max_values);
  ContainerBlocks out;
  ContainerFile& file = out.header;
  SINKD_ASSIGN_OR_RETURN(file.metadata, ReadMetadata(in));
  const std::string* schema = file.Find("avro.schema");
  if (schema == nullptr) return Corrupt("no avro.schema in the header");
  const std::string* codec = file.Find("avro.codec");
  file.codec = codec == nullptr ? "null" : *codec;
  if (file.codec != "null" && file.codec != "deflate") {
    return Status::Reject("avro: codec \"" + file.codec + "\" is not supported (null, deflate)");
  }
  SINKD_ASSIGN_OR_RETURN(file.schema, Schema::Parse(*schema));
  SINKD_ASSIGN_OR_RETURN(const std::string sync, in.ReadRaw(file.sync.size()));
  std::memcpy(file.sync.data(), sync.data(), sync.size());
  while (in.remaining() > 0) {
    SINKD_ASSIGN_OR_RETURN(const int64_t count, in.ReadLong());
    SINKD_ASSIGN_OR_RETURN(const int64_t size, in.ReadLong());
    if (count < 0 || size < 0 || static_cast<uint64_t>(size) > in.remaining()) {
      return Corrupt("a block's count or size is negative or past the end");
    }
    SINKD_ASSIGN_OR_RETURN(std::string data, in.ReadRaw(static_cast<size_t>(size)));
    SINKD_ASSIGN_OR_RETURN(const std::string marker, in.ReadRaw(file.sync.size()));
    if (std::memcmp(marker.data(), file.sync.data(), file.sync.size()) != 0) {
      return Corrupt("a block not followed by the file's sync marker");
    }
    if (file.codec == "null" && data.size() > limits.max_block_bytes) {
      return Status::Reject("avro: a block past " + std::to_string(limits.max_block_bytes) +
                            " bytes");
    }
    out.blocks.push_back(ContainerBlock{count, std::move(data)});
  }
  if (file.codec == "deflate") {
    std::vector<Status> inflated(out.blocks.size());
    // Held at once: a file of blocks that each inflate a thousandfold must not take the memory a
    // block at a time did not.
    std::atomic<uint64_t> total{0};
    const auto inflate = [&](size_t i, size_t) {
      if (total.load() > limits.max_blocks_bytes) return;  // reported below
      Result<std::string> data = Inflate(out.blocks[i].data, limits.max_block_bytes);
      if (!data.ok()) {
        inflated[i] = data.status();
        return;
      }
      total += data->size();
      out.blocks[i].data = std::move(*data);
    };
    WorkPool::ParallelFor(pool, out.blocks.size(), inflate);
    for (const Status& s : inflated) SINKD_RETURN_IF_ERROR(s);
    if (total.load() > limits.max_blocks_bytes) {
      return Status::Reject(fmt::format("avro: blocks inflating past {} bytes in all",
                                        limits.max_blocks_bytes));
    }
  }
  return out;
}

Status ReadBlockRecords(const ContainerBlock& block, const ContainerFile& header,
                        uint64_t max_values, const RecordReader& read_record, uint64_t* values) {
  DatumReader in(block.data, max_values);
  const uint64_t min_bytes = header.schema.root().min_bytes;
  if (min_bytes > 0 && static_cast<uint64_t>(block.count) > block.data.size() / min_bytes) {
    return Corrupt("a block's record count past its bytes");
  }
  for (int64_t i = 0; i < block.count; ++i) SINKD_RETURN_IF_ERROR(read_record(in, header));
  if (in.remaining() != 0) return Corrupt("a block with bytes after its last record");
  *values += in.values();
  return Status::OK();
}

Result<ContainerFile> ReadContainerEach(std::string_view bytes, const RecordReader& read_record,
                                        const ReadLimits& limits) {
  SINKD_ASSIGN_OR_RETURN(ContainerBlocks read, ReadContainerBlocks(bytes, limits));
  uint64_t values = 0;
  for (const ContainerBlock& block : read.blocks) {
    SINKD_RETURN_IF_ERROR(
        ReadBlockRecords(block, read.header, limits.max_values - values, read_record, &values));
  }
  return std::move(read.header);
}

}  // namespace sinkd::avro
