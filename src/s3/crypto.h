// The digests and MACs an S3 request needs, over OpenSSL: SHA-256 for SigV4 and
// x-amz-content-sha256 (sinkd's one SHA-256, base/sha256.h, named here too), HMAC-SHA256 for the
// signing key chain, MD5 for Content-MD5 and ETags.
// Threads: pure functions, safe for concurrent use; Md5Stream is one thread at a time.
// Never fails: OpenSSL's one-shot digests cannot fail for these algorithms short of memory
// exhaustion, which terminates (as every allocation in sinkd may).
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "base/sha256.h"

namespace sinkd::s3 {

using ::sinkd::HexEncode;
using ::sinkd::Sha256;
using ::sinkd::Sha256Hex;
std::string Md5(std::string_view data);                               // 16 raw bytes
std::string HmacSha256(std::string_view key, std::string_view data);  // 32 raw bytes

// MD5 over bytes that arrive in pieces (the whole object of a multipart upload).
class Md5Stream {
 public:
  Md5Stream();
  ~Md5Stream();
  Md5Stream(const Md5Stream&) = delete;
  Md5Stream& operator=(const Md5Stream&) = delete;
  void Update(std::string_view data);
  // 16 raw bytes. REQUIRES: called once; no Update after it.
  std::string Finish();

 private:
  struct Context;
  std::unique_ptr<Context> context_;
};

}  // namespace sinkd::s3
