// The key/value metadata sinkd writes into the footer of every Part of a table, by key. Every
// writer (lake::LakeWriter, compaction's outputs) and every reader (compaction, `sinkd lake
// verify`) names these keys from here:
//   sinkd.table           the table's columns (row::ColumnTable::name: "ledger" for the ledger
//                         and audit lakes alike, "outbox_events", "outbox_audit")
//   sinkd.schema_version  the columns' version
//   sinkd.source          what the rows were read from ("GARM_LEDGER", "import", "outbox:<sink>"),
//                         "compact" for a compaction output
//   sinkd.first_sequence, sinkd.last_sequence   a flush's range (lake Parts only)
//   sinkd.stamps          the flush stamps (lake/stamp.h): one for a Part, the union of its
//                         inputs' for a compaction output
//   sinkd.supersedes      a compaction output's inputs (JSON array of keys, sorted)
//   sinkd.compaction      a compaction output's counts (compact/output.h)
// Threads: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"
#include "row/column_table.h"

namespace sinkd::table {

inline constexpr std::string_view kTableKey = "sinkd.table";
inline constexpr std::string_view kSchemaVersionKey = "sinkd.schema_version";
inline constexpr std::string_view kSourceKey = "sinkd.source";
inline constexpr std::string_view kFirstSequenceKey = "sinkd.first_sequence";
inline constexpr std::string_view kLastSequenceKey = "sinkd.last_sequence";
inline constexpr std::string_view kStampsKey = "sinkd.stamps";
inline constexpr std::string_view kSupersedesKey = "sinkd.supersedes";
inline constexpr std::string_view kCompactionKey = "sinkd.compaction";

// The sinkd.source of a compaction output.
inline constexpr std::string_view kCompactionSource = "compact";

// The first three entries of every Part's footer, in this order: sinkd.table,
// sinkd.schema_version, sinkd.source = `source`.
std::vector<std::pair<std::string, std::string>> FooterHead(const row::ColumnTable& columns,
                                                            std::string_view source);

// The keys of a sinkd.supersedes value; Refuse naming what is wrong when it is not a JSON array
// of strings.
Result<std::vector<std::string>> ParseSupersedes(std::string_view json);

}  // namespace sinkd::table
