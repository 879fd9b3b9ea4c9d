#include "parquet/column_chunk_decoder.h"

#include <fmt/format.h>

#include <cstring>

#include "parquet/crc32.h"
#include "parquet/dictionary_decoder.h"
#include "parquet/page_header_decoder.h"
#include "parquet/plain_decoder.h"
#include "parquet/rle_bit_packed_decoder.h"

namespace sinkd::parquet {
namespace {

constexpr int32_t kCodecUncompressed = 0, kCodecZstd = 6;
constexpr int32_t kPlain = 0, kPlainDictionary = 2, kRle = 3, kRleDictionary = 8;

void Reset(ColumnValues& v, PhysicalType physical) {
  v.physical = physical;
  v.bools.clear();
  v.int32s.clear();
  v.int64s.clear();
  v.doubles.clear();
  v.offsets.assign(1, 0);
  v.bytes.clear();
  v.defined.clear();
}

// Moves the `dense` values at the end of `values` (from `base`) to their rows, NULL rows getting
// T{}: walking backwards, a value only moves to a later slot, so nothing is overwritten unread.
template <typename T>
void Spread(std::vector<T>& values, size_t base, const uint32_t* levels, size_t n, size_t dense) {
  values.resize(base + n);
  T* v = values.data() + base;
  size_t next = dense;
  for (size_t i = n; i-- > 0;) v[i] = levels[i] ? v[--next] : T{};
}

// The same for string offsets: offsets[base + 1 + i] ends row i; a NULL row ends where the value
// before it ends.
void SpreadOffsets(std::vector<uint32_t>& offsets, size_t base, const uint32_t* levels, size_t n,
                   size_t dense) {
  offsets.resize(base + 1 + n);
  uint32_t* o = offsets.data() + base;
  size_t count = dense;
  for (size_t i = n; i-- > 0;) {
    o[i + 1] = o[count];
    if (levels[i]) --count;
  }
}

}  // namespace

Status ColumnChunkDecoder::Bad(const std::string& where, std::string_view what) const {
  return Status::Refuse(fmt::format("{}: page {}: {}", where, page_index_, what));
}

Status ColumnChunkDecoder::Spend(uint64_t bytes, const std::string& where,
                                 uint64_t* budget) const {
  if (bytes > *budget) {
    return Bad(where, fmt::format("the row group decodes to more than the {} bytes supported",
                                  kMaxRowGroupDecodedBytes));
  }
  *budget -= bytes;
  return Status::OK();
}

Status ColumnChunkDecoder::Decode(std::string_view chunk, const ColumnInfo& column,
                                  const ChunkLocation& location, const ColumnChunkInfo& info,
                                  const std::string& where, uint64_t* budget, ColumnValues& out) {
  Reset(out, column.physical);
  Reset(dictionary_, column.physical);
  has_dictionary_ = false;
  page_index_ = 0;
  if (location.codec != kCodecZstd && location.codec != kCodecUncompressed) {
    return Status::Refuse(fmt::format("{}: codec {} is not supported", where,
                                      CodecName(location.codec)));
  }
  if (location.num_values > kMaxRowGroupRows) {
    return Status::Refuse(fmt::format("{}: {} values in one chunk is more than the {} supported",
                                      where, location.num_values, kMaxRowGroupRows));
  }
  const size_t rows = static_cast<size_t>(location.num_values);
  switch (column.physical) {
    case PhysicalType::kBoolean: out.bools.reserve(rows); break;
    case PhysicalType::kInt32: out.int32s.reserve(rows); break;
    case PhysicalType::kInt64: out.int64s.reserve(rows); break;
    case PhysicalType::kDouble: out.doubles.reserve(rows); break;
    case PhysicalType::kByteArray: out.offsets.reserve(rows + 1); break;
  }
  if (column.optional) out.defined.reserve(rows);

  uint64_t values = 0;
  size_t at = 0;
  for (; at < chunk.size(); ++page_index_) {
    Result<PageHeaderInfo> header = DecodePageHeader(chunk.substr(at));
    if (!header.ok()) return Bad(where, header.status().message());
    const PageHeaderInfo& h = *header;
    const uint8_t* payload = reinterpret_cast<const uint8_t*>(chunk.data()) + at + h.header_bytes;
    at += h.header_bytes + h.compressed;
    if (h.crc && Crc32(payload, h.compressed) != *h.crc) return Bad(where, "CRC mismatch");
    if (h.type == 1) continue;  // INDEX_PAGE: never written, nothing a reader needs
    if (h.type == 3) return Bad(where, "DATA_PAGE_V2 is not supported");
    if (h.type != 0 && h.type != 2) return Bad(where, fmt::format("unknown page type {}", h.type));

    const uint8_t* page = payload;
    if (location.codec == kCodecZstd) {
      if (const char* error = zstd_.Decompress(payload, h.compressed, h.uncompressed, page_)) {
        return Bad(where, error);
      }
      page = page_.data();
    } else if (h.uncompressed != h.compressed) {
      return Bad(where, "an UNCOMPRESSED page's two sizes differ");
    }

    if (h.type == 2) {
      if (has_dictionary_ || values > 0) return Bad(where, "a second or late dictionary page");
      if (h.encoding != kPlain && h.encoding != kPlainDictionary) {
        return Bad(where, fmt::format("dictionary encoding {} is not supported",
                                      EncodingName(h.encoding)));
      }
      Status spent = Spend(h.uncompressed, where, budget);
      if (!spent.ok()) return spent;
      size_t used = 0;
      if (const char* error = DecodePlain(page, h.uncompressed, h.num_values, SIZE_MAX,
                                          dictionary_, &used)) {
        return Bad(where, fmt::format("dictionary: {}", error));
      }
      has_dictionary_ = true;
      continue;
    }
    if (h.num_values > location.num_values - values) {
      return Bad(where, fmt::format("the pages hold more than the chunk's {} values",
                                    location.num_values));
    }
    Status s = DataPage(page, h.uncompressed, h.num_values, h.encoding,
                        h.definition_level_encoding, column, where, budget, out);
    if (!s.ok()) return s;
    values += h.num_values;
  }
  if (values != location.num_values) {
    return Status::Refuse(fmt::format("{}: truncated: the pages hold {} of the chunk's {} values",
                                      where, values, location.num_values));
  }
  if (column.optional) {
    size_t nulls = 0;
    for (const uint8_t d : out.defined) nulls += d == 0;
    if (info.null_count != 0 || nulls != 0) {
      // The footer's count was read from the same file: a disagreement is corruption.
      if (nulls != info.null_count) {
        return Status::Refuse(fmt::format("{}: {} NULLs, the statistics say {}", where, nulls,
                                          info.null_count));
      }
    }
    if (nulls == 0) out.defined.clear();
  }
  return Status::OK();
}

Status ColumnChunkDecoder::DataPage(const uint8_t* page, size_t size, uint32_t num_values,
                                    int32_t encoding, int32_t level_encoding,
                                    const ColumnInfo& column, const std::string& where,
                                    uint64_t* budget, ColumnValues& out) {
  static const uint64_t kSlotBytes[] = {1, 4, 8, 8, 4};  // per physical type; strings: the offset
  Status spent = Spend(uint64_t{num_values} * (kSlotBytes[static_cast<int>(column.physical)] +
                                               (column.optional ? 1 : 0)),
                       where, budget);
  if (!spent.ok()) return spent;
  const size_t bytes_before = out.bytes.size();
  const size_t max_bytes = bytes_before + static_cast<size_t>(*budget);
  size_t dense = num_values;
  const uint32_t* levels = nullptr;
  if (column.optional) {
    // V1: definition levels (max 1, so bit width 1) behind a 4-byte length.
    if (level_encoding != kRle) {
      return Bad(where, fmt::format("definition level encoding {} is not supported",
                                    EncodingName(level_encoding)));
    }
    if (size < 4) return Bad(where, "truncated: no definition levels");
    uint32_t length;
    std::memcpy(&length, page, 4);
    if (length > size - 4) return Bad(where, "truncated: definition levels past the page");
    levels_.resize(num_values);
    RleBitPackedDecoder decoder(page + 4, length, 1);
    if (const char* error = decoder.Decode(levels_.data(), num_values)) {
      return Bad(where, fmt::format("definition levels: {}", error));
    }
    levels = levels_.data();
    dense = 0;
    const size_t at = out.defined.size();
    out.defined.resize(at + num_values);
    uint8_t* defined = out.defined.data() + at;
    for (size_t i = 0; i < num_values; ++i) {
      defined[i] = static_cast<uint8_t>(levels[i]);
      dense += levels[i];
    }
    page += 4 + length;
    size -= 4 + length;
  }

  const size_t base = out.size();
  switch (encoding) {
    case kPlain: {
      size_t used = 0;
      if (const char* error = DecodePlain(page, size, dense, max_bytes, out, &used)) {
        return Bad(where, error);
      }
      break;
    }
    case kPlainDictionary:
    case kRleDictionary: {
      if (!has_dictionary_) return Bad(where, "dictionary-encoded values without a dictionary page");
      if (const char* error = DecodeDictionaryIndices(page, size, dense, indices_)) {
        return Bad(where, fmt::format("dictionary indices: {}", error));
      }
      if (const char* error = GatherDictionary(dictionary_, indices_.data(), dense,
                                               max_bytes, out)) {
        return Bad(where, error);
      }
      break;
    }
    case kRle: {
      if (column.physical != PhysicalType::kBoolean) {
        return Bad(where, "RLE values are only supported for BOOLEAN");
      }
      if (size < 4) return Bad(where, "truncated: no RLE length");
      uint32_t length;
      std::memcpy(&length, page, 4);
      if (length > size - 4) return Bad(where, "truncated: RLE values past the page");
      indices_.resize(dense);
      RleBitPackedDecoder decoder(page + 4, length, 1);
      if (const char* error = decoder.Decode(indices_.data(), dense)) {
        return Bad(where, fmt::format("RLE booleans: {}", error));
      }
      const size_t at = out.bools.size();
      out.bools.resize(at + dense);
      for (size_t i = 0; i < dense; ++i) out.bools[at + i] = static_cast<uint8_t>(indices_[i]);
      break;
    }
    default:
      return Bad(where, fmt::format("encoding {} is not supported", EncodingName(encoding)));
  }

  *budget -= out.bytes.size() - bytes_before;  // within it: max_bytes was checked
  if (levels && dense != num_values) {
    switch (out.physical) {
      case PhysicalType::kBoolean: Spread(out.bools, base, levels, num_values, dense); break;
      case PhysicalType::kInt32: Spread(out.int32s, base, levels, num_values, dense); break;
      case PhysicalType::kInt64: Spread(out.int64s, base, levels, num_values, dense); break;
      case PhysicalType::kDouble: Spread(out.doubles, base, levels, num_values, dense); break;
      case PhysicalType::kByteArray: SpreadOffsets(out.offsets, base, levels, num_values, dense); break;
    }
  }
  return Status::OK();
}

}  // namespace sinkd::parquet
