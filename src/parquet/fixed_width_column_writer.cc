// INT32, INT64 (timestamps included) and DOUBLE chunks. One template: the three differ only in
// width and in how statistics treat NaN and ±0.
// Encoding: RLE_DICTIONARY when the dictionary fits and pays (column_writer.h), else PLAIN (a
// gather, or one memcpy for contiguous rows). Numerics use the dictionary like strings do because
// it measured smaller and faster: on a 1M-row ledger table with zstd 3, the six numeric columns
// took 7.8 MB dictionary-encoded against 11.4 MB PLAIN (cost_usd 2.6 vs 3.9 MB, chain_depth
// 0.20 vs 0.45 MB), and encoding took less time because zstd had less to compress.
#include <memory>
#include <type_traits>
#include <variant>
#include <vector>

#include "parquet/bloom_filter.h"
#include "parquet/column_statistics.h"
#include "parquet/column_writer.h"
#include "parquet/dictionary_encoder.h"
#include "parquet/plain_encoder.h"

namespace sinkd::parquet {
namespace {

template <typename T>
class FixedWidthColumnWriter final : public ColumnWriter {
  using Range = std::conditional_t<std::is_same_v<T, double>, DoubleRange, IntegerRange<T>>;

 public:
  FixedWidthColumnWriter(const Field& field, const WriterOptions& options)
      : options_(options), bloom_(field.bloom_filter) {}

  Status WriteChunk(const ColumnArray& column, const RowSelection& selection, PageWriter& pages,
                    EncodedChunk& chunk) override {
    chunk.Clear();
    const T* values = std::get<std::span<const T>>(column).data();
    Status s = BuildDictionary(values, selection)
                   ? WriteDictionaryChunk(selection.size(), pages, chunk)
                   : WritePlainChunk(values, selection, pages, chunk);
    SINKD_RETURN_IF_ERROR(s);
    chunk.statistics.null_count = 0;
    pages.Finish(chunk);
    return Status::OK();
  }

 private:
  // Fills indices_ and dictionary_; false when the dictionary does not fit or does not pay, and
  // the chunk is to be PLAIN.
  bool BuildDictionary(const T* values, const RowSelection& selection) {
    const size_t n = selection.size();
    const size_t max_entries = std::min(MaxDictionaryEntries(n),
                                        options_.dictionary_bytes_limit / sizeof(T));
    if (max_entries == 0) return false;
    dictionary_.Reset(max_entries);
    indices_.resize(n);
    size_t runs = 0;
    uint32_t previous = kDictionaryFull;
    for (size_t i = 0; i < n; ++i) {
      const uint32_t index = dictionary_.Insert(values[selection.rows[i]]);
      if (index == kDictionaryFull) return false;
      indices_[i] = index;
      runs += index != previous;
      previous = index;
    }
    return DictionaryPays(n, dictionary_.size(), runs);
  }

  Status WriteDictionaryChunk(size_t n, PageWriter& pages, EncodedChunk& chunk) {
    const std::span<const T> entries = dictionary_.entries();
    page_.Clear();
    PlainEncodeRun(entries.data(), entries.size(), page_);
    SINKD_RETURN_IF_ERROR(pages.AddDictionaryPage(page_.span(), dictionary_.size(), chunk));
    const size_t per_page = RowsPerPage(options_, DictionaryIndexWidth(dictionary_.size()));
    for (size_t start = 0; start < n; start += per_page) {
      const size_t count = std::min(per_page, n - start);
      page_.Clear();
      EncodeDictionaryIndices(std::span(indices_).subspan(start, count), dictionary_.size(),
                              page_);
      SINKD_RETURN_IF_ERROR(pages.AddDataPage(page_.span(), static_cast<uint32_t>(count),
                                              Encoding::kRleDictionary, chunk));
    }
    // Bounds and Bloom filter from the distinct values, not the rows.
    Range range;
    range.Update(entries);
    chunk.statistics = range.ToStatistics();
    chunk.statistics.distinct_count = dictionary_.size();
    // Sized for the distinct values, which the dictionary counts exactly; a PLAIN chunk sizes for
    // its row count, their upper bound. Hashed once per entry, not per row.
    if (bloom_) {
      chunk.bloom.emplace(SplitBlockBloomFilter::OptimalBytes(entries.size(), options_.bloom_fpp));
      for (T v : entries) chunk.bloom->Insert(BloomHashOf(v));
    }
    return Status::OK();
  }

  Status WritePlainChunk(const T* values, const RowSelection& selection, PageWriter& pages,
                         EncodedChunk& chunk) {
    const size_t n = selection.size();
    const size_t per_page = RowsPerPage(options_, 8 * sizeof(T));
    Range range;
    if (bloom_) {
      chunk.bloom.emplace(SplitBlockBloomFilter::OptimalBytes(n, options_.bloom_fpp));
    }
    for (size_t start = 0; start < n; start += per_page) {
      const auto rows = selection.rows.subspan(start, std::min(per_page, n - start));
      page_.Clear();
      if (selection.contiguous) {
        const std::span<const T> run(values + rows[0], rows.size());
        PlainEncodeRun(run.data(), run.size(), page_);
        range.Update(run);
        if (bloom_) for (T v : run) chunk.bloom->Insert(BloomHashOf(v));
      } else {
        PlainEncodeGather(values, rows, page_);
        for (uint32_t row : rows) range.Update(values[row]);
        if (bloom_) for (uint32_t row : rows) chunk.bloom->Insert(BloomHashOf(values[row]));
      }
      SINKD_RETURN_IF_ERROR(pages.AddDataPage(page_.span(), static_cast<uint32_t>(rows.size()),
                                              Encoding::kPlain, chunk));
    }
    chunk.statistics = range.ToStatistics();
    return Status::OK();
  }

  const WriterOptions& options_;
  const bool bloom_;
  FixedDictionary<T> dictionary_;
  std::vector<uint32_t> indices_;
  ByteBuffer page_;
};

}  // namespace

std::unique_ptr<ColumnWriter> MakeFixedWidthColumnWriter(const Field& field,
                                                         const WriterOptions& options) {
  switch (field.physical) {
    case PhysicalType::kInt32:
      return std::make_unique<FixedWidthColumnWriter<int32_t>>(field, options);
    case PhysicalType::kInt64:
      return std::make_unique<FixedWidthColumnWriter<int64_t>>(field, options);
    case PhysicalType::kDouble:
      return std::make_unique<FixedWidthColumnWriter<double>>(field, options);
    default:
      return nullptr;
  }
}

}  // namespace sinkd::parquet
