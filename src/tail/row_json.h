// One lake row as one JSON object, keys named and ordered exactly as the lake's columns
// (row::kLedgerColumns: 40 keys, no `date`), so a filter that works on a terminal line is a WHERE
// clause that works on the Parquet. Values as Go's encoding/json writes them: strings escaped by
// row/json_text.h (the JSON-text columns print as strings holding JSON), integers as numbers,
// cost_usd in Go's shortest float form, bools as true/false, `time` as RFC 3339 UTC with trailing
// zero fractions dropped (microseconds: the row's precision).
// Threads: pure functions.
#pragma once

#include <cstdint>
#include <string>

#include "row/row_buffer.h"

namespace sinkd::tail {

// "2026-09-29T12:00:00Z", "2026-09-29T12:00:00.5Z", "2026-09-29T12:00:00.123456Z".
std::string Rfc3339Micros(int64_t micros);
// Go's strconv.FormatFloat(v, 'f' or 'e', -1, 64) as encoding/json picks it: "1.5", "0", "1e-07".
std::string GoFloat(double v);

// The text a filter compares with: strings as they are, numbers and bools as printed, time as
// Rfc3339Micros.
std::string ColumnText(const row::RowBuffer& rows, size_t row, int column);

struct RowJsonOptions {
  bool pretty = false;     // two-space indentation, one key per line
  bool no_detail = false;  // drop the error_detail key entirely
};

// Appends the object and a trailing newline.
void AppendRowJson(std::string& out, const row::RowBuffer& rows, size_t row,
                   const RowJsonOptions& options);

}  // namespace sinkd::tail
