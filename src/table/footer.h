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
//   sinkd.supersedes      a compaction output's inputs, each as it was when merged (JSON array
//                         of {"key","size","version"}, sorted by key; see SupersededObject)
//   sinkd.compaction      a compaction output's counts (compact/output.h)
// Threads: pure functions.
#pragma once

#include <cstdint>
#include <set>
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

// One input of a compaction output, as the listing the merge was planned from gave it. The grace
// deleter deletes the object at `key` only while it is still exactly this one (same size and
// version): a key re-created after its input was merged and deleted holds rows no output has, a
// live Part.
struct SupersededObject {
  std::string key;
  uint64_t size = 0;
  // lake::StoredObject::version (S3 ETag, a file's mtime in ns). "" for an element written before
  // versions were recorded (a bare key string): such an element matches no object, so its input
  // is merged again rather than deleted unseen.
  std::string version;
  bool operator==(const SupersededObject&) const = default;
};

// The sinkd.supersedes value of `inputs` (sorted by key here).
std::string FormatSupersedes(std::vector<SupersededObject> inputs);

// A sinkd.supersedes value: objects as FormatSupersedes writes them, or bare key strings (outputs
// written before versions were recorded). Refuse naming what is wrong when it is neither.
Result<std::vector<SupersededObject>> ParseSupersedes(std::string_view json);

// One object of a table as a listing found it (lake::StoredObject's key, size and version) with
// the sinkd.supersedes of its footer (empty for a Part that is no compaction output).
struct PresentObject {
  std::string key;
  uint64_t size = 0;
  std::string version;
  std::vector<SupersededObject> supersedes;
};

// The keys of `objects` that a compaction output among them supersedes: an input counts only as
// the object it was when merged (same key, size and version; an element without a version
// supersedes nothing), as compaction's grace deleter decides, since a key re-created after its
// input was merged holds rows no output has. The rest are the live objects: the table's rows
// once each, for `lake verify` and `sinkd table register` alike.
std::set<std::string> SupersededKeys(const std::vector<PresentObject>& objects);

}  // namespace sinkd::table
