#include "tail/row_json.h"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "partition/civil_date.h"
#include "row/json_text.h"

namespace sinkd::tail {

std::string Rfc3339Micros(int64_t micros) {
  const int64_t day = partition::DayOf(micros);
  int64_t in_day = micros - day * partition::kMicrosPerDay;
  const int64_t frac = in_day % 1'000'000;
  int64_t secs = in_day / 1'000'000;
  std::string out = partition::FormatDay(day);
  out += fmt::format("T{:02}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60);
  if (frac != 0) {
    std::string digits = fmt::format("{:06}", frac);
    while (digits.back() == '0') digits.pop_back();
    out += "." + digits;
  }
  out += "Z";
  return out;
}

std::string GoFloat(double v) {
  if (!std::isfinite(v)) return "null";  // encoding/json refuses these; a row never holds one
  const double a = std::fabs(v);
  const bool exp = a != 0 && (a < 1e-6 || a >= 1e21);
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v,
                         exp ? std::chars_format::scientific : std::chars_format::fixed);
  std::string s(buf, r.ptr);
  const size_t n = s.size();
  if (exp && n >= 4 && s[n - 4] == 'e' && s[n - 3] == '-' && s[n - 2] == '0') {
    s.erase(n - 2, 1);  // e-07 -> e-7, as Go cleans it up
  }
  return s;
}

namespace {

void AppendValue(std::string& out, const row::RowBuffer& rows, size_t row, int column) {
  const row::ColumnBuffer& c = rows.column(column);
  switch (c.type) {
    case row::ColumnType::kString: row::AppendJsonString(out, c.strings.at(row)); break;
    case row::ColumnType::kInt32: out += std::to_string(c.int32s[row]); break;
    case row::ColumnType::kInt64: out += std::to_string(c.int64s[row]); break;
    case row::ColumnType::kDouble: out += GoFloat(c.doubles[row]); break;
    case row::ColumnType::kBool: out += c.bools[row] ? "true" : "false"; break;
    case row::ColumnType::kTimestamp:
      row::AppendJsonString(out, Rfc3339Micros(c.int64s[row]));
      break;
  }
}

}  // namespace

std::string ColumnText(const row::RowBuffer& rows, size_t row, int column) {
  const row::ColumnBuffer& c = rows.column(column);
  switch (c.type) {
    case row::ColumnType::kString: return std::string(c.strings.at(row));
    case row::ColumnType::kInt32: return std::to_string(c.int32s[row]);
    case row::ColumnType::kInt64: return std::to_string(c.int64s[row]);
    case row::ColumnType::kDouble: return GoFloat(c.doubles[row]);
    case row::ColumnType::kBool: return c.bools[row] ? "true" : "false";
    case row::ColumnType::kTimestamp: return Rfc3339Micros(c.int64s[row]);
  }
  return "";
}

void AppendRowJson(std::string& out, const row::RowBuffer& rows, size_t row,
                   const RowJsonOptions& options) {
  const auto& columns = rows.table().columns;
  out += '{';
  bool first = true;
  for (size_t i = 0; i < columns.size(); ++i) {
    if (options.no_detail && columns[i].name == "error_detail") continue;
    if (!first) out += ',';
    first = false;
    if (options.pretty) out += "\n  ";
    row::AppendJsonString(out, columns[i].name);
    out += options.pretty ? ": " : ":";
    AppendValue(out, rows, row, static_cast<int>(i));
  }
  out += options.pretty ? "\n}\n" : "}\n";
}

}  // namespace sinkd::tail
