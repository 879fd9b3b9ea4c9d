#include "parquet/page_header_decoder.h"

#include <fmt/format.h>

#include "parquet/thrift_compact_reader.h"

namespace sinkd::parquet {
namespace {

// A page claiming more is refused before anything is allocated for it.
constexpr int64_t kMaxPageBytes = int64_t{1} << 30;

using Kind = ThriftValue::Kind;

bool IntField(const ThriftValue& s, int16_t id, int64_t* out) {
  const ThriftValue* v = s.Find(id);
  if (!v || v->kind != Kind::kInt) return false;
  *out = v->i;
  return true;
}

}  // namespace

std::string EncodingName(int64_t encoding) {
  static const char* const kNames[] = {"PLAIN", "GROUP_VAR_INT", "PLAIN_DICTIONARY", "RLE",
                                       "BIT_PACKED", "DELTA_BINARY_PACKED",
                                       "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY",
                                       "RLE_DICTIONARY", "BYTE_STREAM_SPLIT"};
  if (encoding >= 0 && encoding < 10) return kNames[encoding];
  return fmt::format("{} (unknown)", encoding);
}

std::string CodecName(int64_t codec) {
  static const char* const kNames[] = {"UNCOMPRESSED", "SNAPPY", "GZIP", "LZO",
                                       "BROTLI", "LZ4", "ZSTD", "LZ4_RAW"};
  if (codec >= 0 && codec < 8) return kNames[codec];
  return fmt::format("{} (unknown)", codec);
}

Result<PageHeaderInfo> DecodePageHeader(std::string_view bytes) {
  PageHeaderInfo info;
  SINKD_ASSIGN_OR_RETURN(const ThriftValue h, DecodeThriftStruct(bytes, &info.header_bytes));
  int64_t type, uncompressed, compressed;
  if (!IntField(h, 1, &type) || !IntField(h, 2, &uncompressed) || !IntField(h, 3, &compressed)) {
    return Status::Refuse("a page header lacks its type or sizes");
  }
  if (uncompressed < 0 || compressed < 0 || uncompressed > kMaxPageBytes) {
    return Status::Refuse(fmt::format("page sizes {} / {} are out of range", uncompressed, compressed));
  }
  if (static_cast<uint64_t>(compressed) > bytes.size() - info.header_bytes) {
    return Status::Refuse(fmt::format("truncated: a page of {} bytes is past its chunk's end",
                                      compressed));
  }
  info.type = static_cast<int32_t>(type);
  info.uncompressed = static_cast<size_t>(uncompressed);
  info.compressed = static_cast<size_t>(compressed);
  int64_t crc;
  if (IntField(h, 4, &crc)) info.crc = static_cast<uint32_t>(crc);
  const int16_t detail = type == 0 ? 5 : type == 2 ? 7 : 0;
  if (detail == 0) return info;  // the caller refuses or skips other page types
  const ThriftValue* d = h.Find(detail);
  int64_t num_values, encoding;
  if (!d || d->kind != Kind::kStruct || !IntField(*d, 1, &num_values) ||
      !IntField(*d, 2, &encoding)) {
    return Status::Refuse(type == 0 ? "a data page has no data_page_header"
                                    : "a dictionary page has no dictionary_page_header");
  }
  if (num_values < 0 || num_values > INT32_MAX) {
    return Status::Refuse(fmt::format("a page's num_values {} is out of range", num_values));
  }
  info.num_values = static_cast<uint32_t>(num_values);
  info.encoding = static_cast<int32_t>(encoding);
  if (type == 0) {
    int64_t levels = 3;
    if (!IntField(*d, 3, &levels)) return Status::Refuse("a data page has no definition_level_encoding");
    info.definition_level_encoding = static_cast<int32_t>(levels);
  }
  return info;
}

}  // namespace sinkd::parquet
