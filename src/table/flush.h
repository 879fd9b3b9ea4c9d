// What one flush hands to a table: where its rows came from (Provenance: the source and the
// positions the flush acknowledges once it lands) and what it placed (FlushReport: every Part's
// key, size, partition and footer statistics). The lake writer fills them (lake/lake_writer.h),
// every Part's footer stamp is made from the Provenance (lake/stamp.h), and the commit step
// receives both (table/commit.h). They live here, below lake/, so that a commit implementation
// needs the table's types and not the writer's.
// Threads: plain data.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "parquet/file_statistics.h"

namespace sinkd::table {

struct SequenceRange {
  uint64_t first = 0;  // inclusive
  uint64_t last = 0;   // inclusive
  friend bool operator==(const SequenceRange&, const SequenceRange&) = default;
};

// An outbox record's position, ordered as the outbox delivers: txid first, then seq (the
// cursor's order: outbox/cursor.h).
struct OutboxPosition {
  uint64_t txid = 0;
  uint64_t seq = 0;
  friend auto operator<=>(const OutboxPosition&, const OutboxPosition&) = default;
};

// Where the rows of a flush came from: names the Part keys and goes into every Part's footer,
// as the flush stamp (lake/stamp.h) among the rest; the source positions a commit records.
struct Provenance {
  std::string source;            // "GARM_LEDGER", "import", "outbox:<sink>"
  uint64_t first_sequence = 0;   // lowest source sequence in the flush
  uint64_t last_sequence = 0;    // highest
  // Every sequence this flush will acknowledge once it returns OK, records that gave no row
  // included (dead-lettered, empty; not those the table held already), as sorted ranges
  // (lake::ToRanges). The drain and import fill it from their batch (drain::Batch::Acknowledged),
  // an outbox lake sink from the seq of each record of the sub-range it flushes. Empty (a caller
  // that names none: tests, benchmarks) means every sequence from first_sequence to
  // last_sequence.
  std::vector<SequenceRange> acknowledged;
  std::string scope = "stream";  // what numbers the sequences: stream | run | outbox (stamp.h)
  std::optional<uint64_t> first_txid, last_txid;  // an outbox sink's positions
  // A stream's creation time as JetStream reports it (jetstream::StreamState::created): with
  // `source`, the stream's identity, since a stream deleted and made again under its name numbers
  // its messages from 1 again. Empty for what is not a stream (import, an outbox sink).
  std::string source_created;
};

struct PartReport {
  std::string key;
  uint64_t rows = 0;
  uint64_t bytes = 0;
  bool found_in_place = false;  // kSame: an earlier attempt had placed these exact bytes
  // The partition as the rows give it, exact (the key may shorten a value): its UTC date
  // (YYYY-MM-DD) and one raw value per partition column, in table order.
  std::string date;
  std::vector<std::string> values;
  // The Part's footer statistics, as the writer made them: what a table commit records for it
  // (Iceberg's manifest entry), without reading the Part again.
  parquet::FileStatistics statistics;
};

struct FlushReport {
  std::vector<PartReport> parts;
  uint64_t rows = 0;
  uint64_t bytes = 0;
};

}  // namespace sinkd::table
