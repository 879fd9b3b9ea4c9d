#include "parquet/plain_decoder.h"

#include <cstring>

namespace sinkd::parquet {
namespace {

template <typename T>
const char* Fixed(const uint8_t* data, size_t size, size_t n, std::vector<T>& out, size_t* used) {
  if (n > size / sizeof(T)) return "truncated: fewer PLAIN values than the page says";
  const size_t at = out.size();
  out.resize(at + n);
  if (n) std::memcpy(out.data() + at, data, n * sizeof(T));
  *used = n * sizeof(T);
  return nullptr;
}

}  // namespace

const char* DecodePlain(const uint8_t* data, size_t size, size_t n, size_t max_bytes,
                        ColumnValues& out, size_t* used) {
  switch (out.physical) {
    case PhysicalType::kInt32: return Fixed(data, size, n, out.int32s, used);
    case PhysicalType::kInt64: return Fixed(data, size, n, out.int64s, used);
    case PhysicalType::kDouble: return Fixed(data, size, n, out.doubles, used);
    case PhysicalType::kBoolean: {
      if ((n + 7) / 8 > size) return "truncated: fewer PLAIN booleans than the page says";
      const size_t at = out.bools.size();
      out.bools.resize(at + n);
      uint8_t* dst = out.bools.data() + at;
      for (size_t i = 0; i < n; ++i) dst[i] = (data[i >> 3] >> (i & 7)) & 1;
      *used = (n + 7) / 8;
      return nullptr;
    }
    case PhysicalType::kByteArray: {
      // Two passes: lengths first (bounds, total size), then one copy per value into storage
      // reserved once.
      size_t at = 0;
      for (size_t i = 0; i < n; ++i) {
        if (size - at < 4) return "truncated: a PLAIN string's length is past the page";
        uint32_t length;
        std::memcpy(&length, data + at, 4);
        at += 4;
        if (length > size - at) return "truncated: a PLAIN string is longer than the page";
        at += length;
      }
      const size_t total = at - 4 * n;
      if (out.bytes.size() + total > max_bytes) return "the chunk's strings decode past the limit";
      const size_t start = out.bytes.size();
      const size_t first = out.offsets.size();
      out.bytes.resize(start + total);
      out.offsets.resize(first + n);
      char* dst = out.bytes.data();
      uint32_t* ends = out.offsets.data() + first;
      size_t end = start;
      at = 0;
      for (size_t i = 0; i < n; ++i) {
        uint32_t length;
        std::memcpy(&length, data + at, 4);
        std::memcpy(dst + end, data + at + 4, length);
        end += length;
        ends[i] = static_cast<uint32_t>(end);
        at += 4 + length;
      }
      *used = at;
      return nullptr;
    }
  }
  return "unknown physical type";
}

}  // namespace sinkd::parquet
