#include "traffic/ids.h"

namespace sinkd::traffic {

void AppendHex(std::string& out, uint64_t bits, int digits) {
  static constexpr char kHex[] = "0123456789abcdef";
  char buf[16];
  for (int i = digits - 1; i >= 0; --i, bits >>= 4) buf[i] = kHex[bits & 0xF];
  out.append(buf, static_cast<size_t>(digits));
}

void AppendUuidV7(std::string& out, int64_t unix_ms, Rng& rng) {
  const uint64_t hi = (static_cast<uint64_t>(unix_ms) << 16) | 0x7000 | (rng.Next() & 0xFFF);
  const uint64_t lo = 0x8000000000000000ULL | (rng.Next() >> 2);
  AppendHex(out, hi >> 32, 8);
  out.push_back('-');
  AppendHex(out, (hi >> 16) & 0xFFFF, 4);
  out.push_back('-');
  AppendHex(out, hi & 0xFFFF, 4);
  out.push_back('-');
  AppendHex(out, lo >> 48, 4);
  out.push_back('-');
  AppendHex(out, lo & 0xFFFFFFFFFFFFULL, 12);
}

void AppendBase62(std::string& out, int length, Rng& rng) {
  static constexpr char kDigits[] =
      "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  while (length > 0) {
    uint64_t bits = rng.Next();
    // 62^10 < 2^64: ten digits per draw (the last is slightly biased, which no one can see).
    char buf[10];
    const int n = length < 10 ? length : 10;
    for (int i = 0; i < n; ++i, bits /= 62) buf[i] = kDigits[bits % 62];
    out.append(buf, static_cast<size_t>(n));
    length -= n;
  }
}

}  // namespace sinkd::traffic
