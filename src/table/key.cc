#include "table/key.h"

#include <unistd.h>
#include <xxhash.h>

#include <climits>

#include "partition/civil_date.h"

namespace sinkd::table {

namespace {

bool Unreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_' || c == '.' || c == '~';
}

constexpr char kHex[] = "0123456789ABCDEF";


int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

std::optional<std::string> Unescape(std::string_view escaped) {
  std::string out;
  for (size_t i = 0; i < escaped.size(); ++i) {
    if (escaped[i] != '%') {
      out.push_back(escaped[i]);
      continue;
    }
    if (i + 2 >= escaped.size()) return std::nullopt;
    const int hi = HexValue(escaped[i + 1]), lo = HexValue(escaped[i + 2]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out.push_back(static_cast<char>(hi * 16 + lo));
    i += 2;
  }
  return out;
}

// PartitionSegment shortens a segment past kMaxSegmentBytes to a prefix, '~' and 16 hex
// digits, at least kMaxSegmentBytes - 19 bytes long. An exact segment of that shape is possible
// but so unlikely that treating it as shortened (the value must come from inside the file) is
// the safe reading.
bool MayBeShortened(std::string_view segment) {
  constexpr size_t kSuffix = 17;
  if (segment.size() + 19 < kMaxSegmentBytes || segment.size() < kSuffix) return false;
  const std::string_view tail = segment.substr(segment.size() - kSuffix);
  if (tail[0] != '~') return false;
  for (char c : tail.substr(1)) {
    if (!((c >= '0' && c <= '9') || (c >= 'A' && c <= 'F'))) return false;
  }
  return true;
}

bool SafeName(std::string_view name) {
  constexpr std::string_view kExt = ".parquet";
  if (name.size() <= kExt.size() || name.substr(name.size() - kExt.size()) != kExt) return false;
  if (name[0] == '.' || name[0] == '_') return false;  // hidden from DuckDB's globs: not ours
  for (unsigned char c : name) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '.' || c == '~';
    if (!ok) return false;
  }
  return true;
}

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
int64_t DaysFromCivil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

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

std::optional<int64_t> DateEndUnixMs(std::string_view date) {
  if (date.size() != 10 || date[4] != '-' || date[7] != '-') return std::nullopt;
  int64_t parts[3] = {0, 0, 0};
  const size_t starts[3] = {0, 5, 8}, lengths[3] = {4, 2, 2};
  for (int p = 0; p < 3; ++p) {
    for (size_t i = 0; i < lengths[p]; ++i) {
      const char c = date[starts[p] + i];
      if (c < '0' || c > '9') return std::nullopt;
      parts[p] = parts[p] * 10 + (c - '0');
    }
  }
  if (parts[1] < 1 || parts[1] > 12 || parts[2] < 1 || parts[2] > 31) return std::nullopt;
  const int64_t day = DaysFromCivil(parts[0], static_cast<unsigned>(parts[1]),
                                    static_cast<unsigned>(parts[2]));
  // Reject 2026-02-31 and the like: the day must print back as itself.
  if (partition::FormatDay(day) != date) return std::nullopt;
  return (day + 1) * 86'400'000;
}

std::optional<ObjectKey> ParseObjectKey(const row::ColumnTable& table, std::string_view prefix,
                                        std::string_view key) {
  if (key.size() <= prefix.size() + 1 || key.substr(0, prefix.size()) != prefix ||
      key[prefix.size()] != '/') {
    return std::nullopt;
  }
  std::vector<std::string_view> segments;
  size_t start = prefix.size() + 1;
  while (true) {
    const size_t slash = key.find('/', start);
    segments.push_back(key.substr(start, slash == std::string_view::npos ? slash : slash - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  std::vector<std::string_view> columns;
  for (const row::ColumnSpec& spec : table.columns) {
    if (spec.partition) columns.push_back(spec.name);
  }
  if (segments.size() != columns.size() + 2) return std::nullopt;
  ObjectKey out;
  const std::string_view date_segment = segments[0];
  if (date_segment.substr(0, 5) != "date=") return std::nullopt;
  out.date = std::string(date_segment.substr(5));
  if (!DateEndUnixMs(out.date)) return std::nullopt;
  for (size_t i = 0; i < columns.size(); ++i) {
    const std::string_view segment = segments[i + 1];
    if (segment.size() <= columns[i].size() || segment.substr(0, columns[i].size()) != columns[i] ||
        segment[columns[i].size()] != '=') {
      return std::nullopt;
    }
    std::optional<std::string> value = Unescape(segment.substr(columns[i].size() + 1));
    if (!value) return std::nullopt;
    if (MayBeShortened(segment)) out.exact = false;
    out.values.push_back(std::move(*value));
  }
  out.name = std::string(segments.back());
  if (!SafeName(out.name)) return std::nullopt;
  out.output = out.name.rfind("compact-", 0) == 0;
  out.partition = std::string(key.substr(0, key.size() - out.name.size() - 1));
  return out;
}

bool SafeKeyToken(std::string_view s) {
  if (s.empty() || s == "." || s == "..") return false;
  for (unsigned char c : s) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '.';
    if (!ok) return false;
  }
  return true;
}

bool SafeKeyPrefix(std::string_view prefix) {
  size_t start = 0;
  while (true) {
    const size_t slash = prefix.find('/', start);
    if (!SafeKeyToken(prefix.substr(start, slash == std::string_view::npos ? slash
                                                                          : slash - start))) {
      return false;
    }
    if (slash == std::string_view::npos) return true;
    start = slash + 1;
  }
}

std::string PartNameWithNumber(std::string_view sibling_name, uint64_t n) {
  const size_t dash = sibling_name.rfind('-');
  if (dash == std::string_view::npos) return std::string(sibling_name);
  std::string name(sibling_name.substr(0, dash + 1));
  name += std::to_string(n);
  name += ".parquet";
  return name;
}

std::string CompactionOutputKey(std::string_view partition, std::string_view hash, uint64_t index,
                                uint64_t outputs) {
  // Appended piece by piece: gcc 12 -O3 warns falsely (-Wrestrict) on `partition + "/…" + hash`.
  std::string key;
  key.append(partition).append("/compact-").append(hash);
  if (outputs > 1) key.append("-").append(std::to_string(index));
  key.append(".parquet");
  return key;
}

std::optional<std::pair<std::string, std::optional<uint64_t>>> CompactionOutputStem(
    std::string_view name) {
  constexpr std::string_view kPrefix = "compact-", kExt = ".parquet";
  if (name.size() < kPrefix.size() + 32 + kExt.size()) return std::nullopt;
  std::string stem(name.substr(0, kPrefix.size() + 32));
  std::string_view rest = name.substr(stem.size(), name.size() - stem.size() - kExt.size());
  if (rest.empty()) return std::make_pair(stem, std::optional<uint64_t>());
  if (rest[0] != '-' || rest.size() < 2 || rest.size() > 12) return std::nullopt;
  uint64_t index = 0;
  for (char c : rest.substr(1)) {
    if (c < '0' || c > '9') return std::nullopt;
    index = index * 10 + static_cast<uint64_t>(c - '0');
  }
  if (rest.size() > 2 && rest[1] == '0') return std::nullopt;
  return std::make_pair(stem, std::optional<uint64_t>(index));
}

std::string DeadLetterDirectory(std::string_view prefix) {
  std::string dir(kDeadLettersRoot);
  dir += '/';
  dir += prefix;
  dir += '/';
  return dir;
}

std::string DeadLetterKey(std::string_view prefix, std::string_view instance, uint64_t first,
                          uint64_t last, uint32_t alternative) {
  std::string name(instance);
  if (alternative > 0) {  // appended piece by piece: gcc 12 warns (-Wrestrict) on "." + string
    name += '.';
    name += std::to_string(alternative);
  }
  return DeadLetterDirectory(prefix) + "dead-" + name + "-" + std::to_string(first) + "-" +
         std::to_string(last) + ".jsonl";
}

std::string DeadLetterInstance(std::string_view key) {
  const size_t slash = key.rfind('/');
  std::string name(slash == std::string_view::npos ? key : key.substr(slash + 1));
  constexpr std::string_view kExt = ".jsonl";
  if (name.rfind("dead-", 0) != 0 || name.size() < 5 + kExt.size() ||
      name.compare(name.size() - kExt.size(), kExt.size(), kExt) != 0) {
    return "";
  }
  name = name.substr(5, name.size() - 5 - kExt.size());
  for (int i = 0; i < 2; ++i) {
    const size_t dash = name.rfind('-');
    if (dash == std::string::npos) return "";
    name.resize(dash);
  }
  // An alternative's ".<k>": instances from DefaultInstanceId hold no '.', so a trailing run of
  // digits after a '.' is the alternative.
  const size_t dot = name.rfind('.');
  if (dot != std::string::npos && dot + 1 < name.size() &&
      name.find_first_not_of("0123456789", dot + 1) == std::string::npos) {
    name.resize(dot);
  }
  return name;
}

}  // namespace sinkd::table
