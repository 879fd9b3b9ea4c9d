#include "jetstream/nkey.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <fstream>
#include <memory>
#include <vector>

namespace sinkd::jetstream {

namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
constexpr uint8_t kSeedPrefix = 18 << 3;  // 'S'

// CRC-16/XMODEM, as the nkeys format has it.
uint16_t Crc16(const std::vector<uint8_t>& data) {
  uint16_t crc = 0;
  for (uint8_t b : data) {
    crc ^= static_cast<uint16_t>(b) << 8;
    for (int i = 0; i < 8; ++i) crc = (crc & 0x8000) ? (crc << 1) ^ 0x1021 : crc << 1;
  }
  return crc;
}

std::string Base32(const std::vector<uint8_t>& data) {
  std::string out;
  uint32_t buffer = 0;
  int bits = 0;
  for (uint8_t b : data) {
    buffer = (buffer << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += kAlphabet[(buffer >> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += kAlphabet[(buffer << (5 - bits)) & 31];
  return out;
}

bool Unbase32(std::string_view text, std::vector<uint8_t>& out) {
  uint32_t buffer = 0;
  int bits = 0;
  for (char c : text) {
    int v = -1;
    if (c >= 'A' && c <= 'Z') v = c - 'A';
    if (c >= '2' && c <= '7') v = c - '2' + 26;
    if (v < 0) return false;
    buffer = (buffer << 5) | static_cast<uint32_t>(v);
    bits += 5;
    if (bits >= 8) {
      out.push_back(static_cast<uint8_t>(buffer >> (bits - 8)));
      bits -= 8;
    }
  }
  return true;
}

std::string WithCrc(std::vector<uint8_t> raw) {
  const uint16_t crc = Crc16(raw);
  raw.push_back(static_cast<uint8_t>(crc & 0xff));
  raw.push_back(static_cast<uint8_t>(crc >> 8));
  return Base32(raw);
}

using PrivateKey = std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)>;

// The ed25519 key of a decoded seed (null if OpenSSL cannot make one). The seed's bytes are wiped
// once the key holds them: it is a secret, and nothing after this needs it.
PrivateKey KeyOf(DecodedSeed& decoded) {
  PrivateKey key(EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr, decoded.seed.data(),
                                              decoded.seed.size()),
                 &EVP_PKEY_free);
  OPENSSL_cleanse(decoded.seed.data(), decoded.seed.size());
  return key;
}

}  // namespace

std::string EncodeNkeyPublic(uint8_t type, const Ed25519Raw& key) {
  std::vector<uint8_t> raw{type};
  raw.insert(raw.end(), key.begin(), key.end());
  return WithCrc(std::move(raw));
}

std::string EncodeNkeySeed(uint8_t type, const Ed25519Raw& seed) {
  std::vector<uint8_t> raw{static_cast<uint8_t>(kSeedPrefix | (type >> 5)),
                           static_cast<uint8_t>((type & 31) << 3)};
  raw.insert(raw.end(), seed.begin(), seed.end());
  return WithCrc(std::move(raw));
}

Result<DecodedSeed> DecodeNkeySeed(std::string_view text) {
  std::vector<uint8_t> raw;
  if (!Unbase32(text, raw) || raw.size() != 36) {
    return Status::Refuse("not an nkey seed (want \"S\" followed by 57 base32 characters)");
  }
  const uint16_t crc = static_cast<uint16_t>(raw[34] | (raw[35] << 8));
  raw.resize(34);
  if (Crc16(raw) != crc) return Status::Refuse("the nkey seed's checksum does not match");
  if ((raw[0] & 0xf8) != kSeedPrefix) return Status::Refuse("not an nkey seed (no S prefix)");
  DecodedSeed out;
  out.type = static_cast<uint8_t>(((raw[0] & 7) << 5) | ((raw[1] & 0xf8) >> 3));
  std::copy(raw.begin() + 2, raw.end(), out.seed.begin());
  return out;
}

Result<Ed25519Signature> SignWithNkeySeed(std::string_view seed, std::string_view message) {
  SINKD_ASSIGN_OR_RETURN(DecodedSeed decoded, DecodeNkeySeed(seed));
  const PrivateKey key = KeyOf(decoded);
  std::unique_ptr<EVP_MD_CTX, decltype(&EVP_MD_CTX_free)> ctx(EVP_MD_CTX_new(), &EVP_MD_CTX_free);
  Ed25519Signature sig{};
  size_t len = sig.size();
  if (!key || !ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, key.get()) != 1 ||
      EVP_DigestSign(ctx.get(), sig.data(), &len,
                     reinterpret_cast<const unsigned char*>(message.data()), message.size()) != 1 ||
      len != sig.size()) {
    return Status::Refuse("cannot sign with the nkey seed");
  }
  return sig;
}

Result<std::string> NkeyPublicFromSeed(std::string_view seed) {
  SINKD_ASSIGN_OR_RETURN(DecodedSeed decoded, DecodeNkeySeed(seed));
  const PrivateKey key = KeyOf(decoded);
  Ed25519Raw pub{};
  size_t len = pub.size();
  if (!key || EVP_PKEY_get_raw_public_key(key.get(), pub.data(), &len) != 1 || len != 32) {
    return Status::Refuse("cannot derive the public key of the nkey seed");
  }
  return EncodeNkeyPublic(decoded.type, pub);
}

Result<std::string> ReadNkeySeedFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::Refuse("cannot read the nkey seed file " + path);
  std::string line;
  while (std::getline(in, line)) {
    const size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line[start] != 'S') continue;
    size_t end = start;
    while (end < line.size() && ((line[end] >= 'A' && line[end] <= 'Z') ||
                                 (line[end] >= '2' && line[end] <= '7'))) {
      ++end;
    }
    if (end - start == 58) return line.substr(start, end - start);
  }
  return Status::Refuse("the nkey seed file " + path + " holds no seed (a line \"SU…\")");
}

Result<std::string> ReadCredsJwt(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status::Refuse("cannot read the NATS creds file " + path);
  auto is_marker = [](const std::string& line) { return line.rfind("---", 0) == 0; };
  std::string line;
  // Only a block named JWT: a block of any other kind may be the seed, which is no JWT to send.
  while (std::getline(in, line) && !(is_marker(line) && line.find("JWT") != std::string::npos)) {
  }
  while (std::getline(in, line)) {
    if (is_marker(line)) break;
    const size_t start = line.find_first_not_of(" \t\r");
    if (start == std::string::npos) continue;
    return line.substr(start, line.find_last_not_of(" \t\r") + 1 - start);
  }
  return Status::Refuse("the NATS creds file " + path +
                        " holds no user JWT (a line inside \"-----BEGIN NATS USER JWT-----\")");
}

}  // namespace sinkd::jetstream
