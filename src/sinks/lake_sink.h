// The `lake` sinks: a delivered batch of outbox events (or audit records) becomes Parquet Parts in
// the lake through the same LakeWriter and Destination as the JetStream drain, and Deliver/Write
// returns only once those Parts are durable (Flush committed and synced them). One ColumnTable per
// lake (row/outbox_columns.h): events partitioned by date and type, audit records by date.
// Keys: <prefix>/date=…/[type=…/]part-<instance>-<first seq>-<last seq>-<n>.parquet. A batch is a
// contiguous range of positions, stable once read (nothing commits behind the fence), so a
// redelivered batch writes the same rows under the same keys: found in place (the same bytes),
// nothing written. A key holding other bytes (a fixed instance whose range now reads differently)
// is never replaced: the Part goes under the key's next alternative (lake/lake_writer.h), and the
// delivery succeeds. A bisected batch writes a sub-range under other keys, and readers (and
// compaction) deduplicate on the position, `sequence`.
// Landing: a delivery lands through table::Land (table/land.h), the path a drain's batch takes:
// it first leaves out the records whose positions, (txid, seq), the table holds already (a
// prefix: a redelivery after a commit whose cursor save was lost writes nothing again for them),
// then places the rest, every flush committed to the sink's table (table/commit.h, `commit`:
// `none` unless given another), then acknowledges every record. The acknowledger counts, and
// Deliver/Write returns OK only once each record was acked: the dispatcher's cursor save that
// follows is the acknowledgement.
// An event the lake cannot take — no id, a time that is not RFC 3339, or a value the Parquet
// writer refuses (a string that is not UTF-8) — makes the call fail with Reject (permanent: the
// dispatcher isolates and dead-letters it); any other failed flush is Retry.
// A delivery whose rows pass `batch_max_bytes` is flushed in several consecutive sub-ranges, each
// under its own key, so no column of a flush nears the 4 GiB its 32-bit offsets address; so is one
// whose rows span more than `max_partitions` partitions (date and type: the producer's; a
// sub-range ends before the event that would be one partition too many), so no flush writes more
// Parts than that. Nothing is dead-lettered for it: the outbox is our own database, and splitting
// loses nothing. The same batch always splits at the same events, so a redelivery still writes
// the same keys. A delivery is one landing and its sub-ranges its flushes (the landing's place
// step cuts them): the table is asked once, and the split runs over the records it does not hold,
// so the flushes after a committed prefix start where the flushes that wrote it left off.
// With a table (a commit other than `none`), Open also checks that the destination never lets a
// create replace an object (Destination::CheckExclusiveCreates): a commit is the never-replace
// create of the next metadata version, and a store that lets two both land loses a snapshot.
// Cursor: with an iceberg table whose pointer lives in an sql catalog in the outbox's own
// database (iceberg::SameDatabase of the catalog's URL and the dispatcher's, checked by Open),
// every flush's commit saves the sink's cursor at the flush's last position inside the
// transaction that moves the table's pointer (the CursorSaver given by Bind, fenced by the
// sink's lease): the cursor and the table never disagree, whatever fails between them. Anywhere
// else the commit lands first and the dispatcher saves the cursor after Deliver/Write returns; a
// redelivery in between finds its positions in the table (above) and writes nothing again.
// Ownership: owns its Destination, and the commit given as a unique_ptr. Threads: one thread at a
// time (the sink's loop).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "partition/partition_cap.h"
#include "lake/destination.h"
#include "lake/lake_store.h"
#include "lake/lake_writer.h"
#include "row/row_buffer.h"
#include "sinks/event_sink.h"
#include "table/commit.h"

namespace sinkd::sinks {

class LakeEventSink final : public EventSink {
 public:
  // REQUIRES: options.key_prefix and options.instance are safe key tokens (checked by the registry).
  // REQUIRES: row::CheckBatchMaxBytes accepts batch_max_bytes (the registry checks it).
  // REQUIRES: max_partitions >= 1 (the registry checks it).
  LakeEventSink(std::string id, std::unique_ptr<lake::Destination> destination,
                lake::LakeWriterOptions options, size_t batch_max_bytes = row::kDefaultBatchBytes,
                size_t max_partitions = partition::kDefaultMaxPartitionsPerFlush,
                table::Commit& commit = table::NoTableCommit());
  // The same, owning its commit (made over *destination: iceberg/table_format.h).
  LakeEventSink(std::string id, std::unique_ptr<lake::Destination> destination,
                lake::LakeWriterOptions options, size_t batch_max_bytes, size_t max_partitions,
                std::unique_ptr<table::Commit> commit);

  const std::string& id() const override { return id_; }
  void Bind(CursorSaver& cursor) override { cursor_ = &cursor; }
  // Ensures the destination (creates the lake root, checks the bucket); chooses where the cursor
  // is saved (above).
  Status Open() override;
  Status Deliver(std::span<const Event> events) override;
  // True once Open found the table's sql catalog in the outbox's database: the cursor moves in
  // each commit's transaction.
  bool cursor_in_commit() const { return cursor_in_commit_; }

 private:
  std::string id_;
  std::unique_ptr<lake::Destination> destination_;
  std::unique_ptr<table::Commit> owned_commit_;  // null when the commit is borrowed
  lake::LakeStore store_;  // lands every delivery (table/land.h)
  size_t batch_max_bytes_;
  row::RowBuffer batch_;  // reused between calls
  partition::PartitionCap cap_;  // of batch_
  std::vector<int64_t> micros_;  // each event's time, parsed before anything is written
  CursorSaver* cursor_ = nullptr;
  bool cursor_in_commit_ = false;
};

class LakeAuditSink final : public AuditSink {
 public:
  LakeAuditSink(std::string id, std::unique_ptr<lake::Destination> destination,
                lake::LakeWriterOptions options, size_t batch_max_bytes = row::kDefaultBatchBytes,
                size_t max_partitions = partition::kDefaultMaxPartitionsPerFlush,
                table::Commit& commit = table::NoTableCommit());
  // The same, owning its commit (made over *destination: iceberg/table_format.h).
  LakeAuditSink(std::string id, std::unique_ptr<lake::Destination> destination,
                lake::LakeWriterOptions options, size_t batch_max_bytes, size_t max_partitions,
                std::unique_ptr<table::Commit> commit);

  const std::string& id() const override { return id_; }
  void Bind(CursorSaver& cursor) override { cursor_ = &cursor; }
  Status Open() override;
  Status Write(std::span<const AuditRecord> records) override;
  bool cursor_in_commit() const { return cursor_in_commit_; }

 private:
  std::string id_;
  std::unique_ptr<lake::Destination> destination_;
  std::unique_ptr<table::Commit> owned_commit_;  // null when the commit is borrowed
  lake::LakeStore store_;  // lands every delivery (table/land.h)
  size_t batch_max_bytes_;
  row::RowBuffer batch_;
  partition::PartitionCap cap_;  // of batch_
  CursorSaver* cursor_ = nullptr;
  bool cursor_in_commit_ = false;
};

}  // namespace sinkd::sinks
