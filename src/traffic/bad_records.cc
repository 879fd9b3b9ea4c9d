#include "traffic/bad_records.h"

#include <array>
#include <cassert>
#include <charconv>

namespace sinkd::traffic {
namespace {

// Each is invalid wherever it is appended to valid UTF-8; libprotobuf rejects all of them.
constexpr std::array<std::string_view, 6> kInvalidSequences = {
    " r\xE9sum\xE9",  // Latin-1 text pasted into a UTF-8 field
    "\x80",           // a continuation byte with no lead
    "\xFF\xFE",       // bytes that never occur in UTF-8
    "\xC0\xAF",       // an overlong encoding of '/'
    "\xED\xA0\x80",   // a UTF-16 surrogate (U+D800)
    "\xE2\x82",       // a three-byte sequence cut short at the end of the field
};

void AppendNumber(std::string& out, int64_t value) {
  char buf[24];
  const char* end = std::to_chars(buf, buf + sizeof(buf), value).ptr;
  out.append(buf, static_cast<size_t>(end - buf));
}

void AppendPadded(std::string& out, int64_t value, int width) {
  char buf[24];
  const char* end = std::to_chars(buf, buf + sizeof(buf), value).ptr;
  for (int n = static_cast<int>(end - buf); n < width; ++n) out.push_back('0');
  out.append(buf, static_cast<size_t>(end - buf));
}

// RFC 3339 with nanoseconds, as protojson writes a Timestamp: 2026-09-29T00:00:01.000000001Z.
void AppendRfc3339(std::string& out, int64_t seconds, int32_t nanos) {
  int64_t days = seconds / 86400, rem = seconds % 86400;
  if (rem < 0) rem += 86400, --days;
  // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
  days += 719468;
  const int64_t era = (days >= 0 ? days : days - 146096) / 146097;
  const int64_t doe = days - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int64_t day = doy - (153 * mp + 2) / 5 + 1;
  const int64_t month = mp < 10 ? mp + 3 : mp - 9;
  const int64_t year = yoe + era * 400 + (month <= 2);
  AppendPadded(out, year, 4);
  out.push_back('-');
  AppendPadded(out, month, 2);
  out.push_back('-');
  AppendPadded(out, day, 2);
  out.push_back('T');
  AppendPadded(out, rem / 3600, 2);
  out.push_back(':');
  AppendPadded(out, rem / 60 % 60, 2);
  out.push_back(':');
  AppendPadded(out, rem % 60, 2);
  out.push_back('.');
  AppendPadded(out, nanos, 9);
  out.push_back('Z');
}

// A JSON string in ASCII only: non-ASCII bytes become \ufffd and '|' is escaped (see header).
void AppendJsonString(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(static_cast<char>(c));
    } else if (c >= 0x80) {
      out.append("\\ufffd");
    } else if (c < 0x20 || c == '|') {
      out.append("\\u00");
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    } else {
      out.push_back(static_cast<char>(c));
    }
  }
  out.push_back('"');
}

void AppendJsonField(std::string& out, std::string_view name, std::string_view value) {
  out.append(",\"").append(name).append("\":");
  AppendJsonString(out, value);
}

// Reads a varint at `pos`; false when it runs off the end.
bool ReadVarint(std::string_view m, size_t& pos, uint64_t& value) {
  value = 0;
  for (int shift = 0; shift < 64 && pos < m.size(); shift += 7) {
    const uint8_t byte = static_cast<uint8_t>(m[pos++]);
    value |= static_cast<uint64_t>(byte & 0x7F) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

// True when a top-level field of `m` ends exactly at `cut`.
bool IsFieldBoundary(std::string_view m, size_t cut) {
  size_t pos = 0;
  while (pos < cut) {
    uint64_t tag, value;
    if (!ReadVarint(m, pos, tag)) return false;
    switch (tag & 7) {
      case 0:
        if (!ReadVarint(m, pos, value)) return false;
        break;
      case 1:
        pos += 8;
        break;
      case 2:
        if (!ReadVarint(m, pos, value)) return false;
        pos += value;
        break;
      case 5:
        pos += 4;
        break;
      default:
        return false;
    }
  }
  return pos == cut;
}

}  // namespace

void CorruptEvent(BadKind kind, Rng& rng, EventDraft& d) {
  switch (kind) {
    case BadKind::kMissingEventId:
      d.event_id.clear();
      return;
    case BadKind::kMissingTime:
      d.has_time = false;
      return;
    case BadKind::kInvalidUtf8:
      break;
    default:
      assert(false && "not an event-level kind");
      return;
  }
  const std::string_view sequence = kInvalidSequences[rng.Below(kInvalidSequences.size())];
  const uint64_t roll = rng.Below(10);
  // error_detail (half the time: it is the field that carries unsanitised text), else an id-like
  // field a buggy producer filled from a Latin-1 source.
  std::string_view value;
  if (roll < 5) {
    d.poisoned_field = 70;
    value = d.error_detail;
  } else if (roll < 7) {
    d.poisoned_field = 62;
    value = d.principal_actor;
  } else if (roll < 9) {
    d.poisoned_field = 12;
    value = d.feature;
  } else {
    d.poisoned_field = 10;
    value = d.tenant;
  }
  d.poison.assign(value).append(sequence);
}

void AppendGarbage(Rng& rng, std::string& out) {
  const int64_t length = rng.Between(1, 2048);
  // Two statements: the order of two draws inside one expression is up to the compiler.
  const uint64_t field = rng.Below(16);
  out.push_back(static_cast<char>((field << 3) | (6 + rng.Below(2))));
  for (int64_t i = 1; i < length; ++i) out.push_back(static_cast<char>(rng.Next() >> 56));
}

void AppendJsonEvent(const EventDraft& d, std::string& out) {
  out.append("{");
  AppendJsonString(out, "event_id");
  out.push_back(':');
  AppendJsonString(out, d.event_id);
  if (d.has_time) {
    out.append(",\"time\":\"");
    AppendRfc3339(out, d.seconds, d.nanos);
    out.push_back('"');
  }
  AppendJsonField(out, "tenant", d.tenant);
  AppendJsonField(out, "app", d.app);
  AppendJsonField(out, "feature", d.feature);
  AppendJsonField(out, "run_id", d.run_id);
  AppendJsonField(out, "correlation_id", d.correlation_id);
  if (!d.alias.empty()) AppendJsonField(out, "alias", d.alias);
  if (!d.resolved_model.empty()) AppendJsonField(out, "resolved_model", d.resolved_model);
  if (d.has_usage) {
    // protojson writes int64 as strings.
    out.append(",\"usage\":{\"input_tokens\":\"");
    AppendNumber(out, d.input_tokens);
    out.append("\",\"output_tokens\":\"");
    AppendNumber(out, d.output_tokens);
    out.append("\"}");
  }
  out.append(",\"cost_usd\":");
  char buf[32];
  const char* end = std::to_chars(buf, buf + sizeof(buf), d.cost_usd).ptr;
  out.append(buf, static_cast<size_t>(end - buf));
  out.append(",\"latency_ms\":\"");
  AppendNumber(out, d.latency_ms);
  out.push_back('"');
  AppendJsonField(out, "outcome", d.outcome);
  if (!d.tool.empty()) AppendJsonField(out, "tool", d.tool);
  out.append("}");
}

size_t TruncationPoint(std::string_view message, Rng& rng) {
  assert(message.size() >= 2);
  const size_t cut = 1 + rng.Below(message.size() - 1);
  // Every field is at least two bytes long, so the byte before a boundary is inside a field.
  return IsFieldBoundary(message, cut) ? cut - 1 : cut;
}

}  // namespace sinkd::traffic
