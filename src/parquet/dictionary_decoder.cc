#include "parquet/dictionary_decoder.h"

#include <cstring>

#include "parquet/rle_bit_packed_decoder.h"

namespace sinkd::parquet {
namespace {

template <typename T>
const char* Gather(const std::vector<T>& dictionary, const uint32_t* indices, size_t n,
                   std::vector<T>& out) {
  const size_t size = dictionary.size();
  const size_t at = out.size();
  out.resize(at + n);
  T* dst = out.data() + at;
  for (size_t i = 0; i < n; ++i) {
    if (indices[i] >= size) {
      out.resize(at);
      return "a dictionary index is past the dictionary";
    }
    dst[i] = dictionary[indices[i]];
  }
  return nullptr;
}

}  // namespace

const char* DecodeDictionaryIndices(const uint8_t* data, size_t size, size_t n,
                                    std::vector<uint32_t>& indices) {
  indices.resize(n);
  if (n == 0) return nullptr;
  if (size < 1) return "truncated: no bit width before the dictionary indices";
  const int width = data[0];
  if (width > 32) return "dictionary index bit width above 32";
  RleBitPackedDecoder decoder(data + 1, size - 1, width);
  return decoder.Decode(indices.data(), n);
}

const char* GatherDictionary(const ColumnValues& dictionary, const uint32_t* indices, size_t n,
                             size_t max_bytes, ColumnValues& out) {
  switch (out.physical) {
    case PhysicalType::kBoolean: return Gather(dictionary.bools, indices, n, out.bools);
    case PhysicalType::kInt32: return Gather(dictionary.int32s, indices, n, out.int32s);
    case PhysicalType::kInt64: return Gather(dictionary.int64s, indices, n, out.int64s);
    case PhysicalType::kDouble: return Gather(dictionary.doubles, indices, n, out.doubles);
    case PhysicalType::kByteArray: {
      // Sizes first: bounds every index and reserves the bytes once.
      const size_t size = dictionary.size();
      const uint32_t* off = dictionary.offsets.data();
      uint64_t total = 0;
      for (size_t i = 0; i < n; ++i) {
        if (indices[i] >= size) return "a dictionary index is past the dictionary";
        total += off[indices[i] + 1] - off[indices[i]];
      }
      if (out.bytes.size() + total > max_bytes) return "the chunk's strings decode past the limit";
      // One resize each, then plain copies: append per value costs a capacity check and a
      // terminator per value.
      const size_t at = out.bytes.size();
      const size_t first = out.offsets.size();
      out.bytes.resize(at + total);
      out.offsets.resize(first + n);
      char* dst = out.bytes.data();
      uint32_t* ends = out.offsets.data() + first;
      const char* bytes = dictionary.bytes.data();
      size_t end = at;
      for (size_t i = 0; i < n; ++i) {
        const uint32_t begin = off[indices[i]];
        const uint32_t length = off[indices[i] + 1] - begin;
        std::memcpy(dst + end, bytes + begin, length);
        end += length;
        ends[i] = static_cast<uint32_t>(end);
      }
      return nullptr;
    }
  }
  return "unknown physical type";
}

}  // namespace sinkd::parquet
