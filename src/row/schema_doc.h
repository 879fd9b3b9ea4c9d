// The human-readable form of a ColumnTable: the README's schema section and `sinkd schema` both
// print this, and a test checks the README against it, so the documentation cannot drift from
// the columns the writer actually writes.
#pragma once

#include <string>

#include "row/column_table.h"

namespace sinkd::row {

// A Markdown table: one line per column in table order, then the derived `date` partition column.
std::string SchemaMarkdown(const ColumnTable& table);

// Where a column's value comes from, e.g. "Event.usage.input_tokens (30.1)".
std::string SourceText(const ColumnSpec& spec);

}  // namespace sinkd::row
