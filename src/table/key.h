// Object keys of a table, built and read back by this one piece of code for every destination and
// every writer (drain, import, the outbox lake sinks, compaction), so a directory lake can be
// copied into a bucket and read unchanged:
//   Parts        <prefix>/date=YYYY-MM-DD/<column>=<escaped value>/…/
//                    part-<instance>[.<k>]-<firstSeq>-<lastSeq>-<n>.parquet
//   compaction   <prefix>/date=…/<column>=…/compact-<32 hex>[-<i>].parquet
//   dead letters dead-letters/<prefix>/dead-<instance>[.<k>]-<firstSeq>-<lastSeq>.jsonl (import's)
// Partition values are untrusted input: they are escaped as Hive and DuckDB do, so no value can
// leave its directory (`../x`, `a/b`) or collide with another (`a=b`, `%41`). ParseObjectKey is
// the inverse: which keys are a table's objects, and in which partition.
// Threads: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "row/column_table.h"

namespace sinkd::table {

// Every byte outside [A-Za-z0-9-_.~] becomes %XX (uppercase hex), as DuckDB's hive writer does
// and as its hive reader undoes. Exact: never shortened (PartitionSegment shortens, and only when
// it must).
std::string EscapePartitionValue(std::string_view value);

// The most bytes of one key segment: a directory name holds at most NAME_MAX (255) bytes on Linux
// file systems, and a directory lake copied into a bucket must read unchanged, so S3 keys keep it.
inline constexpr size_t kMaxSegmentBytes = 255;

// "<column>=<escaped value>": exact whenever it fits kMaxSegmentBytes (`app=` + 251 escaped bytes
// fits). Past it, the escaped value is cut on an escape boundary to a prefix plus "~" and 16 hex
// digits of the raw value's XXH64, so the segment fits and stays unique. Nothing is lost: the
// exact value is also a column inside every Part (partition/part_schema.h), and readers that ignore
// the path (hive_partitioning=false) read it there. REQUIRES: column is a safe key token much
// shorter than kMaxSegmentBytes (the tables' partition columns are `app` and `type`).
std::string PartitionSegment(std::string_view column, std::string_view value);

// A key token cannot climb out of the lake or split into two segments: letters, digits, '-', '_'
// and '.', never empty, "." or "..". A prefix is '/'-separated tokens. Instances and prefixes are
// checked with these before anything is written (lake::LakeWriterOptions::Validate).
bool SafeKeyToken(std::string_view token);
bool SafeKeyPrefix(std::string_view prefix);

// "<hostname with '.' → '_'>-<pid>" ("unknown-<pid>" for an empty hostname): unique per process on
// a host, so drains sharing one durable never write the same key.
std::string DefaultInstanceId();
std::string InstanceIdFor(std::string_view hostname, long pid);

struct PartKeyFields {
  std::string prefix;                  // "ledger", "audit", …
  std::string date;                    // YYYY-MM-DD
  std::vector<std::string> columns;    // partition column names, in table order
  std::vector<std::string> values;     // their raw values, same order
  std::string instance;
  uint64_t first_sequence = 0;
  uint64_t last_sequence = 0;
  uint64_t number = 0;                 // n: counts parts across one flush, in key order
  // 0 for the plain name; k > 0 when the first k names were taken by other bytes (the instance
  // becomes "<instance>.<k>"): a key is never replaced, so a different Part goes beside it.
  uint32_t alternative = 0;
};

// The full key, '/'-separated, relative (no leading '/').
std::string PartKey(const PartKeyFields& fields);

// The name of Part n of the flush that wrote `sibling_name` (another of its Parts, the name only):
// part-<instance>-<first>-<last>-<n>.parquet with its n replaced.
std::string PartNameWithNumber(std::string_view sibling_name, uint64_t n);

// A key of the table read back.
struct ObjectKey {
  std::string partition;            // "<prefix>/date=…/app=…" (no trailing '/')
  std::string date;                 // YYYY-MM-DD
  std::vector<std::string> values;  // the partition columns' values as the key holds them,
                                    // unescaped; `exact` says whether they are whole
  bool exact = true;                // false when a segment may have been shortened (above)
  std::string name;                 // "part-….parquet" or "compact-….parquet"
  bool output = false;              // named like a compaction output
};

// nullopt when `key` is not an object of `table` under `prefix`: it is one exactly when it reads
//   <prefix>/date=YYYY-MM-DD/<partition column>=<escaped value>/…(one per partition column, in
//   table order)/<name>.parquet
// with a name of safe characters. Everything else under the prefix (dead letters, `.incomplete`
// files, a foreign tree) is not, and compaction never reads, merges or deletes it.
std::optional<ObjectKey> ParseObjectKey(const row::ColumnTable& table, std::string_view prefix,
                                        std::string_view key);

// Milliseconds since the Unix epoch at which UTC date `date` (YYYY-MM-DD) ends; nullopt when it
// is not a valid date.
std::optional<int64_t> DateEndUnixMs(std::string_view date);

// "<partition>/compact-<hash>.parquet" for a merge with one output, else
// "<partition>/compact-<hash>-<index>.parquet".
std::string CompactionOutputKey(std::string_view partition, std::string_view hash, uint64_t index,
                                uint64_t outputs);
// "compact-<hash>" of a name "compact-<hash>[-<i>].parquet" (32 hex digits of hash, i without
// leading zeros) with its index (none for a merge of one output); nullopt for other names.
std::optional<std::pair<std::string, std::optional<uint64_t>>> CompactionOutputStem(
    std::string_view name);

// Where import keeps the dead letters of the table under `prefix`: "dead-letters/<prefix>/".
// Nothing under the root "dead-letters" is ever a table's object (no prefix may lie there).
inline constexpr std::string_view kDeadLettersRoot = "dead-letters";
std::string DeadLetterDirectory(std::string_view prefix);
// dead-letters/<prefix>/dead-<instance>[.<k>]-<first>-<last>.jsonl; alternative k > 0 names the
// file dead-<instance>.<k>-…, as PartKey names Parts.
std::string DeadLetterKey(std::string_view prefix, std::string_view instance, uint64_t first,
                          uint64_t last, uint32_t alternative = 0);
// The instance that wrote the dead-letter file at `key` (its alternative dropped); "" when the
// name is not one of DeadLetterKey's.
std::string DeadLetterInstance(std::string_view key);

}  // namespace sinkd::table
