// Small helpers shared by the S3 tests: bytes, log capture, one-call Part uploads.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <random>
#include <span>
#include <string>

#include "base/log.h"
#include "lake/destination.h"

namespace sinkd::testing {

inline std::span<const uint8_t> Bytes(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

inline std::string RandomBytes(size_t n, uint64_t seed) {
  std::mt19937_64 random(seed);
  std::string out(n, '\0');
  for (char& c : out) c = static_cast<char>(random() & 0xff);
  return out;
}

// A Logger whose lines can be read back.
class CapturedLog {
 public:
  CapturedLog() : file_(open_memstream(&buffer_, &size_)), log_(file_) {}
  ~CapturedLog() {
    std::fclose(file_);
    std::free(buffer_);
  }
  CapturedLog(const CapturedLog&) = delete;
  CapturedLog& operator=(const CapturedLog&) = delete;
  Logger& log() { return log_; }
  std::string Text() {
    std::fflush(file_);
    return std::string(buffer_, size_);
  }

 private:
  char* buffer_ = nullptr;
  size_t size_ = 0;
  std::FILE* file_;
  Logger log_;
};

// Begin, Append (in `chunk`-byte pieces, as a Part writer streams), Commit; a key taken by other
// bytes is an error here (Redeliver saying so), a key holding these bytes is success.
inline Status PutPart(lake::Destination& destination, const std::string& key,
                      const std::string& bytes, size_t chunk = 4096) {
  auto upload = destination.Begin(key);
  if (!upload.ok()) return upload.status();
  for (size_t at = 0; at < bytes.size(); at += chunk) {
    SINKD_RETURN_IF_ERROR(
        (*upload)->Append(Bytes(bytes).subspan(at, std::min(chunk, bytes.size() - at))));
  }
  auto placed = (*upload)->Commit();
  if (!placed.ok()) return placed.status();
  if (*placed == lake::Placed::kTaken) return Status::Redeliver("the key holds other bytes");
  return Status::OK();
}

}  // namespace sinkd::testing
