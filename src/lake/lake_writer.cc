#include "lake/lake_writer.h"

#include <algorithm>
#include <future>
#include <span>
#include <utility>

#include "partition/part_schema.h"
#include "partition/partitioner.h"
#include "table/footer.h"
#include "table/key.h"

namespace sinkd::lake {

namespace {

// Rows the writer can never encode stay a Reject and a bug stays Internal: retrying either cannot
// help, and the caller (the outbox dead-letters a Reject, the drain reports an Internal) must be
// able to tell. Any other failure is worth a redelivery.
Status RedeliverUnlessPermanent(const Status& s) {
  return s.IsReject() || s.IsInternal() ? s : s.As(Status::Redeliver);
}

}  // namespace

Status LakeWriterOptions::Validate() const {
  if (!table::SafeKeyPrefix(key_prefix)) {
    return Status::Refuse("key_prefix \"" + key_prefix +
                          "\": use '/'-separated segments of letters, digits, '-', '_' and '.'");
  }
  if (!table::SafeKeyToken(instance)) {
    return Status::Refuse("instance \"" + instance +
                          "\": use letters, digits, '-', '_' and '.' only");
  }
  if (parquet.zstd_level < 1 || parquet.zstd_level > 19) {
    return Status::Refuse("zstd_level " + std::to_string(parquet.zstd_level) +
                          ": must be between 1 and 19");
  }
  if (parquet.row_group_rows < 1 || parquet.row_group_rows > 10'000'000) {
    return Status::Refuse("row_group_rows " + std::to_string(parquet.row_group_rows) +
                          ": must be between 1 and 10000000");
  }
  if (encode_threads < 1 || encode_threads > kMaxEncodeThreads) {
    return Status::Refuse("encode_threads " + std::to_string(encode_threads) +
                          ": must be between 1 and " + std::to_string(kMaxEncodeThreads));
  }
  return Status::OK();
}

Result<PlacedObject> Place(Destination& destination,
                           const std::function<std::string(uint32_t alternative)>& key_for,
                           const std::function<Status(PartUpload&)>& write,
                           WhenTaken when_taken) {
  for (uint32_t alternative = 0; alternative <= kMaxAlternatives; ++alternative) {
    const std::string key = key_for(alternative);
    SINKD_ASSIGN_OR_RETURN(std::unique_ptr<PartUpload> upload, destination.Begin(key));
    Status s = write(*upload);
    if (!s.ok()) {
      upload->Abort();
      return RedeliverUnlessPermanent(s).WithContext("place " + key);
    }
    Result<Placed> placed = upload->Commit();
    if (!placed.ok()) return placed.status().As(Status::Redeliver);
    if (*placed != Placed::kTaken || when_taken == WhenTaken::kReport) {
      return PlacedObject{key, *placed};
    }
  }
  return Status::Redeliver("place " + key_for(0) + ": it and its " +
                           std::to_string(kMaxAlternatives) +
                           " alternatives all hold other bytes");
}

LakeWriter::LakeWriter(Destination& destination, LakeWriterOptions options,
                       table::Commit& commit)
    : destination_(destination),
      options_(std::move(options)),
      commit_(commit),
      pool_(std::make_unique<WorkPool>(
          std::clamp<size_t>(options_.encode_threads, 1, kMaxEncodeThreads))) {}

namespace {

// What every Part of one flush shares, worked out once before any is encoded (step 1).
struct FlushPlan {
  parquet::Schema schema;
  // Every Part's footer metadata; the last entry, the stamp, is filled per Part (PartMetadata).
  std::vector<parquet::KeyValue> metadata;
  table::PartKeyFields key_fields;           // all but the partition, number and alternative
  std::vector<partition::Partition> partitions;  // in Part order; the batch reordered to match
  FlushStamp stamp;                          // all but the Part's own fields
};

// Step 1: partitions the batch and reorders its rows into Part order (partition::OrderByPartition,
// on the pool), and fills what every Part's key and footer share.
FlushPlan PlanFlush(row::RowBuffer& batch, const Provenance& provenance,
                    const LakeWriterOptions& options, WorkPool& pool) {
  const row::ColumnTable& table = batch.table();
  FlushPlan plan;
  plan.schema = partition::FileSchema(table);
  plan.metadata = table::FooterHead(table, provenance.source);
  plan.metadata.emplace_back(table::kFirstSequenceKey, std::to_string(provenance.first_sequence));
  plan.metadata.emplace_back(table::kLastSequenceKey, std::to_string(provenance.last_sequence));
  plan.metadata.emplace_back(table::kStampsKey, "");  // per Part

  plan.key_fields.prefix = options.key_prefix;
  for (int c : partition::PartitionColumns(table)) {
    plan.key_fields.columns.emplace_back(table.columns[c].name);
  }
  plan.key_fields.instance = options.instance;
  plan.key_fields.first_sequence = provenance.first_sequence;
  plan.key_fields.last_sequence = provenance.last_sequence;

  plan.partitions = partition::PartitionRows(batch);
  // False leaves the batch as it was: a column past its offsets' limit, which the Part writer
  // refuses naming the column.
  partition::OrderByPartition(batch, plan.partitions, pool);

  FlushStamp& stamp = plan.stamp;
  stamp.instance = options.instance;
  stamp.source = provenance.source;
  stamp.scope = provenance.scope;
  stamp.first = provenance.first_sequence;
  stamp.last = provenance.last_sequence;
  stamp.first_txid = provenance.first_txid;
  stamp.last_txid = provenance.last_txid;
  stamp.acked = provenance.acknowledged;
  if (stamp.acked.empty()) stamp.acked.push_back({stamp.first, stamp.last});
  stamp.parts = plan.partitions.size();
  stamp.rows = batch.rows();
  return plan;
}

// Part n's footer metadata. Its stamp names the key as the flush means it (alternative 0), so the
// Part's bytes, stamp included, are the same wherever Place puts it and a redelivery still meets
// them as kSame. Called from the encode threads: everything it uses is its own copy.
std::vector<parquet::KeyValue> PartMetadata(const FlushPlan& plan, size_t n) {
  table::PartKeyFields fields = plan.key_fields;
  fields.date = plan.partitions[n].date;
  fields.values = plan.partitions[n].values;
  fields.number = n;
  fields.alternative = 0;
  FlushStamp stamp = plan.stamp;
  stamp.n = n;
  stamp.key = table::PartKey(fields);
  stamp.part_rows = plan.partitions[n].rows.size();
  std::vector<parquet::KeyValue> metadata = plan.metadata;
  metadata.back().second = StampsJson(stamp);
  return metadata;
}

// Step 2: encodes Part n into `out`, its column chunks on `pool`.
Status EncodePart(const FlushPlan& plan, const parquet::TableView& view,
                  const parquet::WriterOptions& options, WorkPool* pool, size_t n,
                  parquet::OutputStream& out, uint64_t& bytes,
                  parquet::FileStatistics& statistics) {
  parquet::PartWriter writer(plan.schema, options, out, pool);
  Status s = writer.WriteRows(view, plan.partitions[n].rows);
  if (s.ok()) s = writer.Finish(PartMetadata(plan, n));
  if (!s.ok()) writer.Abandon();
  if (s.ok()) statistics = writer.statistics();
  bytes = writer.bytes_written();
  return s;
}

// Step 2, for the Parts of at most one row group ("ahead" Parts): encoded on the pool into memory
// a window at a time, in placement order, so that what waits in memory is bounded by two windows
// of kAheadRows' worth of Parts (at least one per thread each), not the whole flush (200 small
// Parts of 250,000 rows: 27 MB held before). The next window encodes on the pool while the
// flushing thread places the one before it: placing is mostly waiting (an fsync, an upload), and
// with one window at a time the pool sat idle through every Part's placement. Each Part's bytes
// depend on its rows alone, so windows change no byte. A larger Part is not encoded here: it
// streams into its upload, row group by row group, so it never waits whole in memory.
// Threads: the flushing thread calls it; windows run on the pool (one on a helper thread).
class AheadEncoder {
 public:
  struct Encoded {
    bool ahead = false;
    Status status;
    std::string bytes;
    parquet::FileStatistics statistics;
  };

  AheadEncoder(const FlushPlan& plan, const parquet::TableView& view,
               const parquet::WriterOptions& options, WorkPool& pool)
      : plan_(plan), view_(view), options_(options), pool_(pool),
        encoded_(plan.partitions.size()) {
    for (size_t n = 0; n < plan.partitions.size(); ++n) {
      encoded_[n].ahead = plan.partitions[n].rows.size() <= options.row_group_rows;
      if (encoded_[n].ahead) ahead_.push_back(n);
    }
  }
  // The window being encoded on the helper thread reads the plan: it is waited for here.
  ~AheadEncoder() {
    if (encoding_.valid()) encoding_.wait();
  }

  // Part n, to be placed next (Parts are placed in order): for an ahead Part, encoded (waiting
  // for its window, and starting the next one).
  const Encoded& Next(size_t n) {
    if (!encoded_[n].ahead) return encoded_[n];
    if (placing_ == ready_) {
      if (encoding_.valid()) {
        encoding_.get();
      } else {
        const auto [begin, end] = NextWindow();
        EncodeWindow(begin, end);
      }
      ready_ = next_ahead_;
      if (next_ahead_ < ahead_.size()) {
        const auto [begin, end] = NextWindow();
        encoding_ = std::async(std::launch::async, [this, begin, end] { EncodeWindow(begin, end); });
      }
    }
    ++placing_;
    return encoded_[n];
  }

  // Part n is placed: its memory goes back before the next Part's. Not `= std::string()`:
  // libstdc++'s move-assignment from a string in its small buffer copies the characters and
  // keeps the capacity, so every Part's bytes stayed until the flush ended (27 MB for 200 small
  // Parts).
  void Placed(size_t n) { std::string().swap(encoded_[n].bytes); }

 private:
  // The next window: Parts of ahead_ from next_ahead_ on, at least one per thread and at least
  // kAheadRows rows, while there are any.
  std::pair<size_t, size_t> NextWindow() {
    constexpr size_t kAheadRows = 65'536;
    const size_t begin = next_ahead_;
    size_t rows = 0;
    while (next_ahead_ < ahead_.size() &&
           (next_ahead_ - begin < pool_.threads() || rows < kAheadRows)) {
      rows += plan_.partitions[ahead_[next_ahead_]].rows.size();
      ++next_ahead_;
    }
    return {begin, next_ahead_};
  }

  void EncodeWindow(size_t begin, size_t end) {
    pool_.ParallelFor(end - begin, [&](size_t i, size_t) {
      Encoded& e = encoded_[ahead_[begin + i]];
      parquet::MemoryOutputStream out;
      uint64_t bytes = 0;
      e.status = EncodePart(plan_, view_, options_, &pool_, ahead_[begin + i], out, bytes,
                            e.statistics);
      e.bytes = out.Release();
    });
  }

  const FlushPlan& plan_;
  const parquet::TableView& view_;
  const parquet::WriterOptions& options_;
  WorkPool& pool_;
  std::vector<Encoded> encoded_;
  std::vector<size_t> ahead_;  // the ahead Parts, in placement order
  size_t next_ahead_ = 0;      // first index into ahead_ not handed to an encode yet
  size_t ready_ = 0;           // ahead_[0, ready_) are encoded
  size_t placing_ = 0;         // index into ahead_ of the next ahead Part to place
  // Last: destroyed first (after the destructor's wait).
  std::future<void> encoding_;  // the window [ready_, next_ahead_), when valid
};

// Step 3: places Part n (lake::Place: never over another object), its bytes from `encoder` or,
// for a larger Part, streamed from its encode. Its key fields are a copy: the encode threads
// read the plan's (PartMetadata) while this thread places, and writing the plan's here raced
// them (TSan, PartReaderDifferential).
Result<PartReport> PlacePart(Destination& destination, const FlushPlan& plan,
                             const parquet::TableView& view, const LakeWriterOptions& options,
                             WorkPool& pool, AheadEncoder& encoder, size_t n, bool& placed_new) {
  const AheadEncoder::Encoded& e = encoder.Next(n);
  const partition::Partition& partition = plan.partitions[n];
  table::PartKeyFields key_fields = plan.key_fields;
  key_fields.date = partition.date;
  key_fields.values = partition.values;
  key_fields.number = n;
  uint64_t bytes = 0;
  parquet::FileStatistics statistics;
  Result<PlacedObject> placed = Place(
      destination,
      [&](uint32_t alternative) {
        key_fields.alternative = alternative;
        return table::PartKey(key_fields);
      },
      [&](PartUpload& upload) {
        if (!e.ahead) {
          return EncodePart(plan, view, options.parquet, &pool, n, upload, bytes, statistics);
        }
        if (!e.status.ok()) return e.status;
        bytes = e.bytes.size();
        statistics = e.statistics;
        return upload.Append(
            std::span(reinterpret_cast<const uint8_t*>(e.bytes.data()), e.bytes.size()));
      });
  if (!placed.ok()) return placed.status();
  placed_new = placed->placed == Placed::kNew;
  encoder.Placed(n);
  return PartReport{placed->key,         partition.rows.size(), bytes,
                    placed->placed == Placed::kSame, partition.date, partition.values,
                    std::move(statistics)};
}

}  // namespace

// The steps: plan (PlanFlush), encode (AheadEncoder and EncodePart) and place (PlacePart) each
// Part in order, sync the Destination, commit (the table's step), or, on any failure, take back
// what this flush placed (RemovePlaced).
Result<FlushReport> LakeWriter::Flush(row::RowBuffer& batch, const Provenance& provenance) {
  FlushReport report;
  if (batch.empty()) return report;

  const row::ColumnTable& table = batch.table();
  FlushPlan plan = PlanFlush(batch, provenance, options_, *pool_);
  const parquet::TableView view = partition::FileView(batch);

  // The Parts this flush placed itself: the only ones it may take back.
  std::vector<std::string> placed_here;
  auto fail = [&](const Status& s) {
    const std::string removed = RemovePlaced(placed_here);
    // The note on what was removed keeps the failure's kind (Reject, Internal, Redeliver).
    return removed.empty() ? s : s.WithContext(removed);
  };

  {
    AheadEncoder encoder(plan, view, options_.parquet, *pool_);
    for (size_t n = 0; n < plan.partitions.size(); ++n) {
      bool placed_new = false;
      Result<PartReport> part =
          PlacePart(destination_, plan, view, options_, *pool_, encoder, n, placed_new);
      if (!part.ok()) return fail(RedeliverUnlessPermanent(part.status()).WithContext("flush"));
      if (placed_new) placed_here.push_back(part->key);
      report.rows += part->rows;
      report.bytes += part->bytes;
      report.parts.push_back(std::move(part).value());
    }
  }
  // Step 4: every Part durable before anything records or acknowledges it.
  Status synced = destination_.Sync();
  if (!synced.ok()) return fail(synced.As(Status::Redeliver).WithContext("sync lake"));
  // Step 5: placed and durable, the table records them now, before anything is acknowledged. A
  // commit that fails takes back what this flush placed, as any failure does; never a Reject,
  // which an outbox sink would take for events no retry can store.
  Status committed = commit_.Apply(table::CommitRequest{options_.key_prefix, table, provenance,
                                                        report});
  if (!committed.ok()) {
    if (!committed.IsInternal()) committed = committed.As(Status::Redeliver);
    return fail(committed.WithContext("commit to table " + options_.key_prefix + " (" +
                                      std::string(commit_.format()) + ")"));
  }
  return report;
}

// Best effort: a Part left behind only costs duplicates, which readers remove; the flush fails
// either way. Returns what happened, for the error's context.
std::string LakeWriter::RemovePlaced(const std::vector<std::string>& keys) {
  if (keys.empty()) return "";
  size_t removed = 0;
  std::string first_error;
  for (const std::string& key : keys) {
    Status s = destination_.Delete(key);
    if (s.ok()) {
      ++removed;
    } else if (first_error.empty()) {
      first_error = s.message();
    }
  }
  Status synced = destination_.Sync();
  if (!synced.ok() && first_error.empty()) first_error = synced.message();
  std::string what = "removed " + std::to_string(removed) + " of the " +
                     std::to_string(keys.size()) + " Parts this flush had placed";
  if (!first_error.empty()) what += " (" + first_error + ")";
  return what;
}

}  // namespace sinkd::lake
