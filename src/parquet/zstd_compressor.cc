#include "parquet/zstd_compressor.h"

#include <string>

#include <zstd.h>

namespace sinkd::parquet {

ZstdCompressor::ZstdCompressor(int level) : context_(ZSTD_createCCtx()), level_(level) {}

ZstdCompressor::~ZstdCompressor() { ZSTD_freeCCtx(context_); }

Status ZstdCompressor::Compress(std::span<const uint8_t> input, ByteBuffer& out) {
  if (context_ == nullptr) return Status::Internal("zstd: cannot create a compression context");
  out.Resize(ZSTD_compressBound(input.size()));
  const size_t n = ZSTD_compressCCtx(context_, out.data(), out.size(), input.data(),
                                     input.size(), level_);
  if (ZSTD_isError(n)) {
    out.Clear();
    return Status::Internal(std::string("zstd: ") + ZSTD_getErrorName(n));
  }
  out.Resize(n);
  return Status::OK();
}

}  // namespace sinkd::parquet
