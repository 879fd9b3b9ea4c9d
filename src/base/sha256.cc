#include "base/sha256.h"

#include <openssl/evp.h>

#include <cstdlib>

namespace sinkd {

std::string Sha256(std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(data.data(), data.size(), out, &size, EVP_sha256(), nullptr) != 1) std::abort();
  return std::string(reinterpret_cast<const char*>(out), size);
}

std::string Sha256Hex(std::string_view data) { return HexEncode(Sha256(data)); }

std::string HexEncode(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    out.push_back(kDigits[c >> 4]);
    out.push_back(kDigits[c & 15]);
  }
  return out;
}

}  // namespace sinkd
