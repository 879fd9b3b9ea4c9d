// BOOLEAN chunks: PLAIN data pages only (1 bit per value). A dictionary cannot beat one bit per
// value, and zstd shrinks long runs of equal booleans anyway.
#include <memory>
#include <variant>

#include "parquet/column_statistics.h"
#include "parquet/column_writer.h"
#include "parquet/plain_encoder.h"

namespace sinkd::parquet {
namespace {

class BooleanColumnWriter final : public ColumnWriter {
 public:
  explicit BooleanColumnWriter(const WriterOptions& options) : options_(options) {}

  Status WriteChunk(const ColumnArray& column, const RowSelection& selection, PageWriter& pages,
                    EncodedChunk& chunk) override {
    chunk.Clear();
    const uint8_t* values = std::get<std::span<const uint8_t>>(column).data();
    const size_t per_page = RowsPerPage(options_, 1);
    BooleanRange range;
    for (size_t start = 0; start < selection.size(); start += per_page) {
      const auto rows = selection.rows.subspan(start, std::min(per_page, selection.size() - start));
      page_.Clear();
      PlainEncodeBooleans(values, rows, page_);
      for (uint32_t row : rows) range.Update(values[row] != 0);
      SINKD_RETURN_IF_ERROR(pages.AddDataPage(page_.span(), static_cast<uint32_t>(rows.size()),
                                              Encoding::kPlain, chunk));
    }
    chunk.statistics = range.ToStatistics();
    chunk.statistics.null_count = 0;
    pages.Finish(chunk);
    return Status::OK();
  }

 private:
  const WriterOptions& options_;
  ByteBuffer page_;
};

}  // namespace

std::unique_ptr<ColumnWriter> MakeBooleanColumnWriter(const Field&, const WriterOptions& options) {
  return std::make_unique<BooleanColumnWriter>(options);
}

}  // namespace sinkd::parquet
