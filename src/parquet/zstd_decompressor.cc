#include "parquet/zstd_decompressor.h"

#include <zstd.h>

#include <new>

namespace sinkd::parquet {

ZstdDecompressor::ZstdDecompressor() : context_(ZSTD_createDCtx()) {
  if (!context_) throw std::bad_alloc();
}

ZstdDecompressor::~ZstdDecompressor() { ZSTD_freeDCtx(context_); }

const char* ZstdDecompressor::Decompress(const uint8_t* input, size_t input_size, size_t size,
                                         ByteBuffer& out) {
  // A frame that states its size must state the page's (checked before any work).
  const unsigned long long stated = ZSTD_getFrameContentSize(input, input_size);
  if (stated == ZSTD_CONTENTSIZE_ERROR) return "the page is not a zstd frame";
  if (stated != ZSTD_CONTENTSIZE_UNKNOWN && stated != size) {
    return "the zstd frame's size differs from uncompressed_page_size";
  }
  out.Clear();
  out.Reserve(size + 1);  // +1: a valid pointer for an empty page
  const size_t n = ZSTD_decompressDCtx(context_, out.data(), size, input, input_size);
  if (ZSTD_isError(n)) return "the page is not a valid zstd frame";
  if (n != size) return "the page inflates to fewer bytes than uncompressed_page_size";
  return nullptr;
}

}  // namespace sinkd::parquet
