#include "lake/stamp.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "base/log.h"
#include "table/footer.h"

namespace sinkd::lake {

std::vector<SequenceRange> ToRanges(std::vector<uint64_t> sequences) {
  std::sort(sequences.begin(), sequences.end());
  std::vector<SequenceRange> ranges;
  for (uint64_t s : sequences) {
    if (!ranges.empty() && s <= ranges.back().last + 1) {
      ranges.back().last = std::max(ranges.back().last, s);
    } else {
      ranges.push_back({s, s});
    }
  }
  return ranges;
}

std::string FormatRanges(const std::vector<SequenceRange>& ranges) {
  std::string out;
  for (const SequenceRange& r : ranges) {
    if (!out.empty()) out += ',';
    out += std::to_string(r.first);
    if (r.last != r.first) {
      out += '-';
      out += std::to_string(r.last);
    }
  }
  return out;
}

// Appends only, never `"literal" + std::string`: gcc 12 -O3 warns falsely on that (-Wrestrict).
void AppendNumber(std::string& out, const char* name, uint64_t value) {
  out += ",\"";
  out += name;
  out += "\":";
  out += std::to_string(value);
}

std::string StampJson(const FlushStamp& s) {
  std::string out = "{\"instance\":";
  AppendJsonString(out, s.instance);
  out += ",\"source\":";
  AppendJsonString(out, s.source);
  out += ",\"scope\":";
  AppendJsonString(out, s.scope);
  AppendNumber(out, "first", s.first);
  AppendNumber(out, "last", s.last);
  if (s.first_txid) AppendNumber(out, "first_txid", *s.first_txid);
  if (s.last_txid) AppendNumber(out, "last_txid", *s.last_txid);
  out += ",\"acked\":[";
  for (size_t i = 0; i < s.acked.size(); ++i) {
    if (i > 0) out += ',';
    out += '[';
    out += std::to_string(s.acked[i].first);
    out += ',';
    out += std::to_string(s.acked[i].last);
    out += ']';
  }
  out += ']';
  AppendNumber(out, "parts", s.parts);
  AppendNumber(out, "rows", s.rows);
  AppendNumber(out, "n", s.n);
  out += ",\"key\":";
  AppendJsonString(out, s.key);
  AppendNumber(out, "part_rows", s.part_rows);
  out += '}';
  return out;
}

std::string StampsJson(const FlushStamp& stamp) {
  std::string out = "[";
  out += StampJson(stamp);
  out += ']';
  return out;
}

namespace {

using nlohmann::json;

Status Field(const json& o, const char* name, std::string& out) {
  auto it = o.find(name);
  if (it == o.end() || !it->is_string()) return Status::Refuse(std::string(name) + ": missing or not a string");
  out = it->get<std::string>();
  return Status::OK();
}

Status Field(const json& o, const char* name, uint64_t& out) {
  auto it = o.find(name);
  if (it == o.end() || !it->is_number_unsigned()) {
    return Status::Refuse(std::string(name) + ": missing or not an unsigned integer");
  }
  out = it->get<uint64_t>();
  return Status::OK();
}

Result<FlushStamp> ParseOne(const json& o) {
  if (!o.is_object()) return Status::Refuse("an element is not an object");
  FlushStamp s;
  SINKD_RETURN_IF_ERROR(Field(o, "instance", s.instance));
  SINKD_RETURN_IF_ERROR(Field(o, "source", s.source));
  SINKD_RETURN_IF_ERROR(Field(o, "scope", s.scope));
  SINKD_RETURN_IF_ERROR(Field(o, "first", s.first));
  SINKD_RETURN_IF_ERROR(Field(o, "last", s.last));
  if (o.contains("first_txid")) {
    uint64_t t = 0;
    SINKD_RETURN_IF_ERROR(Field(o, "first_txid", t));
    s.first_txid = t;
  }
  if (o.contains("last_txid")) {
    uint64_t t = 0;
    SINKD_RETURN_IF_ERROR(Field(o, "last_txid", t));
    s.last_txid = t;
  }
  auto acked = o.find("acked");
  if (acked == o.end() || !acked->is_array()) return Status::Refuse("acked: missing or not an array");
  for (const json& r : *acked) {
    if (!r.is_array() || r.size() != 2 || !r[0].is_number_unsigned() ||
        !r[1].is_number_unsigned() || r[0].get<uint64_t>() > r[1].get<uint64_t>()) {
      return Status::Refuse("acked: " + r.dump() + " is not a range [first,last]");
    }
    s.acked.push_back({r[0].get<uint64_t>(), r[1].get<uint64_t>()});
  }
  SINKD_RETURN_IF_ERROR(Field(o, "parts", s.parts));
  SINKD_RETURN_IF_ERROR(Field(o, "rows", s.rows));
  SINKD_RETURN_IF_ERROR(Field(o, "n", s.n));
  SINKD_RETURN_IF_ERROR(Field(o, "key", s.key));
  SINKD_RETURN_IF_ERROR(Field(o, "part_rows", s.part_rows));
  if (s.n >= s.parts) {
    return Status::Refuse("n " + std::to_string(s.n) + " is not below parts " +
                          std::to_string(s.parts));
  }
  return s;
}

}  // namespace

Result<std::vector<FlushStamp>> ParseStamps(std::string_view text) {
  json parsed = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return Status::Refuse(std::string(table::kStampsKey) + ": not JSON");
  if (!parsed.is_array()) {
    return Status::Refuse(std::string(table::kStampsKey) + ": not a JSON array");
  }
  std::vector<FlushStamp> stamps;
  for (const json& element : parsed) {
    Result<FlushStamp> one = ParseOne(element);
    if (!one.ok()) return one.status().WithContext(table::kStampsKey);
    stamps.push_back(std::move(one).value());
  }
  return stamps;
}

}  // namespace sinkd::lake
