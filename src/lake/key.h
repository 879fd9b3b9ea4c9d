// Object keys of the lake, built by this one piece of code for every destination, so a directory
// lake can be copied into a bucket and read unchanged:
//   <prefix>/date=YYYY-MM-DD/<column>=<escaped value>/…/
//       part-<instance>[.<k>]-<firstSeq>-<lastSeq>-<n>.parquet
// Partition values are untrusted input: they are escaped as Hive and DuckDB do, so no value can
// leave its directory (`../x`, `a/b`) or collide with another (`a=b`, `%41`).
// Threads: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sinkd::lake {

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
// exact value is also a column inside every Part (batch/part_schema.h), and readers that ignore
// the path (hive_partitioning=false) read it there. REQUIRES: column is a safe key token much
// shorter than kMaxSegmentBytes (the tables' partition columns are `app` and `type`).
std::string PartitionSegment(std::string_view column, std::string_view value);

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

}  // namespace sinkd::lake
