#include "avro/deflate.h"

#include <libdeflate.h>

#include <algorithm>
#include <memory>

namespace sinkd::avro {

namespace {

struct FreeCompressor {
  void operator()(libdeflate_compressor* c) const { libdeflate_free_compressor(c); }
};
struct FreeDecompressor {
  void operator()(libdeflate_decompressor* d) const { libdeflate_free_decompressor(d); }
};

}  // namespace

Result<std::string> Deflate(std::string_view data, int level) {
  std::unique_ptr<libdeflate_compressor, FreeCompressor> c(libdeflate_alloc_compressor(level));
  if (c == nullptr) return Status::Internal("avro: no deflate compressor at level " +
                                            std::to_string(level));
  std::string out(libdeflate_deflate_compress_bound(c.get(), data.size()), '\0');
  const size_t n =
      libdeflate_deflate_compress(c.get(), data.data(), data.size(), out.data(), out.size());
  // The bound is the worst case, so a 0 (no room) is a bug, not the data's.
  if (n == 0) return Status::Internal("avro: deflate overran its own bound");
  out.resize(n);
  return out;
}

Result<std::string> Inflate(std::string_view data, uint64_t max_bytes) {
  std::unique_ptr<libdeflate_decompressor, FreeDecompressor> d(libdeflate_alloc_decompressor());
  if (d == nullptr) return Status::Internal("avro: no deflate decompressor");
  // A raw stream does not say how long it inflates to: start at four times its size and double
  // while the output is what ran out, never past the bound.
  std::string out;
  uint64_t room = std::min<uint64_t>(std::max<uint64_t>(4 * data.size(), 1 << 16), max_bytes);
  for (;;) {
    out.resize(room);
    size_t in_used = 0, out_used = 0;
    // With in_used asked for, bytes after the end of the stream are allowed and ignored, as Java's
    // and Python's readers ignore them: python3-avro writes zlib's output less its 2-byte header
    // and only the LAST byte of the Adler-32 trailer, so three checksum bytes follow every block
    // it deflates.
    const libdeflate_result r = libdeflate_deflate_decompress_ex(
        d.get(), data.data(), data.size(), out.data(), out.size(), &in_used, &out_used);
    if (r == LIBDEFLATE_SUCCESS) {
      out.resize(out_used);
      return out;
    }
    if (r != LIBDEFLATE_INSUFFICIENT_SPACE) {
      return Status::Reject("avro: corrupt data: a deflate block that does not inflate");
    }
    if (room >= max_bytes) {
      return Status::Reject("avro: a deflate block inflates past " + std::to_string(max_bytes) +
                            " bytes");
    }
    room = std::min<uint64_t>(room * 2, max_bytes);
  }
}

}  // namespace sinkd::avro
