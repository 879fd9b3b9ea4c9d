#include "avro/deflate.h"

#include <zlib.h>

#include <algorithm>

namespace sinkd::avro {

namespace {
// Negative window bits select a raw stream, which is what Avro's deflate codec holds.
constexpr int kRawWindowBits = -15;
}  // namespace

Result<std::string> Deflate(std::string_view data, int level) {
  z_stream z{};
  if (deflateInit2(&z, level, Z_DEFLATED, kRawWindowBits, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return Status::Internal("avro: deflateInit2 failed");
  }
  std::string out(deflateBound(&z, static_cast<uLong>(data.size())), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&z, Z_FINISH);
  out.resize(z.total_out);
  deflateEnd(&z);
  if (rc != Z_STREAM_END) return Status::Internal("avro: deflate did not finish");
  return out;
}

Result<std::string> Inflate(std::string_view data, uint64_t max_bytes) {
  z_stream z{};
  if (inflateInit2(&z, kRawWindowBits) != Z_OK)
    return Status::Internal("avro: inflateInit2 failed");
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  std::string out;
  int rc = Z_OK;
  while (rc == Z_OK) {
    if (out.size() >= max_bytes) break;
    const size_t have = out.size();
    // Grown in steps, never past the bound nor past what one zlib call can take (uInt).
    const size_t room = std::min<uint64_t>(
        {std::max<uint64_t>(4 * data.size(), 1 << 16), max_bytes - have, uint64_t{1} << 30});
    out.resize(have + room);
    z.next_out = reinterpret_cast<Bytef*>(out.data() + have);
    z.avail_out = static_cast<uInt>(room);
    rc = inflate(&z, Z_NO_FLUSH);
    out.resize(have + room - z.avail_out);
    if (rc == Z_BUF_ERROR && z.avail_in == 0) break;  // input ended before the stream did
    if (rc == Z_BUF_ERROR) rc = Z_OK;                 // only the output was full: go on
  }
  // Bytes after the end of the stream are ignored, as Java's and Python's readers ignore them:
  // python3-avro writes zlib's output less its 2-byte header and only the LAST byte of the
  // Adler-32 trailer, so three checksum bytes follow every block it deflates.
  const bool complete = rc == Z_STREAM_END;
  inflateEnd(&z);
  if (complete) return out;
  if (rc == Z_OK && out.size() >= max_bytes) {
    return Status::Reject("avro: a deflate block inflates past " + std::to_string(max_bytes) +
                          " bytes");
  }
  return Status::Reject("avro: corrupt data: a deflate block that does not inflate");
}

}  // namespace sinkd::avro
