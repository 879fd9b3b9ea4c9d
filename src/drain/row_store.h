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
#include "lake/lake_store.h"
#include "lake/lake_writer.h"
#include "row/row_buffer.h"
#include "table/commit.h"
#include "table/land.h"

namespace sinkd::drain {

// Where a batch lands (table/land.h): Flush places and commits, Committed says which of a
// batch's positions the table holds already (those records are acked unwritten).
using RowStore = table::Store;

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

// The production store: the one LakeWriter every lake writer uses (lake/lake_store.h). Part keys
// carry the instance and the batch's sequence range; a batch redelivered with the same range
// finds its Parts in place (the same bytes: success, no copy), and a key holding other bytes
// sends the Part to another name (lake/lake_writer.h), so a key that may already hold acked rows
// is never written over.
using LakeRowStore = lake::LakeStore;

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
