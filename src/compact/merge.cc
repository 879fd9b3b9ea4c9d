#include "compact/merge.h"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <future>
#include <memory>
#include <numeric>
#include <optional>
#include <utility>

#include "compact/id_set.h"
#include "lake/dir_destination.h"
#include "lake/lake_writer.h"
#include "parquet/part_reader.h"
#include "partition/part_schema.h"
#include "table/footer.h"
#include "table/key.h"

namespace sinkd::compact {

namespace {

using parquet::ColumnValues;
using parquet::PhysicalType;
using row::ColumnType;

PhysicalType PhysicalOf(ColumnType type) {
  switch (type) {
    case ColumnType::kString:
      return PhysicalType::kByteArray;
    case ColumnType::kInt32:
      return PhysicalType::kInt32;
    case ColumnType::kInt64:
    case ColumnType::kTimestamp:
      return PhysicalType::kInt64;
    case ColumnType::kDouble:
      return PhysicalType::kDouble;
    case ColumnType::kBool:
      return PhysicalType::kBoolean;
  }
  return PhysicalType::kByteArray;
}

bool AnnotationFits(ColumnType type, parquet::Annotation a) {
  switch (type) {
    case ColumnType::kString:
      return a == parquet::Annotation::kString;
    // TIMESTAMP(MICROS, isAdjustedToUTC=false) is what DuckDB writes for the Go sink's UTC
    // instants: the same microseconds, written back as UTC.
    case ColumnType::kTimestamp:
      return a == parquet::Annotation::kTimestampMicrosUtc ||
             a == parquet::Annotation::kTimestampMicrosNaive;
    default:
      return a == parquet::Annotation::kNone;
  }
}

// One input: its reader, how its columns map onto the table's, and the row it stands on.
struct Cursor {
  std::string key;
  std::unique_ptr<parquet::PartReader> reader;
  std::vector<int> file_columns;  // file column indices read, in table order of their columns
  std::vector<int> slot;          // table column → index into values, or -1 (not in the file)
  const std::vector<std::string>* partition_values = nullptr;  // by table column; "" otherwise
  std::vector<int> partition_index;  // table column → index into partition_values, or -1
  bool memory = false;               // read whole and sorted in memory
  // The row group read (or the whole file): shared with the output row group being built, which
  // holds every batch it takes rows from until it copies them out (Merger::Gather).
  std::shared_ptr<std::vector<ColumnValues>> batch;
  int source = -1;  // index of `batch` in Merger::sources_, or -1: none taken yet
  std::vector<uint32_t> string_bytes;  // by row of `batch`: its string bytes, every column
  std::vector<int> nullable_required;  // slots holding NULLs whose output column is REQUIRED
  size_t row_group = 0;                // next row group to load (streaming)
  size_t rows = 0;                     // rows in `batch`
  size_t pos = 0;                      // position among them
  std::vector<uint32_t> order;         // memory: the sorted permutation
  bool done = false;
  // Streaming: row group `row_group` is not loaded yet and head_time is its footer's minimum
  // time, a lower bound of its rows. It is loaded when that bound reaches the top of the heap, so
  // a merge holds only the row groups whose times overlap the merge's position, not one of every
  // input (Merger::Activate).
  bool pending = false;
  int64_t prev_time = 0;
  std::string prev_id;
  bool has_prev = false;
  // The current row's (time, id), kept for the heap's comparisons (valid until the next Load).
  int64_t head_time = 0;
  std::string_view head_id;
  // Pending, with row group `row_group` decoded already (Merger::DecodeAhead) and how that went:
  // taken as its batch when the cursor is activated.
  std::shared_ptr<std::vector<ColumnValues>> ahead;
  Status ahead_status;

  size_t Row() const { return memory ? order[pos] : pos; }
};

// A batch the output row group takes rows from, and a row taken (in output order).
struct Source {
  std::shared_ptr<const std::vector<ColumnValues>> batch;
  const Cursor* cursor = nullptr;  // its slots and partition values
};
struct Pick {
  uint32_t source = 0;
  uint32_t row = 0;
};

struct Cell {
  bool null = false;
  int64_t i = 0;
  uint64_t bits = 0;
  std::string_view s;
};

// A scratch Part's row groups hold at most this fraction of MergeSpec::max_rows_loaded
// (Merger::Stage says why): 15,360 rows at the default bound.
constexpr uint64_t kScratchRowGroupsPerBound = 16;

// When the merge reaches a pending input, the next row groups of up to this many pending inputs
// (the first to be reached) are decoded together, on the pool beside the merge's thread, holding
// at most a sixteenth of max_rows_loaded rows decoded ahead. A pass over a lake of small flush
// Parts reached them one by one, and the merge's thread decoded every one while the pool idled:
// decoding was 21% of a full-scale compact_bench pass, all on that thread.
constexpr size_t kDecodeTogether = 8;
constexpr uint64_t kAheadRowsPerBound = 16;

// A local temporary directory for the scratch Parts of a merge in steps, removed with it.
struct Scratch {
  std::filesystem::path dir;
  std::unique_ptr<lake::DirDestination> lake;
  ~Scratch() {
    std::error_code ec;
    if (!dir.empty()) std::filesystem::remove_all(dir, ec);
  }
};

Result<std::unique_ptr<Scratch>> MakeScratch() {
  std::error_code ec;
  const std::filesystem::path base = std::filesystem::temp_directory_path(ec);
  if (ec) return Status::Redeliver("merge scratch: no temporary directory: " + ec.message());
  std::string dir = (base / "sinkd-merge-XXXXXX").string();
  if (mkdtemp(dir.data()) == nullptr) {
    return Status::Redeliver("merge scratch: cannot create " + dir + ": " + std::strerror(errno));
  }
  auto scratch = std::make_unique<Scratch>();
  scratch->dir = dir;
  SINKD_ASSIGN_OR_RETURN(scratch->lake, lake::DirDestination::Make(dir));
  SINKD_RETURN_IF_ERROR(scratch->lake->Ensure());
  return scratch;
}

class Merger {
 public:
  // `read_from`: where each of spec.inputs is read (empty: all from `destination`); `scratch`:
  // the scratch Parts' destination of the merge this one is a step of, whose reads are not the
  // store's (bytes_read).
  Merger(lake::Destination& destination, const MergeSpec& spec,
         std::vector<lake::Destination*> read_from = {}, lake::Destination* scratch = nullptr)
      : destination_(destination),
        spec_(spec),
        table_(*spec.table),
        copy_column_(row::CopyColumn(*spec.table)),
        reads_(spec.inputs),
        from_(std::move(read_from)),
        scratch_(scratch) {
    for (size_t c = 0, p = 0; c < table_.columns.size(); ++c) {
      partition_index_.push_back(table_.columns[c].partition ? static_cast<int>(p++) : -1);
    }
    if (from_.empty()) from_.assign(reads_.size(), &destination_);
  }

  Result<MergeOutcome> Run(const std::function<void(const OutputReport&)>& on_output);

 private:
  // What placing one output came to.
  enum class Placement {
    kPlaced,   // in place, written by us or found there byte for byte: *report says which
    kTaken,    // another compactor's output of the same inputs holds the key: it stands for ours
    kResort,   // an input turned out unsorted before anything was placed: start over, sorting it
    kStopped,  // the merge ends here, with the outcome a step decided or with *failed
  };

  // The steps of Run, in order. A step that ends the merge sets outcome_.kind (left alone,
  // refused, an input vanished) or returns an error; Stopped turns either into Run's answer.
  Status OpenInputs();
  uint64_t ShapeOutput();  // the output schema and the input counts; returns the input bytes
  Status CountOutputs(uint64_t input_bytes, uint64_t* outputs);
  Placement PlaceOutput(uint64_t index, uint64_t outputs, const std::string& hash,
                        bool may_resort, OutputReport* report, Status* failed);
  // True when a step's answer ends the merge: an error, or an outcome it decided.
  bool Ends(const Status& s) const {
    return !s.ok() || outcome_.kind != MergeOutcome::Kind::kMerged;
  }
  Result<MergeOutcome> Stopped(const Status& failed);

  // Opens input `i`; a Refuse or NotFound becomes the outcome.
  Status Open(size_t i);
  Status CheckShape(Cursor& cursor);
  Status Load(Cursor& cursor);  // the next row group, or the whole file (memory)
  // Streaming: skips empty row groups; then marks the next one pending when its footer bounds
  // its times (lazy_), else loads it. Drops the batch read so far (sources_ may still hold it).
  Status NextRowGroup(Cursor& cursor);
  // A pending cursor reached the top of the heap: its row group loaded, its first row checked
  // against the bound and against the cursor's previous row.
  Status Activate(Cursor& cursor);
  // Loads `first`'s pending row group, decoding those of the next pending cursors with it on the
  // pool (kDecodeTogether); each is read here, on the merge's thread (a Destination is one
  // thread's), and decoded there. Without a pool of two threads, or for a large row group: Load.
  Status DecodeAhead(Cursor& first);
  // Installs the row group DecodeAhead decoded for `cursor` as Load would have loaded it.
  Status TakeAhead(Cursor& cursor);
  // The order check of a streaming cursor's new head against its previous row.
  Status CheckOrder(Cursor& cursor);
  Status Advance(Cursor& cursor);
  Status PrePass();
  // The most rows the merge of `members` (indices into cursors_) would hold decoded at once.
  uint64_t PeakRows(const std::vector<size_t>& members) const;
  // Merges groups of the inputs into scratch Parts until the rest fits max_rows_loaded.
  Status Stage();
  Status Start();  // every cursor on its first row, the heap built
  Status WriteOutput(lake::PartUpload& upload, uint64_t index, uint64_t* bytes,
                     parquet::FileStatistics* statistics);
  // Hands the output row group to `writer` on another thread (the merge fills the next one
  // meanwhile); returns the previous hand-over's status.
  Status FlushRowGroup(parquet::PartWriter& writer);
  Status EncodeRowGroup(parquet::PartWriter& writer);  // encoding_ into writer
  Status WaitEncode();                                 // the hand-over in flight, if any
  void ClearOutput();
  // False (nothing taken) when a NULL would reach a REQUIRED output column.
  bool TakeRow(Cursor& cursor, size_t row, int* null_column);
  void Gather();                // picks_ copied column by column into encoding_
  void Loaded(Cursor& cursor);  // a new batch: its row sizes and the columns to check for NULLs
  void Drop(Cursor& cursor);    // the cursor lets go of its batch (sources_ may still hold it)
  void NoteHeld();              // the peaks in MergeOutcome
  void SetHead(Cursor& cursor) const;
  bool HeapGreater(int a, int b) const;

  Cell CellOf(const Cursor& cursor, size_t row, int column) const;
  int CompareRows(const Cursor& a, size_t ra, const Cursor& b, size_t rb) const;
  Status Fail(const Cursor& cursor, const Status& s);

  lake::Destination& destination_;
  const MergeSpec& spec_;
  const row::ColumnTable& table_;
  const int copy_column_;  // rows equal in it are copies: one is kept (row::CopyColumn)
  // What the cursors read: spec_.inputs, or after Stage the scratch Parts (and inputs no group
  // took); spec_.inputs alone name the outputs and fill their footers.
  std::vector<InputRef> reads_;
  std::vector<lake::Destination*> from_;  // where each of reads_ is
  lake::Destination* scratch_ = nullptr;
  std::unique_ptr<Scratch> own_scratch_;
  std::vector<int> partition_index_;
  std::vector<Cursor> cursors_;
  std::vector<int> heap_;
  IdSet seen_;
  parquet::Schema schema_;
  // The output row group being built is a list of rows taken from input batches, copied out
  // column by column when it is full (a run of one input's rows is one copy per column, where
  // copying row by row cost 40 cells' dispatch per row).
  std::vector<Source> sources_;
  std::vector<Pick> picks_;
  // The row group being encoded while the next one is picked: the merge is serial, and encoding
  // the previous row group beside it (its chunks on the pool) is what puts a second core to
  // work. One buffer: the next row group is copied into it once its encode is done, so only
  // one decoded copy of an output row group is in memory.
  std::vector<ColumnValues> encoding_;
  size_t encoding_rows_ = 0;
  std::future<Status> encode_;
  uint64_t out_string_bytes_ = 0;  // string bytes of picks_, every column
  std::vector<uint32_t> iota_;
  uint64_t rows_per_output_ = UINT64_MAX;
  uint64_t emitted_ = 0, dropped_ = 0;
  std::vector<std::string> stamps_;
  MergeOutcome outcome_;
  bool unsorted_found_ = false;  // a streaming input turned out unsorted: restart
  // Row groups are loaded lazily from their footers' minimum times; off (everything loaded as
  // soon as reached) after a footer's bound turned out above a row it holds.
  bool lazy_ = true;
  uint64_t loaded_rows_ = 0;    // rows of the cursors' batches (MergeOutcome::peak_rows_loaded)
  uint64_t stale_rows_ = 0;     // rows of batches only sources_ still holds
  uint64_t encoding_held_ = 0;  // rows of encoding_ while its encode runs
  uint64_t ahead_rows_ = 0;     // rows decoded ahead for pending cursors (Cursor::ahead)
};

Status Merger::Fail(const Cursor& cursor, const Status& s) {
  if (s.ok()) return s;
  if (s.IsNotFound()) {
    outcome_.kind = MergeOutcome::Kind::kVanished;
    outcome_.input = cursor.key;
  } else if (s.IsRefuse() || s.IsReject()) {
    outcome_.kind = MergeOutcome::Kind::kRefused;
    outcome_.input = cursor.key;
    outcome_.why = s.As(Status::Refuse);
  }
  return s;
}

Status Merger::Open(size_t i) {
  Cursor& cursor = cursors_[i];
  const InputRef& input = reads_[i];
  cursor.key = input.key;
  lake::Destination* from = from_[i];
  const bool store = from != scratch_;
  parquet::ReadAt read = [this, from, store, key = input.key](uint64_t offset, uint64_t length) {
    Result<std::string> bytes = from->Read(key, offset, length);
    if (bytes.ok() && store) outcome_.bytes_read += bytes->size();
    return bytes;
  };
  auto reader = parquet::PartReader::Open(std::move(read), input.size, input.key);
  if (!reader.ok()) return Fail(cursor, reader.status());
  cursor.reader = std::move(*reader);
  return Fail(cursor, CheckShape(cursor));
}

Status Merger::CheckShape(Cursor& cursor) {
  const parquet::FileFooter& footer = cursor.reader->footer();
  cursor.slot.assign(table_.columns.size(), -1);
  std::vector<int> file_of(table_.columns.size(), -1);
  for (size_t f = 0; f < footer.columns.size(); ++f) {
    const parquet::ColumnInfo& info = footer.columns[f];
    const int c = row::ColumnIndex(table_, info.name);
    if (c < 0) {
      return Status::Refuse(cursor.key + ": column " + info.name + " is not a column of " +
                            std::string(table_.name) + ": merging would lose it");
    }
    if (file_of[c] >= 0) return Status::Refuse(cursor.key + ": column " + info.name + " twice");
    const row::ColumnSpec& spec = table_.columns[c];
    if (info.physical != PhysicalOf(spec.type) || !AnnotationFits(spec.type, info.annotation)) {
      return Status::Refuse(cursor.key + ": column " + info.name + " is not " +
                            std::string(row::ColumnTypeName(spec.type)) + " as in " +
                            std::string(table_.name));
    }
    file_of[c] = static_cast<int>(f);
  }
  for (int c : {table_.time_column, table_.id_column, copy_column_}) {
    if (file_of[c] < 0) {
      return Status::Refuse(cursor.key + ": no " + std::string(table_.columns[c].name) +
                            " column: its rows cannot be ordered or deduplicated");
    }
    for (const parquet::RowGroupInfo& rg : footer.row_groups) {
      if (rg.columns[file_of[c]].null_count > 0) {
        return Status::Refuse(cursor.key + ": column " + std::string(table_.columns[c].name) +
                              " holds NULLs");
      }
    }
  }
  for (size_t c = 0; c < table_.columns.size(); ++c) {
    if (file_of[c] < 0 && table_.columns[c].partition && !spec_.values_exact) {
      return Status::Refuse(cursor.key + ": no " + std::string(table_.columns[c].name) +
                            " column, and the key's segment is shortened: the exact value is "
                            "unknown");
    }
    if (file_of[c] >= 0) {
      cursor.slot[c] = static_cast<int>(cursor.file_columns.size());
      cursor.file_columns.push_back(file_of[c]);
    }
  }
  cursor.partition_values = &spec_.partition_values;
  cursor.partition_index = partition_index_;
  // sinkd writes every Part sorted by (time, id); anything else is sorted here (and a sinkd Part
  // found out of order is, too: Advance notices).
  cursor.memory = footer.created_by.rfind("sinkd", 0) != 0;
  if (auto stamps = footer.Find(table::kStampsKey)) {
    Status s = AppendStamps(*stamps, stamps_);
    if (!s.ok()) return s.WithContext(cursor.key);
  }
  return Status::OK();
}

Cell Merger::CellOf(const Cursor& cursor, size_t row, int column) const {
  Cell cell;
  const int slot = cursor.slot[column];
  if (slot < 0) {
    const int p = partition_index_[column];
    if (p < 0) {
      cell.null = true;
    } else {
      cell.s = (*cursor.partition_values)[p];
    }
    return cell;
  }
  const ColumnValues& v = (*cursor.batch)[slot];
  if (!v.defined.empty() && v.defined[row] == 0) {
    cell.null = true;
    return cell;
  }
  switch (v.physical) {
    case PhysicalType::kBoolean:
      cell.i = v.bools[row];
      break;
    case PhysicalType::kInt32:
      cell.i = v.int32s[row];
      break;
    case PhysicalType::kInt64:
      cell.i = v.int64s[row];
      break;
    case PhysicalType::kDouble:
      cell.bits = std::bit_cast<uint64_t>(v.doubles[row]);
      break;
    case PhysicalType::kByteArray:
      cell.s =
          std::string_view(v.bytes).substr(v.offsets[row], v.offsets[row + 1] - v.offsets[row]);
      break;
  }
  return cell;
}

int Compare(const Cell& a, const Cell& b) {
  if (a.null != b.null) return a.null ? -1 : 1;
  if (a.i != b.i) return a.i < b.i ? -1 : 1;
  if (a.bits != b.bits) return a.bits < b.bits ? -1 : 1;
  const int s = a.s.compare(b.s);
  return s < 0 ? -1 : s > 0 ? 1 : 0;
}

// (time, id), then every other column in table order: a total order on rows, so the row kept for
// an id and the output's order depend on the rows alone.
int Merger::CompareRows(const Cursor& a, size_t ra, const Cursor& b, size_t rb) const {
  int r = Compare(CellOf(a, ra, table_.time_column), CellOf(b, rb, table_.time_column));
  if (r != 0) return r;
  r = Compare(CellOf(a, ra, table_.id_column), CellOf(b, rb, table_.id_column));
  if (r != 0) return r;
  for (size_t c = 0; c < table_.columns.size(); ++c) {
    const int col = static_cast<int>(c);
    if (col == table_.time_column || col == table_.id_column) continue;
    r = Compare(CellOf(a, ra, col), CellOf(b, rb, col));
    if (r != 0) return r;
  }
  return 0;
}

void AppendValues(ColumnValues& to, ColumnValues&& from, size_t to_rows) {
  const size_t n = from.size();
  if (!from.defined.empty() || !to.defined.empty()) {
    if (to.defined.empty()) to.defined.assign(to_rows, 1);
    if (from.defined.empty()) {
      to.defined.insert(to.defined.end(), n, 1);
    } else {
      to.defined.insert(to.defined.end(), from.defined.begin(), from.defined.end());
    }
  }
  switch (from.physical) {
    case PhysicalType::kBoolean:
      to.bools.insert(to.bools.end(), from.bools.begin(), from.bools.end());
      break;
    case PhysicalType::kInt32:
      to.int32s.insert(to.int32s.end(), from.int32s.begin(), from.int32s.end());
      break;
    case PhysicalType::kInt64:
      to.int64s.insert(to.int64s.end(), from.int64s.begin(), from.int64s.end());
      break;
    case PhysicalType::kDouble:
      to.doubles.insert(to.doubles.end(), from.doubles.begin(), from.doubles.end());
      break;
    case PhysicalType::kByteArray: {
      const uint32_t base = static_cast<uint32_t>(to.bytes.size());
      to.bytes += from.bytes;
      for (size_t i = 1; i < from.offsets.size(); ++i) to.offsets.push_back(base + from.offsets[i]);
      break;
    }
  }
}

Status Merger::Load(Cursor& cursor) {
  const parquet::FileFooter& footer = cursor.reader->footer();
  // A batch the output row group took rows from stays in sources_ until it is gathered.
  Drop(cursor);
  cursor.batch = std::make_shared<std::vector<ColumnValues>>();
  cursor.pos = 0;
  std::vector<ColumnValues>& held = *cursor.batch;
  if (!cursor.memory) {
    while (cursor.row_group < footer.row_groups.size() &&
           footer.row_groups[cursor.row_group].rows == 0) {
      ++cursor.row_group;
    }
    if (cursor.row_group >= footer.row_groups.size()) {
      cursor.done = true;
      return Status::OK();
    }
    Status read = cursor.reader->ReadRowGroup(cursor.row_group++, cursor.file_columns, held);
    if (!read.ok()) return Fail(cursor, read);
    cursor.rows = footer.row_groups[cursor.row_group - 1].rows;
    Loaded(cursor);
    return Status::OK();
  }
  if (cursor.row_group > 0) {
    cursor.done = true;
    return Status::OK();
  }
  // The whole file as one run: every row group appended, then a sorted permutation.
  for (; cursor.row_group < footer.row_groups.size(); ++cursor.row_group) {
    auto values = cursor.reader->ReadRowGroup(cursor.row_group, cursor.file_columns);
    if (!values.ok()) return Fail(cursor, values.status());
    for (size_t s = 0; s < values->size(); ++s) {
      // Checked before appending: past 2^32 the offsets would wrap and other rows' bytes would
      // become values.
      const uint64_t before = held.empty() ? 0 : held[s].bytes.size();
      if (before + (*values)[s].bytes.size() > spec_.whole_read_string_bytes) {
        const std::string& name = cursor.reader->footer().columns[cursor.file_columns[s]].name;
        return Fail(
            cursor,
            Status::Refuse(
                cursor.key + ": column " + name + " of partition " + spec_.partition +
                " holds more than " + std::to_string(spec_.whole_read_string_bytes) +
                " bytes of strings, more than a Part read whole to be sorted can address; left "
                "in place"));
      }
    }
    if (held.empty()) {
      held = std::move(*values);
    } else {
      for (size_t s = 0; s < values->size(); ++s) {
        AppendValues(held[s], std::move((*values)[s]), cursor.rows);
      }
    }
    cursor.rows += footer.row_groups[cursor.row_group].rows;
  }
  cursor.row_group = std::max<size_t>(cursor.row_group, 1);
  if (cursor.rows == 0) {
    cursor.done = true;
    return Status::OK();
  }
  Loaded(cursor);
  cursor.order.resize(cursor.rows);
  std::iota(cursor.order.begin(), cursor.order.end(), 0u);
  std::stable_sort(cursor.order.begin(), cursor.order.end(),
                   [&](uint32_t a, uint32_t b) { return CompareRows(cursor, a, cursor, b) < 0; });
  return Status::OK();
}

namespace {

std::optional<int64_t> PlainInt64(const std::optional<std::string>& bound) {
  if (!bound || bound->size() != sizeof(int64_t)) return std::nullopt;
  uint64_t t = 0;  // little-endian, as PLAIN is
  for (int i = 7; i >= 0; --i) t = (t << 8) | static_cast<uint8_t>((*bound)[i]);
  return static_cast<int64_t>(t);
}

// The minimum time of `rg` from its footer statistics (the PLAIN int64 bound), if it has one.
std::optional<int64_t> MinTime(const parquet::RowGroupInfo& rg, int file_column) {
  return PlainInt64(rg.columns[file_column].min);
}

std::optional<int64_t> MaxTime(const parquet::RowGroupInfo& rg, int file_column) {
  return PlainInt64(rg.columns[file_column].max);
}

}  // namespace

Status Merger::NextRowGroup(Cursor& cursor) {
  const parquet::FileFooter& footer = cursor.reader->footer();
  while (cursor.row_group < footer.row_groups.size() &&
         footer.row_groups[cursor.row_group].rows == 0) {
    ++cursor.row_group;
  }
  if (!lazy_ || cursor.row_group >= footer.row_groups.size()) return Load(cursor);
  const int time_file_column = cursor.file_columns[cursor.slot[table_.time_column]];
  const std::optional<int64_t> bound =
      MinTime(footer.row_groups[cursor.row_group], time_file_column);
  if (!bound) return Load(cursor);
  Drop(cursor);
  cursor.batch.reset();
  cursor.pos = 0;
  cursor.pending = true;
  cursor.head_time = *bound;
  cursor.head_id = {};
  return Status::OK();
}

Status Merger::DecodeAhead(Cursor& first) {
  WorkPool* pool = spec_.pool;
  const auto next_rows = [](const Cursor& c) {
    const parquet::FileFooter& footer = c.reader->footer();
    return c.row_group < footer.row_groups.size() ? footer.row_groups[c.row_group].rows
                                                  : uint64_t{0};
  };
  const uint64_t bound = spec_.max_rows_loaded > 0 ? spec_.max_rows_loaded : kMaxRowsLoaded;
  const uint64_t limit = bound / kAheadRowsPerBound;
  uint64_t rows = next_rows(first);
  if (pool == nullptr || pool->threads() < 2 || first.memory || rows == 0 ||
      ahead_rows_ + rows > limit) {
    return Load(first);
  }
  // The pending cursors the merge reaches first: the least footer bounds.
  std::vector<Cursor*> pending;
  for (Cursor& c : cursors_) {
    if (&c != &first && c.pending && !c.ahead && !c.memory && next_rows(c) > 0) {
      pending.push_back(&c);
    }
  }
  const size_t wanted = std::min(pending.size(), kDecodeTogether - 1);
  std::partial_sort(pending.begin(), pending.begin() + static_cast<ptrdiff_t>(wanted),
                    pending.end(), [](const Cursor* a, const Cursor* b) {
                      return a->head_time != b->head_time ? a->head_time < b->head_time : a < b;
                    });
  std::vector<Cursor*> group = {&first};
  for (size_t i = 0; i < wanted; ++i) {
    const uint64_t more = next_rows(*pending[i]);
    if (ahead_rows_ + rows + more > limit) break;
    group.push_back(pending[i]);
    rows += more;
  }
  if (group.size() == 1) return Load(first);
  std::vector<Status> status(group.size());
  std::vector<std::shared_ptr<std::vector<ColumnValues>>> batches(group.size());
  for (size_t i = 0; i < group.size(); ++i) {
    batches[i] = std::make_shared<std::vector<ColumnValues>>();
    status[i] = group[i]->reader->FetchRowGroup(group[i]->row_group, group[i]->file_columns);
  }
  pool->ParallelFor(group.size(), [&](size_t i, size_t) {
    if (status[i].ok()) status[i] = group[i]->reader->DecodeFetched(*batches[i]);
  });
  for (size_t i = 0; i < group.size(); ++i) {
    group[i]->ahead = std::move(batches[i]);
    group[i]->ahead_status = std::move(status[i]);
  }
  ahead_rows_ += rows;
  outcome_.decoded_ahead += group.size() - 1;
  NoteHeld();
  return TakeAhead(first);
}

Status Merger::TakeAhead(Cursor& cursor) {
  const parquet::FileFooter& footer = cursor.reader->footer();
  Drop(cursor);
  const size_t row_group = cursor.row_group++;
  const uint64_t rows = footer.row_groups[row_group].rows;
  ahead_rows_ -= rows;
  cursor.batch = std::move(cursor.ahead);
  cursor.ahead.reset();
  cursor.pos = 0;
  const Status decoded = std::exchange(cursor.ahead_status, Status::OK());
  if (!decoded.ok()) return Fail(cursor, decoded);
  cursor.rows = rows;
  Loaded(cursor);
  return Status::OK();
}

Status Merger::Activate(Cursor& cursor) {
  const int64_t bound = cursor.head_time;
  cursor.pending = false;
  SINKD_RETURN_IF_ERROR(cursor.ahead ? TakeAhead(cursor) : DecodeAhead(cursor));
  if (cursor.done) return Status::OK();
  SetHead(cursor);
  if (cursor.head_time < bound) {
    // The footer's minimum is above a row it holds: rows of other inputs could have gone out
    // ahead of it. Once more without trusting footers (Run restarts).
    lazy_ = false;
    unsorted_found_ = true;
    return Status::Retry(cursor.key + ": row group " + std::to_string(cursor.row_group - 1) +
                         "'s minimum time in the footer is above a time it holds");
  }
  return CheckOrder(cursor);
}

Status Merger::Advance(Cursor& cursor) {
  if (++cursor.pos >= cursor.rows) {
    SINKD_RETURN_IF_ERROR(cursor.memory ? Load(cursor) : NextRowGroup(cursor));
    if (cursor.pending) return Status::OK();
  }
  if (cursor.done) return Status::OK();
  SetHead(cursor);
  if (cursor.memory) return Status::OK();
  return CheckOrder(cursor);
}

Status Merger::CheckOrder(Cursor& cursor) {
  const size_t row = cursor.Row();
  const Cell time = CellOf(cursor, row, table_.time_column);
  const Cell id = CellOf(cursor, row, table_.id_column);
  if (cursor.has_prev &&
      (time.i < cursor.prev_time || (time.i == cursor.prev_time && id.s < cursor.prev_id))) {
    unsorted_found_ = true;
    cursor.memory = true;
    return Status::Retry(cursor.key + ": not sorted by (time, id)");
  }
  cursor.has_prev = true;
  cursor.prev_time = time.i;
  cursor.prev_id.assign(id.s);
  return Status::OK();
}

// Split merges only: the distinct copy keys over every input (the merge's rows_out), and whether
// each streamed input really is in order, reading only the time, id and copy columns.
Status Merger::PrePass() {
  for (Cursor& cursor : cursors_) {
    const parquet::FileFooter& footer = cursor.reader->footer();
    const int columns[3] = {cursor.file_columns[cursor.slot[table_.time_column]],
                            cursor.file_columns[cursor.slot[table_.id_column]],
                            cursor.file_columns[cursor.slot[copy_column_]]};
    const size_t read = copy_column_ == table_.id_column ? 2 : 3;
    bool has_prev = false;
    int64_t prev_time = 0;
    std::string prev_id;
    for (size_t rg = 0; rg < footer.row_groups.size(); ++rg) {
      auto values = cursor.reader->ReadRowGroup(rg, std::span<const int>(columns, read));
      if (!values.ok()) return Fail(cursor, values.status());
      const ColumnValues& times = (*values)[0];
      const ColumnValues& ids = (*values)[1];
      const ColumnValues& copies = (*values)[read - 1];
      // A split merge cannot restart once an output is placed: a footer bound above a row is
      // found here, before anything is written.
      const std::optional<int64_t> bound = MinTime(footer.row_groups[rg], columns[0]);
      for (size_t r = 0; bound && r < times.int64s.size(); ++r) {
        if (times.int64s[r] < *bound) lazy_ = false;
      }
      for (size_t r = 0; r < ids.size(); ++r) {
        const std::string_view id =
            std::string_view(ids.bytes).substr(ids.offsets[r], ids.offsets[r + 1] - ids.offsets[r]);
        seen_.Insert(std::string_view(copies.bytes)
                         .substr(copies.offsets[r], copies.offsets[r + 1] - copies.offsets[r]));
        if (cursor.memory) continue;
        const int64_t t = times.int64s[r];
        if (has_prev && (t < prev_time || (t == prev_time && id < prev_id))) cursor.memory = true;
        has_prev = true;
        prev_time = t;
        prev_id.assign(id);
      }
    }
  }
  return Status::OK();
}

// A sweep over the row groups' time ranges from the footers, as the lazy read holds them: a
// streamed row group from its minimum time (or, without one, from its predecessor's end) to its
// maximum, a Part read whole from the start to the end. Both ends count (a row group is read
// before the rows of its minimum time go out, and dropped after its last row), except between
// one input's successive row groups, of which a cursor holds one at a time.
uint64_t Merger::PeakRows(const std::vector<size_t>& members) const {
  struct Event {
    int64_t time;
    int order;  // at one time: a cursor's hand-over to its next row group, loads, then drops
    int64_t rows;
  };
  std::vector<Event> events;
  for (const size_t i : members) {
    const Cursor& cursor = cursors_[i];
    const parquet::FileFooter& footer = cursor.reader->footer();
    if (cursor.memory) {
      events.push_back({INT64_MIN, 1, static_cast<int64_t>(footer.rows)});
      events.push_back({INT64_MAX, 2, -static_cast<int64_t>(footer.rows)});
      continue;
    }
    const int column = cursor.file_columns[cursor.slot[table_.time_column]];
    bool holding = false;
    int64_t held_until = INT64_MIN, held_rows = 0;
    for (const parquet::RowGroupInfo& rg : footer.row_groups) {
      if (rg.rows == 0) continue;
      const int64_t lo = MinTime(rg, column).value_or(held_until);
      const int64_t hi = std::max(lo, MaxTime(rg, column).value_or(INT64_MAX));
      if (holding) events.push_back({held_until, held_until == lo ? 0 : 2, -held_rows});
      events.push_back({lo, 1, static_cast<int64_t>(rg.rows)});
      holding = true;
      held_until = hi;
      held_rows = static_cast<int64_t>(rg.rows);
    }
    if (holding) events.push_back({held_until, 2, -held_rows});
  }
  std::sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    return a.time != b.time ? a.time < b.time : a.order < b.order;
  });
  int64_t rows = 0, peak = 0;
  for (const Event& e : events) {
    rows += e.rows;
    peak = std::max(peak, rows);
  }
  return static_cast<uint64_t>(peak);
}

// Why steps through scratch Parts, not a page-by-page read of the inputs: the merge's output
// depends only on the set of rows (sorted by a total order on their values, the least row of
// each record kept), so merging groups first and then their outputs gives the same rows in the
// same order, and the final step, which alone writes into the lake with the real inputs' names,
// counts, stamps and output shape, writes the same bytes as one step would. Each step holds at
// most max_rows_loaded rows (the scratch Parts' row groups are cut to share it), whatever the
// overlap, at the cost of writing and reading the rows once more per step, locally (ZSTD level
// 1: the scratch bytes are read once). A page-by-page read would keep one pass but needs pages
// aligned across 40 columns, which the writer does not promise. Only the overlapping case pays:
// a merge whose inputs fit the bound (flushes succeeding each other in time) has one step.
Status Merger::Stage() {
  const uint64_t budget = spec_.max_rows_loaded;
  for (;;) {
    if (budget == 0 || cursors_.size() < 2) return Status::OK();
    std::vector<size_t> all(cursors_.size());
    std::iota(all.begin(), all.end(), size_t{0});
    if (PeakRows(all) <= budget) return Status::OK();
    // Greedy in key order, so the same inputs always give the same groups.
    std::vector<std::vector<size_t>> groups{{}};
    for (const size_t i : all) {
      groups.back().push_back(i);
      if (groups.back().size() > 1 && PeakRows(groups.back()) > budget) {
        groups.back().pop_back();
        groups.push_back({i});
      }
    }
    // Every input alone is over the bound: its row groups are the smallest unit read.
    if (std::none_of(groups.begin(), groups.end(), [](const auto& g) { return g.size() > 1; })) {
      return Status::OK();
    }
    if (scratch_ == nullptr) {
      SINKD_ASSIGN_OR_RETURN(own_scratch_, MakeScratch());
      scratch_ = own_scratch_->lake.get();
    }
    // The next step reads one row group of each group's output at once: they share the bound.
    // And they are a small fraction of it (kScratchRowGroupsPerBound), since the bound counts
    // only the row groups the cursors stand on: a step also holds, until its output row group is
    // gathered, the row groups that output took rows from after its cursors moved on, and the
    // output row group being encoded. With the inputs' full row groups, a step over two tier-1
    // outputs held twice its bound that way plus a 122,880-row output row group (issue 28:
    // 568 MiB); with small scratch row groups, the step writing one holds a small output row
    // group, and the step reading them holds little more than its own output's rows.
    const uint64_t row_group_rows = std::clamp<uint64_t>(
        std::min<uint64_t>(budget / groups.size(), budget / kScratchRowGroupsPerBound), 1,
        std::max<uint64_t>(spec_.parquet.row_group_rows, 1));
    std::vector<InputRef> reads;
    std::vector<lake::Destination*> from;
    for (const std::vector<size_t>& group : groups) {
      if (group.size() == 1) {
        reads.push_back(reads_[group[0]]);
        from.push_back(from_[group[0]]);
        continue;
      }
      MergeSpec step = spec_;
      step.inputs.clear();
      std::vector<lake::Destination*> step_from;
      for (const size_t i : group) {
        step.inputs.push_back(reads_[i]);
        step_from.push_back(from_[i]);
      }
      step.target_bytes = UINT64_MAX;  // one output
      step.parquet.row_group_rows = row_group_rows;
      step.parquet.zstd_level = 1;
      Merger merger(*scratch_, step, std::move(step_from), scratch_);
      Result<MergeOutcome> merged = merger.Run(nullptr);
      if (!merged.ok()) return merged.status();
      outcome_.bytes_read += merged->bytes_read;
      outcome_.peak_rows_loaded = std::max(outcome_.peak_rows_loaded, merged->peak_rows_loaded);
      outcome_.peak_rows_held = std::max(outcome_.peak_rows_held, merged->peak_rows_held);
      outcome_.steps += 1 + merged->steps;
      if (merged->kind != MergeOutcome::Kind::kMerged) {  // an input refused or gone
        outcome_.kind = merged->kind;
        outcome_.input = merged->input;
        outcome_.why = merged->why;
        return Status::Refuse(merged->input);
      }
      for (const OutputReport& output : merged->outputs) {
        reads.push_back(InputRef{output.key, output.bytes, ""});
        from.push_back(scratch_);
      }
    }
    reads_ = std::move(reads);
    from_ = std::move(from);
    cursors_.clear();
    cursors_.resize(reads_.size());
    std::vector<std::string> stamps = std::move(stamps_);  // the inputs', which the steps carry
    stamps_.clear();
    for (size_t i = 0; i < cursors_.size(); ++i) {
      SINKD_RETURN_IF_ERROR(Open(i));
      if (from_[i] == scratch_) cursors_[i].memory = false;  // written sorted, here
    }
    stamps_ = std::move(stamps);
  }
}

Status Merger::Start() {
  heap_.clear();
  ClearOutput();  // a restart drops what the abandoned attempt had buffered
  loaded_rows_ = 0;
  ahead_rows_ = 0;
  for (Cursor& cursor : cursors_) {
    cursor.rows = 0;
    cursor.ahead.reset();  // decoded for an abandoned attempt
    cursor.ahead_status = Status::OK();
  }
  for (size_t i = 0; i < cursors_.size(); ++i) {
    Cursor& cursor = cursors_[i];
    cursor.row_group = 0;
    cursor.done = false;
    cursor.pending = false;
    cursor.has_prev = false;
    SINKD_RETURN_IF_ERROR(cursor.memory ? Load(cursor) : NextRowGroup(cursor));
    if (cursor.done) continue;
    if (cursor.pending) {
      heap_.push_back(static_cast<int>(i));
      continue;
    }
    SetHead(cursor);
    if (!cursor.memory) {
      const size_t row = cursor.Row();
      cursor.has_prev = true;
      cursor.prev_time = CellOf(cursor, row, table_.time_column).i;
      cursor.prev_id.assign(CellOf(cursor, row, table_.id_column).s);
    }
    heap_.push_back(static_cast<int>(i));
  }
  std::make_heap(heap_.begin(), heap_.end(), [this](int a, int b) { return HeapGreater(a, b); });
  return Status::OK();
}

void Merger::SetHead(Cursor& cursor) const {
  const size_t row = cursor.Row();
  cursor.head_time = CellOf(cursor, row, table_.time_column).i;
  cursor.head_id = CellOf(cursor, row, table_.id_column).s;
}

bool Merger::HeapGreater(int a, int b) const {
  const Cursor& x = cursors_[a];
  const Cursor& y = cursors_[b];
  if (x.head_time != y.head_time) return x.head_time > y.head_time;
  // A pending cursor's bound comes before every row of its time: it is loaded before any row
  // that its rows could precede goes out.
  if (x.pending != y.pending) return y.pending;
  if (x.pending) return a > b;
  const int id = x.head_id.compare(y.head_id);
  if (id != 0) return id > 0;
  return CompareRows(x, x.Row(), y, y.Row()) > 0;
}

void Merger::Drop(Cursor& cursor) {
  // An output row group taking rows from the batch holds it in sources_ until it is gathered.
  if (cursor.source >= 0) stale_rows_ += cursor.rows;
  loaded_rows_ -= cursor.rows;
  cursor.source = -1;
  cursor.rows = 0;
}

void Merger::NoteHeld() {
  outcome_.peak_rows_loaded = std::max<uint64_t>(outcome_.peak_rows_loaded, loaded_rows_);
  outcome_.peak_rows_held =
      std::max<uint64_t>(outcome_.peak_rows_held,
                         loaded_rows_ + stale_rows_ + encoding_held_ + ahead_rows_);
}

void Merger::Loaded(Cursor& cursor) {
  loaded_rows_ += cursor.rows;
  NoteHeld();
  const std::vector<ColumnValues>& batch = *cursor.batch;
  cursor.string_bytes.assign(cursor.rows, 0);
  cursor.nullable_required.clear();
  for (size_t c = 0; c < table_.columns.size(); ++c) {
    const int slot = cursor.slot[c];
    if (slot < 0) {
      const int p = partition_index_[c];
      if (p >= 0 && schema_[c].physical == PhysicalType::kByteArray) {
        const uint32_t size = static_cast<uint32_t>((*cursor.partition_values)[p].size());
        for (uint32_t& bytes : cursor.string_bytes) bytes += size;
      }
      continue;
    }
    const ColumnValues& v = batch[slot];
    if (!schema_[c].optional && !v.defined.empty()) cursor.nullable_required.push_back(slot);
    if (v.physical != PhysicalType::kByteArray) continue;
    for (size_t r = 0; r < cursor.rows; ++r) {
      cursor.string_bytes[r] += v.offsets[r + 1] - v.offsets[r];
    }
  }
}

bool Merger::TakeRow(Cursor& cursor, size_t row, int* null_column) {
  // Checked before the row is taken, so a refusal leaves the row group whole.
  for (const int slot : cursor.nullable_required) {
    if ((*cursor.batch)[slot].defined[row] == 0) {
      for (size_t c = 0; c < table_.columns.size(); ++c) {
        if (cursor.slot[c] == slot) *null_column = static_cast<int>(c);
      }
      return false;
    }
  }
  if (cursor.source < 0) {
    cursor.source = static_cast<int>(sources_.size());
    sources_.push_back(Source{cursor.batch, &cursor});
  }
  picks_.push_back(Pick{static_cast<uint32_t>(cursor.source), static_cast<uint32_t>(row)});
  out_string_bytes_ += cursor.string_bytes[row];
  return true;
}

namespace {

// Appends `n` rows of `from` from row `begin`; offsets are rebased onto `to`'s bytes (uint32
// arithmetic wraps back into range: the result is below 2^31, merge.h).
void AppendRange(ColumnValues& to, const ColumnValues& from, size_t begin, size_t n) {
  switch (from.physical) {
    case PhysicalType::kBoolean:
      to.bools.insert(to.bools.end(), from.bools.begin() + begin, from.bools.begin() + begin + n);
      break;
    case PhysicalType::kInt32:
      to.int32s.insert(to.int32s.end(), from.int32s.begin() + begin,
                       from.int32s.begin() + begin + n);
      break;
    case PhysicalType::kInt64:
      to.int64s.insert(to.int64s.end(), from.int64s.begin() + begin,
                       from.int64s.begin() + begin + n);
      break;
    case PhysicalType::kDouble:
      to.doubles.insert(to.doubles.end(), from.doubles.begin() + begin,
                        from.doubles.begin() + begin + n);
      break;
    case PhysicalType::kByteArray: {
      const uint32_t first = from.offsets[begin];
      const uint32_t delta = static_cast<uint32_t>(to.bytes.size()) - first;
      to.bytes.append(from.bytes, first, from.offsets[begin + n] - first);
      for (size_t i = begin + 1; i <= begin + n; ++i) to.offsets.push_back(from.offsets[i] + delta);
      break;
    }
  }
}

// Appends `n` copies of one value: a NULL's placeholder (0, false, '') or a partition's value.
void AppendRepeated(ColumnValues& to, std::string_view value, size_t n) {
  switch (to.physical) {
    case PhysicalType::kBoolean:
      to.bools.insert(to.bools.end(), n, 0);
      break;
    case PhysicalType::kInt32:
      to.int32s.insert(to.int32s.end(), n, 0);
      break;
    case PhysicalType::kInt64:
      to.int64s.insert(to.int64s.end(), n, 0);
      break;
    case PhysicalType::kDouble:
      to.doubles.insert(to.doubles.end(), n, 0.0);
      break;
    case PhysicalType::kByteArray:
      for (size_t i = 0; i < n; ++i) {
        to.bytes.append(value);
        to.offsets.push_back(static_cast<uint32_t>(to.bytes.size()));
      }
      break;
  }
}

}  // namespace

void Merger::Gather() {
  struct Run {
    uint32_t source, begin, n;
  };
  std::vector<Run> runs;
  for (const Pick& p : picks_) {
    if (!runs.empty() && runs.back().source == p.source &&
        runs.back().begin + runs.back().n == p.row) {
      ++runs.back().n;
    } else {
      runs.push_back(Run{p.source, p.row, 1});
    }
  }
  for (size_t c = 0; c < encoding_.size(); ++c) {
    ColumnValues& v = encoding_[c];
    v.bools.clear();
    v.int32s.clear();
    v.int64s.clear();
    v.doubles.clear();
    v.bytes.clear();
    v.offsets.assign(1, 0);
    v.defined.clear();
    const bool optional = schema_[c].optional;
    for (const Run& run : runs) {
      const Source& source = sources_[run.source];
      const int slot = source.cursor->slot[c];
      if (slot < 0) {
        const int p = partition_index_[c];
        if (optional) v.defined.insert(v.defined.end(), run.n, p < 0 ? 0 : 1);
        AppendRepeated(v,
                       p < 0 || v.physical != PhysicalType::kByteArray
                           ? std::string_view()
                           : std::string_view((*source.cursor->partition_values)[p]),
                       run.n);
        continue;
      }
      const ColumnValues& from = (*source.batch)[slot];
      if (optional) {
        if (from.defined.empty()) {
          v.defined.insert(v.defined.end(), run.n, 1);
        } else {
          v.defined.insert(v.defined.end(), from.defined.begin() + run.begin,
                           from.defined.begin() + run.begin + run.n);
        }
      }
      AppendRange(v, from, run.begin, run.n);
    }
  }
  encoding_rows_ = picks_.size();
}

void Merger::ClearOutput() {
  for (Cursor& cursor : cursors_) cursor.source = -1;
  sources_.clear();  // batches no cursor still reads are freed here
  stale_rows_ = 0;
  picks_.clear();
  out_string_bytes_ = 0;
}

Status Merger::WaitEncode() {
  if (!encode_.valid()) return Status::OK();
  Status s = encode_.get();
  encoding_held_ = 0;
  return s;
}

Status Merger::FlushRowGroup(parquet::PartWriter& writer) {
  if (picks_.empty()) return Status::OK();
  // encoding_ is free once the previous row group is encoded.
  SINKD_RETURN_IF_ERROR(WaitEncode());
  if (iota_.size() < picks_.size()) {
    iota_.resize(picks_.size());
    std::iota(iota_.begin(), iota_.end(), 0u);
  }
  Gather();
  encoding_held_ = encoding_rows_;
  NoteHeld();
  ClearOutput();
  encode_ = std::async(std::launch::async, [this, &writer] { return EncodeRowGroup(writer); });
  return Status::OK();
}

Status Merger::EncodeRowGroup(parquet::PartWriter& writer) {
  parquet::TableView view;
  view.rows = encoding_rows_;
  bool any_optional = false;
  for (size_t c = 0; c < encoding_.size(); ++c) {
    const ColumnValues& v = encoding_[c];
    switch (v.physical) {
      case PhysicalType::kBoolean:
        view.columns.emplace_back(std::span<const uint8_t>(v.bools));
        break;
      case PhysicalType::kInt32:
        view.columns.emplace_back(std::span<const int32_t>(v.int32s));
        break;
      case PhysicalType::kInt64:
        view.columns.emplace_back(std::span<const int64_t>(v.int64s));
        break;
      case PhysicalType::kDouble:
        view.columns.emplace_back(std::span<const double>(v.doubles));
        break;
      case PhysicalType::kByteArray:
        view.columns.emplace_back(
            parquet::StringArray{std::span<const uint32_t>(v.offsets), std::string_view(v.bytes)});
        break;
    }
    any_optional = any_optional || schema_[c].optional;
  }
  if (any_optional) {
    for (const ColumnValues& v : encoding_) view.defined.emplace_back(v.defined);
  }
  return writer.WriteRows(view, std::span<const uint32_t>(iota_).first(encoding_rows_));
}

Status Merger::WriteOutput(lake::PartUpload& upload, uint64_t index, uint64_t* bytes,
                           parquet::FileStatistics* statistics) {
  parquet::PartWriter writer(schema_, spec_.parquet, upload, spec_.pool);
  uint64_t rows = 0;
  Status s;
  while (s.ok() && rows < rows_per_output_ && !heap_.empty()) {
    auto greater = [this](int a, int b) { return HeapGreater(a, b); };
    std::pop_heap(heap_.begin(), heap_.end(), greater);
    const int top = heap_.back();
    heap_.pop_back();
    Cursor& cursor = cursors_[top];
    if (cursor.pending) {
      s = Activate(cursor);
      if (!s.ok()) break;
      if (!cursor.done) {
        heap_.push_back(top);
        std::push_heap(heap_.begin(), heap_.end(), greater);
      }
      continue;
    }
    const size_t row = cursor.Row();
    const std::string_view copy_key =
        copy_column_ == table_.id_column ? cursor.head_id : CellOf(cursor, row, copy_column_).s;
    if (seen_.Insert(copy_key)) {
      // A NULL reaching a REQUIRED output column means a footer's statistics counted no NULL
      // where there was one: refuse the Part rather than write a placeholder as a value.
      int null_column = -1;
      if (!TakeRow(cursor, row, &null_column)) {
        s = Fail(cursor, Status::Refuse(cursor.key + ": column " + schema_[null_column].name +
                                        " holds a NULL its statistics do not count"));
        break;
      }
      ++rows;
      // A row group of long strings closes early: its offsets stay far from wrapping (merge.h).
      if (picks_.size() >= spec_.parquet.row_group_rows ||
          out_string_bytes_ >= spec_.row_group_string_bytes) {
        s = FlushRowGroup(writer);
      }
    } else {
      ++dropped_;
    }
    if (!s.ok()) break;
    s = Advance(cursor);
    if (!s.ok()) break;
    if (!cursor.done) {
      heap_.push_back(top);
      std::push_heap(heap_.begin(), heap_.end(), greater);
    }
  }
  if (s.ok()) s = FlushRowGroup(writer);
  // Never return with a row group still going into `writer`, which dies with this frame.
  const Status encoded = WaitEncode();
  if (s.ok()) s = encoded;
  emitted_ += rows;
  if (s.ok()) {
    MergeCounts counts = outcome_.counts;
    if (rows_per_output_ == UINT64_MAX) {  // the only output: the counts are complete now
      counts.rows_out = emitted_;
      counts.duplicates_dropped = counts.rows_in - counts.rows_out;
    }
    s = writer.Finish(OutputMetadata(table_, spec_.inputs, stamps_, counts, index));
  }
  if (s.ok()) *statistics = writer.statistics();  // what a table commit records for the output
  if (!s.ok()) writer.Abandon();
  *bytes = writer.bytes_written();
  return s;
}

Result<MergeOutcome> Merger::Stopped(const Status& failed) {
  if (outcome_.kind != MergeOutcome::Kind::kMerged) return std::move(outcome_);
  return failed.As(Status::Redeliver);
}

Status Merger::OpenInputs() {
  cursors_.resize(spec_.inputs.size());
  for (size_t i = 0; i < cursors_.size(); ++i) {
    Status s = Open(i);
    if (Ends(s)) return s;
  }
  SortUnique(stamps_);
  return Status::OK();
}

// The output's shape: the table's, a column OPTIONAL where some input cannot give every row a
// value (it lacks the column, or holds NULLs in it).
uint64_t Merger::ShapeOutput() {
  schema_ = partition::FileSchema(table_);
  uint64_t input_bytes = 0;
  for (size_t i = 0; i < cursors_.size(); ++i) {
    const parquet::FileFooter& footer = cursors_[i].reader->footer();
    outcome_.counts.rows_in += footer.rows;
    input_bytes += spec_.inputs[i].size;
    for (size_t c = 0; c < table_.columns.size(); ++c) {
      const int slot = cursors_[i].slot[c];
      if (slot < 0) {
        if (!table_.columns[c].partition) schema_[c].optional = true;
        continue;
      }
      const int f = cursors_[i].file_columns[slot];
      for (const parquet::RowGroupInfo& rg : footer.row_groups) {
        if (rg.columns[f].null_count > 0) schema_[c].optional = true;
      }
    }
  }
  outcome_.counts.inputs = cursors_.size();
  encoding_.assign(table_.columns.size(), ColumnValues{});
  for (size_t c = 0; c < table_.columns.size(); ++c) encoding_[c].physical = schema_[c].physical;
  return input_bytes;
}

// How many outputs of about spec_.target_bytes the merge writes, and the rows each takes. Only
// inputs larger than one output, or a lone Part, need the pre-pass that counts the rows out; a
// lone sinkd Part gains nothing from a rewrite unless it holds copies or is out of order, and
// the pre-pass finds out from three columns before anything is written (kLeftAlone).
Status Merger::CountOutputs(uint64_t input_bytes, uint64_t* outputs) {
  *outputs = 1;
  const bool lone = cursors_.size() == 1 && !cursors_[0].memory;
  if (lone || input_bytes > spec_.target_bytes) {
    Status s = PrePass();
    if (Ends(s)) return s;
    const uint64_t rows_out = seen_.size();
    seen_.Clear();
    // The pre-pass sorts an unsorted one in memory: that one is rewritten in order.
    if (lone && !cursors_[0].memory && rows_out == outcome_.counts.rows_in) {
      outcome_.kind = MergeOutcome::Kind::kLeftAlone;
      outcome_.input = cursors_[0].key;
      return Status::OK();
    }
    const double estimate = rows_out == 0 || outcome_.counts.rows_in == 0
                                ? 0.0
                                : static_cast<double>(input_bytes) * rows_out /
                                      static_cast<double>(outcome_.counts.rows_in);
    uint64_t n = std::max<uint64_t>(1, std::llround(estimate / spec_.target_bytes));
    n = std::min<uint64_t>(n, std::max<uint64_t>(rows_out, 1));
    if (n > 1) {
      rows_per_output_ = (rows_out + n - 1) / n;
      *outputs = (rows_out + rows_per_output_ - 1) / rows_per_output_;
    }
    outcome_.counts.rows_out = rows_out;
    outcome_.counts.duplicates_dropped = outcome_.counts.rows_in - rows_out;
  }
  if (*outputs == 1) rows_per_output_ = UINT64_MAX;
  outcome_.counts.outputs = *outputs;
  return Status::OK();
}

// Output `index` of `outputs` goes under one key, never an alternative: whoever wrote that key
// merged the same inputs into the same share of the same rows, so a key taken by other bytes
// (another compactor's encoder, another ZSTD build) holds an output that stands for ours, and
// the rows this one would have held are skipped past by the next output's writer all the same.
Merger::Placement Merger::PlaceOutput(uint64_t index, uint64_t outputs, const std::string& hash,
                                      bool may_resort, OutputReport* report, Status* failed) {
  const std::string key = table::CompactionOutputKey(spec_.partition, hash, index, outputs);
  uint64_t bytes = 0;
  parquet::FileStatistics statistics;
  Status written;
  Result<lake::PlacedObject> placed = lake::Place(
      destination_, [&](uint32_t) { return key; },
      [&](lake::PartUpload& upload) {
        written = WriteOutput(upload, index, &bytes, &statistics);
        return written;
      },
      lake::WhenTaken::kReport);
  if (placed.ok()) {
    if (placed->placed == lake::Placed::kTaken) return Placement::kTaken;
    report->key = placed->key;
    report->rows_in = outcome_.counts.rows_in;
    report->rows_out = outputs == 1 ? emitted_ : outcome_.counts.rows_out;
    report->duplicates_dropped = report->rows_in - report->rows_out;
    report->bytes = bytes;
    for (const InputRef& in : spec_.inputs) report->supersedes.push_back(in.key);
    report->found_in_place = placed->placed == lake::Placed::kSame;
    report->statistics = std::move(statistics);
    return Placement::kPlaced;
  }
  if (unsorted_found_ && may_resort && index == 0) return Placement::kResort;
  if (outcome_.kind == MergeOutcome::Kind::kMerged && written.IsReject()) {
    // Rows no Parquet reader could take: the merge is refused, its inputs left as they are.
    outcome_.kind = MergeOutcome::Kind::kRefused;
    outcome_.input = spec_.inputs.front().key;
    outcome_.why = written.As(Status::Refuse).WithContext("merge into " + key);
  }
  *failed = placed.status();
  return Placement::kStopped;
}

Result<MergeOutcome> Merger::Run(const std::function<void(const OutputReport&)>& on_output) {
  Status s = OpenInputs();
  if (Ends(s)) return Stopped(s);
  const uint64_t input_bytes = ShapeOutput();
  // Footers hold little; rows are decoded from here on.
  const RowBudget::Lease lease =
      spec_.budget ? spec_.budget->Acquire(outcome_.counts.rows_in) : RowBudget::Lease();
  // The bound on what the inputs' overlap holds decoded, before anything else is read (the
  // pre-pass then reads the scratch Parts).
  if (cursors_.size() > 1) {
    s = Stage();
    if (Ends(s)) return Stopped(s);
  }
  uint64_t outputs = 1;
  s = CountOutputs(input_bytes, &outputs);
  if (Ends(s)) return Stopped(s);
  const std::string hash = MergeHash(spec_.inputs);

  // Each attempt after the first sorts in memory one more input that turned out unsorted.
  for (size_t attempt = 0;; ++attempt) {
    unsorted_found_ = false;
    seen_.Clear();
    emitted_ = dropped_ = 0;
    s = Start();
    if (Ends(s)) return Stopped(s);
    std::vector<OutputReport> reports;
    bool resort = false;
    for (uint64_t index = 0; index < outputs && !resort; ++index) {
      OutputReport report;
      Status failed;
      switch (PlaceOutput(index, outputs, hash, attempt < cursors_.size(), &report, &failed)) {
        case Placement::kPlaced:
          if (!report.found_in_place) outcome_.bytes_written += report.bytes;
          if (on_output) on_output(report);
          reports.push_back(std::move(report));
          break;
        case Placement::kTaken:
          ++outcome_.taken;
          break;
        case Placement::kResort:
          resort = true;
          break;
        case Placement::kStopped:
          outcome_.outputs = std::move(reports);
          return Stopped(failed);
      }
    }
    if (resort) continue;
    if (outputs == 1) {
      outcome_.counts.rows_out = emitted_;
      outcome_.counts.duplicates_dropped = outcome_.counts.rows_in - emitted_;
    }
    outcome_.outputs = std::move(reports);
    return std::move(outcome_);
  }
}

}  // namespace

Result<MergeOutcome> Merge(lake::Destination& destination, const MergeSpec& spec,
                           const std::function<void(const OutputReport&)>& on_output) {
  Merger merger(destination, spec);
  return merger.Run(on_output);
}

}  // namespace sinkd::compact
