#include "lake/lake_writer.h"

#include <algorithm>
#include <future>
#include <span>

#include "batch/part_schema.h"
#include "batch/partitioner.h"
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
                           const std::function<Status(PartUpload&)>& write) {
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
    if (*placed != Placed::kTaken) return PlacedObject{key, *placed};
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

Result<FlushReport> LakeWriter::Flush(row::RowBatch& batch, const Provenance& provenance) {
  FlushReport report;
  if (batch.empty()) return report;

  const row::ColumnTable& table = batch.table();
  const parquet::Schema schema = batch::FileSchema(table);
  std::vector<parquet::KeyValue> metadata = table::FooterHead(table, provenance.source);
  metadata.emplace_back(table::kFirstSequenceKey, std::to_string(provenance.first_sequence));
  metadata.emplace_back(table::kLastSequenceKey, std::to_string(provenance.last_sequence));
  metadata.emplace_back(table::kStampsKey, "");  // per Part, below

  table::PartKeyFields key_fields;
  key_fields.prefix = options_.key_prefix;
  for (int c : batch::PartitionColumns(table)) {
    key_fields.columns.emplace_back(table.columns[c].name);
  }
  key_fields.instance = options_.instance;
  key_fields.first_sequence = provenance.first_sequence;
  key_fields.last_sequence = provenance.last_sequence;

  // The Parts this flush placed itself: the only ones it may take back.
  std::vector<std::string> placed_here;
  auto fail = [&](const Status& s) {
    const std::string removed = RemovePlaced(placed_here);
    // The note on what was removed keeps the failure's kind (Reject, Internal, Redeliver).
    return removed.empty() ? s : s.WithContext(removed);
  };

  std::vector<batch::Partition> partitions = batch::PartitionRows(batch);
  // False leaves the batch as it was: a column past its offsets' limit, which the Part writer
  // refuses below naming the column.
  batch::OrderByPartition(batch, partitions, *pool_);
  const parquet::TableView view = batch::FileView(batch);
  FlushStamp flush_stamp;
  flush_stamp.instance = options_.instance;
  flush_stamp.source = provenance.source;
  flush_stamp.scope = provenance.scope;
  flush_stamp.first = provenance.first_sequence;
  flush_stamp.last = provenance.last_sequence;
  flush_stamp.first_txid = provenance.first_txid;
  flush_stamp.last_txid = provenance.last_txid;
  flush_stamp.acked = provenance.acknowledged;
  if (flush_stamp.acked.empty()) flush_stamp.acked.push_back({flush_stamp.first, flush_stamp.last});
  flush_stamp.parts = partitions.size();
  flush_stamp.rows = batch.rows();
  // Part n's footer metadata. Its stamp names the key as the flush means it (alternative 0), so
  // the Part's bytes, stamp included, are the same wherever Place puts it and a redelivery still
  // meets them as kSame. Called from the encode threads: everything it uses is its own copy.
  auto metadata_for = [&](size_t n) {
    table::PartKeyFields fields = key_fields;
    fields.date = partitions[n].date;
    fields.values = partitions[n].values;
    fields.number = n;
    fields.alternative = 0;
    FlushStamp stamp = flush_stamp;
    stamp.n = n;
    stamp.key = table::PartKey(fields);
    stamp.part_rows = partitions[n].rows.size();
    std::vector<parquet::KeyValue> part_metadata = metadata;
    part_metadata.back().second = StampsJson(stamp);
    return part_metadata;
  };

  // A Part of one row group is encoded ahead, on the pool, into memory; a larger one streams
  // into its upload below, row group by row group, so it never waits whole in memory.
  struct Encoded {
    bool ahead = false;
    Status status;
    std::string bytes;
    parquet::FileStatistics statistics;
  };
  std::vector<Encoded> encoded(partitions.size());
  std::vector<size_t> ahead;
  for (size_t n = 0; n < partitions.size(); ++n) {
    encoded[n].ahead = partitions[n].rows.size() <= options_.parquet.row_group_rows;
    if (encoded[n].ahead) ahead.push_back(n);
  }
  auto encode = [&](size_t n, parquet::OutputStream& out, uint64_t& bytes,
                    parquet::FileStatistics& statistics) {
    parquet::PartWriter writer(schema, options_.parquet, out, pool_.get());
    Status s = writer.WriteRows(view, partitions[n].rows);
    if (s.ok()) s = writer.Finish(metadata_for(n));
    if (!s.ok()) writer.Abandon();
    if (s.ok()) statistics = writer.statistics();
    bytes = writer.bytes_written();
    return s;
  };
  // Ahead Parts are encoded a window at a time, in placement order: what waits in memory is
  // bounded by two windows of kAheadRows' worth of Parts (at least one per thread each), not the
  // whole flush (200 small Parts of 250,000 rows: 27 MB held before). The next window encodes on
  // the pool while this thread places the one before it: placing is mostly waiting (an fsync, an
  // upload), and with one window at a time the pool sat idle through every Part's placement.
  // Each Part's bytes depend on its rows alone, so windows change no byte.
  constexpr size_t kAheadRows = 65'536;
  size_t next_ahead = 0;  // first index into `ahead` not handed to an encode yet
  auto next_window = [&] {
    const size_t begin = next_ahead;
    size_t rows = 0;
    while (next_ahead < ahead.size() &&
           (next_ahead - begin < pool_->threads() || rows < kAheadRows)) {
      rows += partitions[ahead[next_ahead]].rows.size();
      ++next_ahead;
    }
    return std::make_pair(begin, next_ahead);
  };
  auto encode_window = [&](size_t begin, size_t end) {
    pool_->ParallelFor(end - begin, [&](size_t i, size_t) {
      Encoded& e = encoded[ahead[begin + i]];
      parquet::MemoryOutputStream out;
      uint64_t bytes = 0;
      e.status = encode(ahead[begin + i], out, bytes, e.statistics);
      e.bytes = out.Release();
    });
  };
  size_t ready = 0;    // ahead[0, ready) are encoded
  size_t placing = 0;  // index into `ahead` of the next ahead Part to place
  // Declared after everything the window reads: an early return waits for it here first.
  std::future<void> encoding;  // the window [ready, next_ahead), when valid

  for (size_t n = 0; n < partitions.size(); ++n) {
    if (encoded[n].ahead) {
      if (placing == ready) {
        if (encoding.valid()) {
          encoding.get();
        } else {
          const auto [begin, end] = next_window();
          encode_window(begin, end);
        }
        ready = next_ahead;
        if (next_ahead < ahead.size()) {
          const auto [begin, end] = next_window();
          encoding = std::async(std::launch::async, [&, begin, end] { encode_window(begin, end); });
        }
      }
      ++placing;
    }
    const batch::Partition& partition = partitions[n];
    key_fields.date = partition.date;
    key_fields.values = partition.values;
    key_fields.number = n;
    uint64_t bytes = 0;
    parquet::FileStatistics statistics;
    Result<PlacedObject> placed = Place(
        destination_,
        [&](uint32_t alternative) {
          key_fields.alternative = alternative;
          return table::PartKey(key_fields);
        },
        [&](PartUpload& upload) {
          const Encoded& e = encoded[n];
          if (!e.ahead) return encode(n, upload, bytes, statistics);
          if (!e.status.ok()) return e.status;
          bytes = e.bytes.size();
          statistics = e.statistics;
          return upload.Append(std::span(reinterpret_cast<const uint8_t*>(e.bytes.data()),
                                         e.bytes.size()));
        });
    if (!placed.ok()) return fail(RedeliverUnlessPermanent(placed.status()).WithContext("flush"));
    if (placed->placed == Placed::kNew) placed_here.push_back(placed->key);
    report.parts.push_back(PartReport{placed->key, partition.rows.size(), bytes,
                                      placed->placed == Placed::kSame, partition.date,
                                      partition.values, std::move(statistics)});
    report.rows += partition.rows.size();
    report.bytes += bytes;
    // Placed: its memory goes back before the next Part's. Not `= std::string()`: libstdc++'s
    // move-assignment from a string in its small buffer copies the characters and keeps the
    // capacity, so every Part's bytes stayed until the flush ended (27 MB for 200 small Parts).
    std::string().swap(encoded[n].bytes);
  }
  Status synced = destination_.Sync();
  if (!synced.ok()) return fail(synced.As(Status::Redeliver).WithContext("sync lake"));
  // Placed and durable: the table records them now, before anything is acknowledged. A commit
  // that fails takes back what this flush placed, as any failure does; never a Reject, which an
  // outbox sink would take for events no retry can store.
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
