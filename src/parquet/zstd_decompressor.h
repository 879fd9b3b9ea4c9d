// ZstdDecompressor inflates Parquet pages, one zstd frame per page, reusing one ZSTD_DCtx for a
// whole reader: a context per page costs more than a small page.
// Ownership: owns the context. Threads: one thread at a time.
// Errors: returns the reason (a static string) for input that is not exactly one frame of the
// expected size; nullptr on success.
#pragma once

#include <cstddef>
#include <cstdint>

typedef struct ZSTD_DCtx_s ZSTD_DCtx;

namespace sinkd::parquet {

class ZstdDecompressor {
 public:
  ZstdDecompressor();
  ~ZstdDecompressor();
  ZstdDecompressor(const ZstdDecompressor&) = delete;
  ZstdDecompressor& operator=(const ZstdDecompressor&) = delete;

  // Decompresses `input` into exactly `size` bytes at `out`.
  const char* Decompress(const uint8_t* input, size_t input_size, uint8_t* out, size_t size);

 private:
  ZSTD_DCtx* context_;
};

}  // namespace sinkd::parquet
