// The two places a drain's records go, as the drain sees them. The drain loop depends only on
// these, so it never learns about files, buckets or Parquet, and tests can make either fail on
// demand. LakeRowStore and StreamDeadLetters are the production implementations.
// Threads: one thread at a time per object.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/result.h"
#include "jetstream/dead_letter_publisher.h"
#include "lake/destination.h"
#include "lake/lake_writer.h"
#include "row/row_buffer.h"
#include "table/commit.h"

namespace sinkd::drain {

// Makes rows durable. Flush returns only when every row is durable and committed to its table
// (then the batch may be acked); on failure some Parts may have landed and the batch is
// redelivered (duplicates, never a gap). Committed asks the table, before a batch is flushed,
// which of its sequences it holds already (table/commit.h): those messages are acked unwritten.
class RowStore {
 public:
  virtual ~RowStore() = default;
  virtual Result<lake::FlushReport> Flush(row::RowBuffer& rows,
                                          const lake::Provenance& provenance) = 0;
  virtual Result<std::vector<lake::SequenceRange>> Committed(
      const lake::Provenance& provenance) = 0;
};

// Stores one unreadable record durably, or fails. True when stored now, false when it was
// already stored (a retried batch). A store that keeps a batch's dead letters together (import's
// file, backfill/backfill.h) makes them durable in Sync, called once after the batch's last
// Publish with the batch's sequence range; the stream's are each durable as Publish returns.
class DeadLetters {
 public:
  virtual ~DeadLetters() = default;
  virtual Result<bool> Publish(const jetstream::DeadLetterRecord& record) = 0;
  virtual Status Sync(uint64_t /*first_sequence*/, uint64_t /*last_sequence*/) {
    return Status::OK();
  }
  // How full the store is (for the fill gauges).
  virtual Result<jetstream::StreamState> State() = 0;
};

// Sink over a lake Destination, through the one LakeWriter every lake writer uses. Part keys carry
// the instance and the batch's sequence range; a batch redelivered with the same range finds its
// Parts in place (the same bytes: success, no copy), and a key holding other bytes sends the Part
// to another name (lake/lake_writer.h), so a key that may already hold acked rows is never
// written over.
class LakeRowStore final : public RowStore {
 public:
  LakeRowStore(lake::Destination& destination, lake::LakeWriterOptions options,
           table::Commit& commit = table::NoTableCommit())
      : writer_(destination, std::move(options), commit) {}
  Result<lake::FlushReport> Flush(row::RowBuffer& rows,
                                  const lake::Provenance& provenance) override {
    return writer_.Flush(rows, provenance);
  }
  Result<std::vector<lake::SequenceRange>> Committed(
      const lake::Provenance& provenance) override {
    return writer_.commit().Committed(writer_.options().key_prefix, provenance);
  }

 private:
  lake::LakeWriter writer_;
};

class StreamDeadLetters final : public DeadLetters {
 public:
  explicit StreamDeadLetters(jetstream::DeadLetterPublisher& publisher) : publisher_(publisher) {}
  Result<bool> Publish(const jetstream::DeadLetterRecord& record) override {
    return publisher_.Publish(record);
  }
  Result<jetstream::StreamState> State() override { return publisher_.State(); }

 private:
  jetstream::DeadLetterPublisher& publisher_;
};

}  // namespace sinkd::drain
