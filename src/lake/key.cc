#include "lake/key.h"

#include <unistd.h>
#include <xxhash.h>

#include <climits>

namespace sinkd::lake {

namespace {

bool Unreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_' || c == '.' || c == '~';
}

constexpr char kHex[] = "0123456789ABCDEF";

}  // namespace

std::string EscapePartitionValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (unsigned char c : value) {
    if (Unreserved(c)) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
  }
  return out;
}

std::string PartitionSegment(std::string_view column, std::string_view value) {
  std::string out(column);
  out += '=';
  out += EscapePartitionValue(value);
  if (out.size() <= kMaxSegmentBytes) return out;
  // Cut on an escape boundary so the prefix still unescapes cleanly, then make it unique again.
  constexpr size_t kHashSuffix = 17;  // "~" + 16 hex digits
  const size_t start = column.size() + 1;
  size_t cut = kMaxSegmentBytes - kHashSuffix;
  while (cut > start && (out[cut - 1] == '%' || (cut >= start + 2 && out[cut - 2] == '%'))) --cut;
  const uint64_t hash = XXH64(value.data(), value.size(), 0);
  out.resize(cut);
  out.push_back('~');
  for (int shift = 60; shift >= 0; shift -= 4) out.push_back(kHex[(hash >> shift) & 0xF]);
  return out;
}

std::string InstanceIdFor(std::string_view hostname, long pid) {
  std::string id = hostname.empty() ? "unknown" : std::string(hostname);
  for (char& c : id) {
    if (c == '.') c = '_';
  }
  return id + "-" + std::to_string(pid);
}

std::string DefaultInstanceId() {
  char host[HOST_NAME_MAX + 1] = {};
  if (gethostname(host, sizeof host - 1) != 0) host[0] = '\0';
  return InstanceIdFor(host, static_cast<long>(getpid()));
}

std::string PartKey(const PartKeyFields& f) {
  std::string key = f.prefix;
  key += "/date=";
  key += f.date;
  for (size_t i = 0; i < f.columns.size(); ++i) {
    key += '/';
    key += PartitionSegment(f.columns[i], f.values[i]);
  }
  key += "/part-";
  key += f.instance;
  if (f.alternative > 0) key += '.' + std::to_string(f.alternative);
  key += '-' + std::to_string(f.first_sequence) + '-' + std::to_string(f.last_sequence) + '-' +
         std::to_string(f.number) + ".parquet";
  return key;
}

}  // namespace sinkd::lake
