// BYTE_ARRAY chunks (strings and binary).
// Encoding: RLE_DICTIONARY with a PLAIN dictionary page while the chunk's distinct values fit
// both MaxDictionaryEntries and options.dictionary_bytes_limit; otherwise the whole chunk is
// PLAIN. One encoding per chunk, decided before any page is cut, as DuckDB does: the row group is
// in memory anyway, and clean encoding_stats let parquet-java prove a chunk fully dictionary-coded.
// STRING columns are checked for valid UTF-8 (once per distinct value when dictionary-coded):
// DuckDB refuses to read a file holding invalid UTF-8 in a STRING column, so one bad value would
// make every query over the partition fail.
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "parquet/bloom_filter.h"
#include "parquet/column_statistics.h"
#include "parquet/column_writer.h"
#include "parquet/dictionary_encoder.h"
#include "parquet/plain_encoder.h"
#include "parquet/utf8.h"

namespace sinkd::parquet {
namespace {

class ByteArrayColumnWriter final : public ColumnWriter {
 public:
  ByteArrayColumnWriter(const Field& field, const WriterOptions& options)
      : options_(options),
        utf8_(field.annotation == Annotation::kString),
        bloom_(field.bloom_filter) {}

  Status WriteChunk(const ColumnArray& column, const RowSelection& selection, PageWriter& pages,
                    EncodedChunk& chunk) override {
    chunk.Clear();
    const StringArray& values = std::get<StringArray>(column);
    Status s = BuildDictionary(values, selection)
                   ? WriteDictionaryChunk(values, selection, pages, chunk)
                   : WritePlainChunk(values, selection, pages, chunk);
    SINKD_RETURN_IF_ERROR(s);
    chunk.statistics.null_count = 0;
    pages.Finish(chunk);
    return Status::OK();
  }

 private:
  // Fills indices_ and dictionary_; false when the dictionary does not fit or does not pay, and
  // the chunk is to be PLAIN.
  bool BuildDictionary(const StringArray& values, const RowSelection& selection) {
    const size_t n = selection.size();
    const size_t max_entries = MaxDictionaryEntries(n);
    if (max_entries == 0) return false;
    dictionary_.Reset(max_entries, options_.dictionary_bytes_limit);
    indices_.resize(n);
    size_t runs = 0;
    uint32_t previous = kDictionaryFull;
    for (size_t i = 0; i < n; ++i) {
      const uint32_t index = dictionary_.Insert(values.at(selection.rows[i]));
      if (index == kDictionaryFull) return false;
      indices_[i] = index;
      runs += index != previous;
      previous = index;
    }
    return DictionaryPays(n, dictionary_.size(), runs);
  }

  Status WriteDictionaryChunk(const StringArray& values, const RowSelection& selection,
                              PageWriter& pages, EncodedChunk& chunk) {
    const uint32_t entries = dictionary_.size();
    StringRange range;
    for (uint32_t e = 0; e < entries; ++e) {
      const std::string_view value = dictionary_.entry(e);
      if (utf8_ && !IsValidUtf8(value)) return InvalidUtf8(values, selection);
      range.Update(value);
    }
    SINKD_RETURN_IF_ERROR(pages.AddDictionaryPage(dictionary_.plain(), entries, chunk));
    const size_t n = selection.size();
    const size_t per_page = RowsPerPage(options_, DictionaryIndexWidth(entries));
    for (size_t start = 0; start < n; start += per_page) {
      const size_t count = std::min(per_page, n - start);
      page_.Clear();
      EncodeDictionaryIndices(std::span(indices_).subspan(start, count), entries, page_);
      SINKD_RETURN_IF_ERROR(pages.AddDataPage(page_.span(), static_cast<uint32_t>(count),
                                              Encoding::kRleDictionary, chunk));
    }
    chunk.statistics = range.ToStatistics(options_.statistics_truncate_bytes, utf8_);
    chunk.statistics.distinct_count = entries;
    // Sized for the distinct values, which the dictionary counts exactly; a PLAIN chunk sizes for
    // its row count, their upper bound. Hashed once per entry, not per row.
    if (bloom_) {
      chunk.bloom.emplace(SplitBlockBloomFilter::OptimalBytes(entries, options_.bloom_fpp));
      for (uint32_t e = 0; e < entries; ++e) chunk.bloom->Insert(BloomHash(dictionary_.entry(e)));
    }
    return Status::OK();
  }

  Status WritePlainChunk(const StringArray& values, const RowSelection& selection,
                         PageWriter& pages, EncodedChunk& chunk) {
    const size_t n = selection.size();
    StringRange range;
    if (bloom_) chunk.bloom.emplace(SplitBlockBloomFilter::OptimalBytes(n, options_.bloom_fpp));
    size_t i = 0;
    while (i < n) {
      const size_t start = i;
      page_.Clear();
      // A page closes before the value that would take it past page_bytes, but always holds at
      // least one value: a 1 MiB string gets a page of its own rather than an error.
      for (; i < n && i - start < options_.page_rows; ++i) {
        const std::string_view value = values.at(selection.rows[i]);
        if (i > start && page_.size() + 4 + value.size() > options_.page_bytes) break;
        if (utf8_ && !IsValidUtf8(value)) return InvalidUtf8(values, selection);
        PlainEncodeByteArray(value, page_);
        range.Update(value);
        if (bloom_) chunk.bloom->Insert(BloomHash(value));
      }
      SINKD_RETURN_IF_ERROR(pages.AddDataPage(page_.span(), static_cast<uint32_t>(i - start),
                                              Encoding::kPlain, chunk));
    }
    chunk.statistics = range.ToStatistics(options_.statistics_truncate_bytes, utf8_);
    return Status::OK();
  }

  // The error path: find the first offending row so the message can name it (PartWriter adds
  // the column).
  Status InvalidUtf8(const StringArray& values, const RowSelection& selection) const {
    for (uint32_t row : selection.rows) {
      if (!IsValidUtf8(values.at(row))) {
        return Status::Reject("row " + std::to_string(row) +
                              " is not valid UTF-8, which a STRING column must be");
      }
    }
    return Status::Internal("invalid UTF-8 vanished on a second look");
  }

  const WriterOptions& options_;
  const bool utf8_;
  const bool bloom_;
  StringDictionary dictionary_;
  std::vector<uint32_t> indices_;
  ByteBuffer page_;
};

}  // namespace

std::unique_ptr<ColumnWriter> MakeByteArrayColumnWriter(const Field& field,
                                                        const WriterOptions& options) {
  return std::make_unique<ByteArrayColumnWriter>(field, options);
}

}  // namespace sinkd::parquet
