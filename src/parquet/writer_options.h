// WriterOptions: the knobs of a PartWriter, a plain struct with in-class defaults. Every field
// says its unit, default and cost. Changing any of them changes the bytes written (never what a
// reader reads back).
// Threads: plain value.
#pragma once

#include <cstddef>
#include <string>

namespace sinkd::parquet {

struct WriterOptions {
  // ZSTD level for every page. 3 is the zstd and DuckDB default. On generated ledger rows level 1
  // was both faster and smaller (one file 93.0 against 93.8 bytes/row, 25-40% less encode time):
  // the random ids that make up half the bytes compress better with level 1's matcher
  // (BENCHMARKS.md, "ZSTD level 1 and 3").
  int zstd_level = 3;
  // Rows per row group. 122,880 is DuckDB's unit: its scans parallelise and prune per row group.
  size_t row_group_rows = 122'880;
  // Target uncompressed bytes per data page; pages close at this size or page_rows, whichever first.
  size_t page_bytes = 1 << 20;
  // Arrow caps pages at 20,000 rows so that a page index can skip within a chunk; sinkd writes no
  // page index, and small pages only cost zstd context: on 300,000 generated ledger rows the
  // 20,000-row cap made the file 0.75% larger (cost_usd 12%) for no reader benefit.
  // Both limits count values: in an OPTIONAL column a page also holds the levels of the NULLs
  // among (and, last, after) its values, so it may cover more rows.
  size_t page_rows = 1 << 20;
  // A chunk is dictionary-encoded only while its distinct values' PLAIN bytes (4-byte length +
  // bytes for strings, the value's width for numbers) stay at or under this limit; past it, the
  // whole chunk is PLAIN. 1 MiB is Arrow's, arrow-rs's and parquet-java's dictionary page limit.
  size_t dictionary_bytes_limit = 1 << 20;
  // Target false-positive rate of Bloom filters.
  double bloom_fpp = 0.01;
  // FileMetaData.created_by, e.g. "sinkd version 0.1.0 (build abc123)". Must parse as
  // "<app> version <semver> (build <id>)": parquet-java ignores string statistics otherwise.
  std::string created_by = "sinkd version 0.0.0 (build unknown)";
  // Longest string min/max kept in the footer, in bytes; longer bounds are truncated and marked
  // inexact. 64 is arrow-rs's choice: enough to prune on ids, keys and timestamps-as-text, while a
  // 40-column footer stays a few KiB per row group whatever the values hold.
  size_t statistics_truncate_bytes = 64;
};

}  // namespace sinkd::parquet
