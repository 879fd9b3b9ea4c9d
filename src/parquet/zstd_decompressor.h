// ZstdDecompressor inflates Parquet pages, one zstd frame per page, reusing one ZSTD_DCtx for a
// whole reader: a context per page costs more than a small page.
// Ownership: owns the context. Threads: one thread at a time.
// Errors: returns the reason (a static string) for input that is not exactly one frame of the
// expected size; nullptr on success.
#pragma once

#include <cstddef>
#include <cstdint>

#include "parquet/byte_buffer.h"

typedef struct ZSTD_DCtx_s ZSTD_DCtx;

namespace sinkd::parquet {

class ZstdDecompressor {
 public:
  ZstdDecompressor();
  ~ZstdDecompressor();
  ZstdDecompressor(const ZstdDecompressor&) = delete;
  ZstdDecompressor& operator=(const ZstdDecompressor&) = delete;

  // Replaces `out` with `input` decompressed, which must be exactly `size` bytes. The frame's own
  // stated size is checked before `out` grows.
  const char* Decompress(const uint8_t* input, size_t input_size, size_t size, ByteBuffer& out);

 private:
  ZSTD_DCtx* context_;
};

}  // namespace sinkd::parquet
