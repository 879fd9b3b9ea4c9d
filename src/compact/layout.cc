#include "compact/layout.h"

#include "batch/civil_date.h"
#include "lake/key.h"

namespace sinkd::compact {

namespace {

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

// lake::PartitionSegment shortens a segment past kMaxSegmentBytes to a prefix, '~' and 16 hex
// digits, at least kMaxSegmentBytes - 19 bytes long. An exact segment of that shape is possible
// but so unlikely that treating it as shortened (the value must come from inside the file) is
// the safe reading.
bool MayBeShortened(std::string_view segment) {
  constexpr size_t kSuffix = 17;
  if (segment.size() + 19 < lake::kMaxSegmentBytes || segment.size() < kSuffix) return false;
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
  if (batch::FormatDay(day) != date) return std::nullopt;
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

}  // namespace sinkd::compact
