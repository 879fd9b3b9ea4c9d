// Bytes of a Part, in the order they are appended:
//   "PAR1"
//   row group 0: chunk of field 0 … chunk of field N-1  (each: [dictionary page] data page…)
//   row group 1 …                                        (appended as soon as it is encoded)
//   Bloom filters: BloomFilterHeader + bitset, per (row group, field) that has one
//   FileMetaData (Thrift compact) | u32 LE length of FileMetaData | "PAR1"
// Only this file knows absolute offsets: column writers hand back chunks with relative ones.
#include "parquet/part_writer.h"

#include <algorithm>
#include <cassert>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <variant>

#include "parquet/column_writer.h"
#include "parquet/file_schema.h"
#include "parquet/metadata_serializer.h"
#include "parquet/page_writer.h"

namespace sinkd::parquet {
namespace {

constexpr uint8_t kMagic[4] = {'P', 'A', 'R', '1'};
// RowGroup.ordinal is an i16.
constexpr size_t kMaxRowGroups = std::numeric_limits<int16_t>::max();

// Scans a row group's row indices once: are they in range, and are they one contiguous run?
Status CheckRows(std::span<const uint32_t> rows, size_t table_rows, bool& contiguous) {
  uint32_t max = 0;
  bool run = true;
  for (size_t i = 0; i < rows.size(); ++i) {
    max = std::max(max, rows[i]);
    run &= static_cast<size_t>(rows[i]) == static_cast<size_t>(rows[0]) + i;
  }
  if (!rows.empty() && max >= table_rows) {
    return Status::Internal("parquet: row index " + std::to_string(max) + " past the table's " +
                            std::to_string(table_rows) + " rows");
  }
  contiguous = run;
  return Status::OK();
}

// The check below compares the variant's index with the PhysicalType: their orders must agree.
template <PhysicalType P, typename Array>
constexpr bool kArrayFor =
    std::is_same_v<std::variant_alternative_t<static_cast<size_t>(P), ColumnArray>, Array>;
static_assert(kArrayFor<PhysicalType::kBoolean, std::span<const uint8_t>> &&
              kArrayFor<PhysicalType::kInt32, std::span<const int32_t>> &&
              kArrayFor<PhysicalType::kInt64, std::span<const int64_t>> &&
              kArrayFor<PhysicalType::kDouble, std::span<const double>> &&
              kArrayFor<PhysicalType::kByteArray, StringArray>);

// `defined` is empty or one span per column, each empty or covering every row; a REQUIRED field
// has no NULL.
Status CheckDefined(const Schema& schema, const TableView& table) {
  if (table.defined.empty()) return Status::OK();
  if (table.defined.size() != schema.size()) {
    return Status::Internal("parquet: the table has " + std::to_string(table.defined.size()) +
                            " definition spans for " + std::to_string(schema.size()) + " columns");
  }
  for (size_t c = 0; c < schema.size(); ++c) {
    const std::span<const uint8_t> defined = table.defined[c];
    if (defined.empty()) continue;
    if (defined.size() < table.rows) {
      return Status::Internal("parquet: column " + schema[c].name + " has definitions for " +
                              std::to_string(defined.size()) + " of " +
                              std::to_string(table.rows) + " rows");
    }
    if (schema[c].optional) continue;
    const auto null = std::find(defined.begin(), defined.begin() + table.rows, uint8_t{0});
    if (null != defined.begin() + table.rows) {
      return Status::Internal("parquet: column " + schema[c].name + " is REQUIRED but row " +
                              std::to_string(null - defined.begin()) + " is NULL");
    }
  }
  return Status::OK();
}

// Each field's array must have the field's physical type and hold every row of the table.
Status CheckTable(const Schema& schema, const TableView& table) {
  if (table.columns.size() != schema.size()) {
    return Status::Internal("parquet: the table has " + std::to_string(table.columns.size()) +
                            " columns, the schema " + std::to_string(schema.size()));
  }
  for (size_t c = 0; c < schema.size(); ++c) {
    const ColumnArray& column = table.columns[c];
    bool long_enough = false;
    if (column.index() != static_cast<size_t>(schema[c].physical)) {
      return Status::Internal("parquet: column " + schema[c].name + " has the wrong array type");
    }
    if (const auto* strings = std::get_if<StringArray>(&column)) {
      if (strings->bytes.size() > UINT32_MAX) {
        return Status::Refuse("parquet: column " + schema[c].name + " holds " +
                              std::to_string(strings->bytes.size()) +
                              " bytes of strings, past the 4294967295 its 32-bit offsets "
                              "address; close batches earlier (a lower batch byte limit)");
      }
      long_enough = strings->offsets.size() > table.rows &&
                    strings->offsets[table.rows] <= strings->bytes.size();
    } else {
      std::visit([&](const auto& a) {
        if constexpr (!std::is_same_v<std::decay_t<decltype(a)>, StringArray>) {
          long_enough = a.size() >= table.rows;
        }
      }, column);
    }
    if (!long_enough) {
      return Status::Internal("parquet: column " + schema[c].name + " holds fewer than " +
                              std::to_string(table.rows) + " rows");
    }
  }
  return CheckDefined(schema, table);
}

// A column's values for one row group, copied into row-group order.
struct Gathered {
  std::vector<uint8_t> bools;
  std::vector<int32_t> int32s;
  std::vector<int64_t> int64s;
  std::vector<double> doubles;
  std::vector<uint32_t> offsets;
  std::string bytes;
};

template <typename T>
std::span<const T> GatherValues(std::span<const T> values, std::span<const uint32_t> rows,
                                std::vector<T>& out) {
  out.resize(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) out[i] = values[rows[i]];
  return out;
}

// column[rows] as a contiguous array backed by `out`. Why: rows given out of order (a Part of
// every ~50th row of a batch, a sort by (time, id) over a whole batch) cost a cache miss per value
// read in place, inside the dictionary's hash-and-probe loop and again in each later pass over the
// chunk; one tight copy loop overlaps those misses and every later pass reads memory in order.
// perf put 19% of a 50-Part encode in XXH3 (the dictionary's hash, the first to touch each value)
// against 2% for one file of the same rows. A contiguous run needs no copy: a lake flush reorders
// its batch so that every Part is one (partition::OrderByPartition), which costs less than this copy.
ColumnArray Gather(const ColumnArray& column, std::span<const uint32_t> rows, Gathered& out) {
  if (const auto* strings = std::get_if<StringArray>(&column)) {
    const uint32_t* offsets = strings->offsets.data();
    const char* bytes = strings->bytes.data();
    const size_t n = rows.size();
    // Two passes: the lengths, then the bytes.
    size_t total = 0;
    out.offsets.resize(n + 1);
    for (size_t i = 0; i < n; ++i) {
      out.offsets[i] = static_cast<uint32_t>(total);
      total += offsets[rows[i] + 1] - offsets[rows[i]];
    }
    out.offsets[n] = static_cast<uint32_t>(total);
    out.bytes.resize(total);
    char* to = out.bytes.data();
    for (size_t i = 0; i < n; ++i) {
      std::memcpy(to + out.offsets[i], bytes + offsets[rows[i]], out.offsets[i + 1] - out.offsets[i]);
    }
    return StringArray{out.offsets, out.bytes};
  }
  return std::visit([&](const auto& values) -> ColumnArray {
    using A = std::decay_t<decltype(values)>;
    if constexpr (std::is_same_v<A, StringArray>) return values;  // handled above
    else if constexpr (std::is_same_v<A, std::span<const uint8_t>>) return GatherValues(values, rows, out.bools);
    else if constexpr (std::is_same_v<A, std::span<const int32_t>>) return GatherValues(values, rows, out.int32s);
    else if constexpr (std::is_same_v<A, std::span<const int64_t>>) return GatherValues(values, rows, out.int64s);
    else return GatherValues(values, rows, out.doubles);
  }, column);
}

}  // namespace

struct PartWriter::Rep {
  Rep(const Schema& s, const WriterOptions& o, OutputStream& stream, WorkPool* p)
      : schema(s), options(o), out(stream), pool(p) {
    const size_t slots = pool == nullptr ? 1 : pool->threads();
    for (size_t i = 0; i < slots; ++i) pages.push_back(std::make_unique<PageWriter>(o.zstd_level));
    gathered.resize(slots);
  }

  Status Append(std::span<const uint8_t> bytes) {
    SINKD_RETURN_IF_ERROR(out.Append(bytes));
    offset += bytes.size();
    return Status::OK();
  }
  Status Start() {
    if (offset > 0) return Status::OK();
    return Append(kMagic);
  }
  Status WriteRowGroup(const TableView& table, std::span<const uint32_t> rows);
  Status WriteChunk(size_t c, EncodedChunk& chunk, RowGroup& group);
  // Touches only column c's writer and scratch, `pages` and `chunk`: chunks of different
  // columns may be encoded at once.
  Status EncodeChunk(const TableView& table, size_t c, const RowSelection& selection,
                     PageWriter& pages, EncodedChunk& chunk);
  Status WriteBloomFilters();
  Status WriteFooter(std::span<const KeyValue> metadata);

  struct PendingBloom {
    size_t row_group;
    size_t column;
    SplitBlockBloomFilter filter;
  };

  // Constant after construction.
  const Schema schema;
  const WriterOptions options;
  OutputStream& out;
  WorkPool* const pool;
  // Reused for every row group of the Part: a writer and a chunk per column, a PageWriter per
  // pool slot.
  std::vector<std::unique_ptr<ColumnWriter>> writers;
  std::vector<std::unique_ptr<PageWriter>> pages;
  std::vector<Gathered> gathered;   // per pool slot
  std::vector<uint32_t> identity;   // 0, 1, 2, …: the rows of a gathered chunk
  std::vector<EncodedChunk> chunks;
  // Per column, for an OPTIONAL one: the chunk's definition levels (one per row) and the rows
  // that hold a value.
  struct LevelScratch {
    std::vector<uint32_t> levels;
    std::vector<uint32_t> defined_rows;
  };
  std::vector<LevelScratch> level_scratch;
  // Grows with every row group; written by Finish.
  FileMetaData footer;
  std::vector<PendingBloom> blooms;
  uint64_t offset = 0;
  Status status;
  bool closed = false;  // Finish or Abandon was called
};

Status PartWriter::Rep::WriteRowGroup(const TableView& table, std::span<const uint32_t> rows) {
  if (footer.row_groups.size() >= kMaxRowGroups) {
    return Status::Refuse("parquet: more than 32767 row groups in one Part; raise row_group_rows");
  }
  RowSelection selection{rows, false};
  SINKD_RETURN_IF_ERROR(CheckRows(rows, table.rows, selection.contiguous));
  RowGroup group;
  group.num_rows = static_cast<int64_t>(rows.size());
  // The first page of the first chunk is where the row group starts: chunks begin with a page.
  group.file_offset = static_cast<int64_t>(offset);
  group.total_compressed_size = 0;
  group.ordinal = static_cast<int16_t>(footer.row_groups.size());
  group.columns.reserve(schema.size());
  // Encode every chunk (in parallel on the pool), then place them in schema order: which thread
  // encoded a chunk never shows in its bytes.
  std::vector<Status> encoded(schema.size());
  if (!selection.contiguous && identity.size() < rows.size()) {
    const size_t from = identity.size();
    identity.resize(rows.size());
    for (size_t i = from; i < identity.size(); ++i) identity[i] = static_cast<uint32_t>(i);
  }
  auto encode = [&](size_t c, size_t slot) {
    // An OPTIONAL chunk selects its defined rows itself (EncodeChunk) and is not gathered.
    if (selection.contiguous || schema[c].optional) {
      encoded[c] = EncodeChunk(table, c, selection, *pages[slot], chunks[c]);
      return;
    }
    const ColumnArray column = Gather(table.columns[c], rows, gathered[slot]);
    const RowSelection in_order{std::span(identity).first(rows.size()), true};
    encoded[c] = writers[c]->WriteChunk(column, in_order, *pages[slot], chunks[c]);
    // A refusal names a row: the table's, not the gathered copy's (the error path only).
    if (encoded[c].IsReject()) {
      encoded[c] = writers[c]->WriteChunk(table.columns[c], selection, *pages[slot], chunks[c]);
    }
  };
  WorkPool::ParallelFor(pool, schema.size(), encode);
  for (size_t c = 0; c < schema.size(); ++c) {
    const Status s = encoded[c].ok() ? WriteChunk(c, chunks[c], group) : encoded[c];
    if (!s.ok()) return s.WithContext("parquet: column " + schema[c].name);
  }
  footer.num_rows += group.num_rows;
  footer.row_groups.push_back(std::move(group));
  return Status::OK();
}

// A REQUIRED chunk goes to its column writer as it is. An OPTIONAL one gets its definition
// levels, and the writer sees only the rows that hold a value, so that the dictionary, the
// bounds and the Bloom filter never meet a NULL's placeholder; a chunk of NULLs only is one page
// of levels.
Status PartWriter::Rep::EncodeChunk(const TableView& table, size_t c,
                                    const RowSelection& selection, PageWriter& pages,
                                    EncodedChunk& chunk) {
  const Field& field = schema[c];
  std::vector<uint32_t>& levels = level_scratch[c].levels;
  std::vector<uint32_t>& defined_rows = level_scratch[c].defined_rows;
  if (!field.optional) return writers[c]->WriteChunk(table.columns[c], selection, pages, chunk);
  const std::span<const uint8_t> defined =
      table.defined.empty() ? std::span<const uint8_t>() : table.defined[c];
  levels.resize(selection.size());
  defined_rows.clear();
  bool contiguous = true;
  for (size_t i = 0; i < selection.size(); ++i) {
    const uint32_t row = selection.rows[i];
    const bool value = defined.empty() || defined[row] != 0;
    levels[i] = value;
    if (!value) continue;
    contiguous &= defined_rows.empty() || row == defined_rows.back() + 1;
    defined_rows.push_back(row);
  }
  const uint64_t nulls = selection.size() - defined_rows.size();
  pages.SetDefinitionLevels(levels);
  Status s;
  if (defined_rows.empty()) {
    chunk.Clear();
    s = pages.AddDataPage({}, 0, Encoding::kPlain, chunk);
    if (s.ok()) pages.Finish(chunk);
    // An empty filter, so that a probe excludes the chunk as it would without NULLs.
    if (field.bloom_filter) {
      chunk.bloom.emplace(SplitBlockBloomFilter::OptimalBytes(0, options.bloom_fpp));
    }
  } else {
    s = writers[c]->WriteChunk(table.columns[c], RowSelection{defined_rows, contiguous}, pages,
                               chunk);
  }
  // A failed chunk must not leave its levels to the next chunk this PageWriter encodes.
  if (!s.ok()) pages.SetDefinitionLevels({});
  chunk.statistics.null_count = static_cast<int64_t>(nulls);
  return s;
}

Status PartWriter::Rep::WriteChunk(size_t c, EncodedChunk& chunk, RowGroup& group) {
  const auto start = static_cast<int64_t>(offset);
  ColumnChunk cc;
  cc.file_offset = 0;
  ColumnMetaData& m = cc.meta_data;
  m.type = ParquetType(schema[c].physical);
  m.encodings = chunk.encodings;
  m.path_in_schema = {schema[c].name};
  m.codec = Codec::kZstd;
  m.num_values = chunk.num_values;
  m.total_uncompressed_size = chunk.total_uncompressed_size;
  m.total_compressed_size = static_cast<int64_t>(chunk.bytes.size());
  m.data_page_offset = start + chunk.data_page_offset;
  if (chunk.dictionary_page_offset) m.dictionary_page_offset = start + *chunk.dictionary_page_offset;
  m.statistics = chunk.statistics;
  m.encoding_stats = chunk.encoding_stats;
  group.total_byte_size += m.total_uncompressed_size;
  *group.total_compressed_size += m.total_compressed_size;
  group.columns.push_back(std::move(cc));
  if (chunk.bloom) {
    blooms.push_back(PendingBloom{footer.row_groups.size(), c, std::move(*chunk.bloom)});
  }
  return Append(chunk.bytes.span());
}

Status PartWriter::Rep::WriteBloomFilters() {
  ByteBuffer header;
  for (PendingBloom& b : blooms) {
    const std::span<const uint8_t> bitset = b.filter.bytes();
    header.Clear();
    SerializeBloomFilterHeader(BloomFilterHeader{static_cast<int32_t>(bitset.size())}, header);
    ColumnMetaData& m = footer.row_groups[b.row_group].columns[b.column].meta_data;
    m.bloom_filter_offset = static_cast<int64_t>(offset);
    m.bloom_filter_length = static_cast<int32_t>(header.size() + bitset.size());
    SINKD_RETURN_IF_ERROR(Append(header.span()));
    SINKD_RETURN_IF_ERROR(Append(bitset));
  }
  blooms.clear();
  return Status::OK();
}

Status PartWriter::Rep::WriteFooter(std::span<const KeyValue> metadata) {
  footer.version = 1;
  footer.schema = SchemaElements(schema);
  footer.created_by = options.created_by;
  footer.key_value_metadata.clear();
  for (const KeyValue& kv : metadata) footer.key_value_metadata.push_back({kv.first, kv.second});
  ByteBuffer bytes;
  SerializeFileMetaData(footer, bytes);
  const auto length = static_cast<uint32_t>(bytes.size());
  bytes.AppendU32(length);
  bytes.Append(kMagic, sizeof kMagic);
  return Append(bytes.span());
}

PartWriter::PartWriter(const Schema& schema, const WriterOptions& options, OutputStream& out,
                       WorkPool* pool)
    : rep_(std::make_unique<Rep>(schema, options, out, pool)) {
  rep_->status = ValidateSchema(schema);
  if (options.row_group_rows == 0 || options.page_rows == 0 || options.page_bytes == 0) {
    rep_->status = Status::Refuse("parquet: row_group_rows, page_rows and page_bytes must be > 0");
  }
  if (!rep_->status.ok()) return;
  // The writers borrow the Rep's copy of the options, which lives as long as they do.
  for (const Field& field : rep_->schema) {
    rep_->writers.push_back(MakeColumnWriter(field, rep_->options));
  }
  rep_->chunks.resize(rep_->schema.size());
  rep_->level_scratch.resize(rep_->schema.size());
}

PartWriter::~PartWriter() {
  assert((rep_->closed || !rep_->status.ok()) && "REQUIRES: Finish() or Abandon() before destruction");
}

Status PartWriter::WriteRows(const TableView& table, std::span<const uint32_t> rows) {
  Rep& r = *rep_;
  if (!r.status.ok()) return r.status;
  if (r.closed) return r.status = Status::Internal("parquet: WriteRows after Finish or Abandon");
  Status s = CheckTable(r.schema, table);
  if (s.ok()) s = r.Start();
  for (size_t start = 0; s.ok() && start < rows.size(); start += r.options.row_group_rows) {
    const size_t count = std::min(r.options.row_group_rows, rows.size() - start);
    s = r.WriteRowGroup(table, rows.subspan(start, count));
  }
  r.status = s;
  return s;
}

Status PartWriter::Finish(std::span<const KeyValue> metadata) {
  Rep& r = *rep_;
  if (!r.status.ok()) return r.status;
  if (r.closed) return r.status = Status::Internal("parquet: Finish after Finish or Abandon");
  r.closed = true;
  Status s = r.Start();
  if (s.ok()) s = r.WriteBloomFilters();
  if (s.ok()) s = r.WriteFooter(metadata);
  r.status = s;
  return s;
}

void PartWriter::Abandon() {
  rep_->closed = true;
  if (rep_->status.ok()) rep_->status = Status::Internal("parquet: the Part was abandoned");
}

uint64_t PartWriter::bytes_written() const { return rep_->offset; }
uint64_t PartWriter::rows_written() const {
  return static_cast<uint64_t>(rep_->footer.num_rows);
}
FileStatistics PartWriter::statistics() const {
  assert(rep_->closed && rep_->status.ok() && "REQUIRES: Finish() returned OK");
  return Summarize(rep_->footer);
}
const Status& PartWriter::status() const { return rep_->status; }

}  // namespace sinkd::parquet
