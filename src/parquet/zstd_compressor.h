// ZstdCompressor compresses Parquet pages, one zstd frame per page, reusing one ZSTD_CCtx for the
// whole Part: creating a context per page costs more than compressing a small page.
// Frames carry their content size (zstd's default) and no checksum; Parquet pages have their own
// sizes and an optional CRC of their own.
// Ownership: owns the context. Threads: one thread at a time.
// Errors: a zstd failure is returned as Internal (it only fails on a bug or out of memory).
#pragma once

#include <span>

#include "base/status.h"
#include "parquet/byte_buffer.h"

typedef struct ZSTD_CCtx_s ZSTD_CCtx;

namespace sinkd::parquet {

class ZstdCompressor {
 public:
  explicit ZstdCompressor(int level);
  ~ZstdCompressor();
  ZstdCompressor(const ZstdCompressor&) = delete;
  ZstdCompressor& operator=(const ZstdCompressor&) = delete;

  // Replaces `out` with the compressed form of `input`.
  Status Compress(std::span<const uint8_t> input, ByteBuffer& out);

 private:
  ZSTD_CCtx* context_;
  int level_;
};

}  // namespace sinkd::parquet
