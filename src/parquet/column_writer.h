// A ColumnWriter encodes one schema field's values for one row group into an EncodedChunk: it
// chooses the encoding, cuts pages, computes statistics and fills the Bloom filter. There is one
// writer per physical type (boolean, fixed-width int32/int64/double, byte array), made by
// MakeColumnWriter from the field; the writer lives for the whole Part so that its dictionary
// and scratch buffers are reused across row groups.
//
// Phases of WriteChunk, in order: analyse (dictionary fit, statistics) → encode pages → finish
// (encodings, statistics, Bloom filter). Writers know nothing of file offsets or the footer.
// Ownership: a writer borrows the options (must outlive it); the chunk and pages are the caller's.
// Threads: one thread at a time; separate writers are independent.
// Errors: returned; the chunk is then incomplete and must be dropped.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "base/status.h"
#include "parquet/page_writer.h"
#include "parquet/schema.h"
#include "parquet/table_view.h"
#include "parquet/writer_options.h"

namespace sinkd::parquet {

// The rows of one chunk: indices into the column arrays, in output order. `contiguous` says they
// are first, first + 1, …, which lets PLAIN numerics be one memcpy.
struct RowSelection {
  std::span<const uint32_t> rows;
  bool contiguous = false;

  size_t size() const { return rows.size(); }
};

class ColumnWriter {
 public:
  virtual ~ColumnWriter() = default;

  // Encodes column[rows] as one column chunk into `chunk`, which it clears first.
  // REQUIRES: `column` holds this field's physical type; every row index is in range;
  //           rows is not empty.
  virtual Status WriteChunk(const ColumnArray& column, const RowSelection& rows,
                            PageWriter& pages, EncodedChunk& chunk) = 0;
};

// The writer for `field`'s physical type.
std::unique_ptr<ColumnWriter> MakeColumnWriter(const Field& field, const WriterOptions& options);

// Per physical type; MakeColumnWriter dispatches to these.
std::unique_ptr<ColumnWriter> MakeBooleanColumnWriter(const Field& field,
                                                      const WriterOptions& options);
std::unique_ptr<ColumnWriter> MakeFixedWidthColumnWriter(const Field& field,
                                                         const WriterOptions& options);
std::unique_ptr<ColumnWriter> MakeByteArrayColumnWriter(const Field& field,
                                                        const WriterOptions& options);

// How many values of `value_bits` bits each fit a page under the options (at least 1).
size_t RowsPerPage(const WriterOptions& options, size_t value_bits);

// The dictionary decision, one rule for every physical type (the numbers are in the .cc):
// a chunk is dictionary-encoded when its dictionary fits (at most MaxDictionaryEntries distinct
// values, and the options' byte limit) and DictionaryPays for the chunk's shape, i.e. unless each
// value sits in one short run (sorted near-unique data), where PLAIN + zstd is smaller.
size_t MaxDictionaryEntries(size_t rows);
// `runs`: the number of maximal runs of equal adjacent values in the chunk.
bool DictionaryPays(size_t rows, size_t distinct, size_t runs);

}  // namespace sinkd::parquet
