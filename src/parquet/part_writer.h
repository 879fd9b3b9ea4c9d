// PartWriter encodes rows into one ZSTD Parquet file (a Part), streaming each row group to an
// OutputStream as soon as it is encoded, so memory is bounded by one row group (plus the footer
// and the Bloom filters, which wait for Finish), not by the file.
//
// Layout: PAR1, row groups (column chunks in schema order: [dictionary page] data pages…),
// Bloom filters, FileMetaData (Thrift compact), footer length, PAR1. V1 data pages, REQUIRED columns
// (no definition levels) or OPTIONAL ones (definition levels in every data page; NULLs are left
// out of the values, the dictionary, min/max and the Bloom filter), ZSTD on every page,
// RLE_DICTIONARY or PLAIN per chunk, per-chunk statistics (null_count; min/max exact, or
// truncated and marked inexact for long strings),
// column_orders, encoding_stats, field ids, created_by, key/value metadata.
//
// Parallel: given a WorkPool (base/work_pool.h), the column chunks of each row group are encoded
// on its threads, each chunk by its own column writer into its own buffer, and appended in schema
// order once all are done: the bytes are the same at any thread count (and without a pool). The
// cost is memory: one row group's encoded chunks wait together, and each pool slot has its own
// page scratch and ZSTD context.
// Ownership: copies the Schema and the options; borrows the OutputStream and the pool (both must
// outlive the writer); owns its scratch buffers and its ZSTD contexts, reused across row groups.
// Threads: one thread at a time (its own use of the pool aside); separate PartWriters are
// independent, and may share one pool.
// Errors: the first failure is kept; later calls do nothing and return it.
// Determinism: the same schema, options, rows and metadata give byte-identical output.
// Never touches a file, a socket or the clock.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "base/work_pool.h"
#include "parquet/file_statistics.h"
#include "parquet/output_stream.h"
#include "parquet/schema.h"
#include "parquet/table_view.h"
#include "parquet/writer_options.h"

namespace sinkd::parquet {

using KeyValue = std::pair<std::string, std::string>;

class PartWriter {
 public:
  // A schema the writer cannot encode (empty, duplicate or empty names, an annotation on the
  // wrong physical type, a Bloom filter on BOOLEAN) or zero sizes in the options leave the writer
  // failed with Refuse: every later call returns it and nothing is written.
  // REQUIRES: Finish() or Abandon() before destruction, unless a call has already failed.
  // `pool`: where a row group's chunks are encoded; nullptr encodes them on the calling thread.
  PartWriter(const Schema& schema, const WriterOptions& options, OutputStream& out,
             WorkPool* pool = nullptr);
  ~PartWriter();
  PartWriter(const PartWriter&) = delete;
  PartWriter& operator=(const PartWriter&) = delete;

  // Encodes table rows `rows[0]`, `rows[1]`, … (in that order) as row groups of at most
  // options.row_group_rows rows each and appends them to the stream. Each call starts a new row
  // group; call once per file for full row groups.
  // Returns Reject for input no reader could take (invalid UTF-8 in a STRING column, naming the
  // column and row; a value past Parquet's 2 GiB page size), Refuse for a string column of more
  // than 4 GiB - 1 bytes (its 32-bit offsets cannot address it: the batch closed too late; before
  // any byte is written), the stream's own error if an Append fails, and Internal when the
  // REQUIRES below are broken (checked, not trusted).
  // The table is only read during the call: nothing of it is kept afterwards.
  // REQUIRES: table.columns matches the schema (types and count) and each array holds
  //           table.rows values; table.defined is empty or one span per column, each empty or
  //           of table.rows bytes, with no NULL for a REQUIRED field; every index < table.rows;
  //           Finish/Abandon not yet called.
  Status WriteRows(const TableView& table, std::span<const uint32_t> rows);

  // Writes Bloom filters and the footer (with `metadata` as key/value pairs, in order).
  // A writer that received no rows writes a valid zero-row file; callers that want no file for no
  // rows must not create one.
  Status Finish(std::span<const KeyValue> metadata);

  // Gives up on the Part; nothing more is written. The caller discards what the stream holds.
  void Abandon();

  // Bytes appended to the stream so far (the file size once Finish returned OK).
  uint64_t bytes_written() const;
  // Rows in the row groups written so far.
  uint64_t rows_written() const;
  // The footer's statistics of every column (file_statistics.h), from the footer in memory: a
  // table commit describes the Part with them instead of reading it back.
  // REQUIRES: Finish() returned OK.
  FileStatistics statistics() const;
  // The sticky status: OK, or the first failure.
  const Status& status() const;

 private:
  struct Rep;
  std::unique_ptr<Rep> rep_;
};

}  // namespace sinkd::parquet
