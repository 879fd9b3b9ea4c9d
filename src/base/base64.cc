#include "base/base64.h"

#include <cstdint>

namespace sinkd {

std::string Base64Encode(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  auto byte = [&](size_t k) { return static_cast<uint32_t>(static_cast<uint8_t>(bytes[k])); };
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t v = (byte(i) << 16) | (byte(i + 1) << 8) | byte(i + 2);
    out += {kAlphabet[v >> 18], kAlphabet[(v >> 12) & 63], kAlphabet[(v >> 6) & 63],
            kAlphabet[v & 63]};
  }
  const size_t rest = bytes.size() - i;
  if (rest > 0) {
    const uint32_t v = (byte(i) << 16) | (rest == 2 ? byte(i + 1) << 8 : 0);
    out += {kAlphabet[v >> 18], kAlphabet[(v >> 12) & 63],
            rest == 2 ? kAlphabet[(v >> 6) & 63] : '=', '='};
  }
  return out;
}

}  // namespace sinkd
