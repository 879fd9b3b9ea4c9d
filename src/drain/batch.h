// Batch is one flush unit being built: the records it holds (wire messages, each with its subject
// and source sequence; their payloads are only viewed while they are decoded), the rows decoded
// from them, the rejects with the record each came from, the sequence range, when its first
// record was buffered, and the Acknowledger (table/acknowledger.h) that tells the records' source
// what became of each once the batch is settled (drain/settle.h, which lands it through
// table/land.h). It knows nothing of JetStream: a drain's acknowledger holds the messages
// (drain/message_acks.h), import's counts progress. It closes on rows (not messages: one ledger
// message holds hundreds of events), on bytes held, on the age of its first message, or on
// partitions.
// Partitions: with a cap (SetMaxPartitions, partition/partition_cap.h) a batch holds rows of at most
// that many partitions, so its flush writes at most that many Parts. A message whose rows would
// take a batch that already holds rows past the cap is not taken (Add returns held = false): the
// caller closes the batch and adds the message to the next one. Only a message that alone spans
// more partitions than the cap loses events to the cap: each event whose partition would be one
// too many becomes a kTooManyPartitions reject of its own (one event, not the message), and the
// others stay rows.
// Ownership: owns the rows and the acknowledger; the caller hands the acknowledger each record's
// handle right after the Add that held it (record i of the acknowledger is held[i]).
// Threads: one thread at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/log.h"
#include "contract/reject.h"
#include "contract/wire_decoder.h"
#include "drain/parallel_decoder.h"
#include "partition/partition_cap.h"
#include "lake/stamp.h"
#include "row/row_buffer.h"
#include "table/acknowledger.h"
#include "table/land.h"

namespace sinkd::drain {

// One record as its source delivered it, for the Add that holds it.
struct Record {
  std::string_view payload;  // viewed for the call only
  std::string_view subject;  // the stream subject, or import's input name
  uint64_t sequence = 0;     // its position in the source: what the batch counts it as (0: none)
};

struct Held {
  std::string subject;   // where it came from, for its dead letters
  uint32_t rows = 0;     // rows it produced
  uint32_t rejects = 0;  // rejects it produced
  bool settled = false;  // terminated already (its dead letters are stored)
  uint64_t sequence = 0;  // what the batch counts it as (0: none)
};

struct HeldReject {
  uint32_t message;  // index into Batch::held (and the record's index in the acknowledger)
  contract::Reject reject;
};

// What an Add did with its message.
struct Added {
  // False only under a partition cap: the message would take this batch past it. Nothing was
  // taken: close this batch and add it to the next one.
  bool held = true;
  // The rejects it produced (views valid until the next Add or Clear), for logging.
  std::span<const HeldReject> rejects;
};

class Batch {
 public:
  // `acks` settles the records (none given: NoAcknowledger, which tells no one).
  explicit Batch(std::unique_ptr<table::Acknowledger> acks = nullptr);

  // Decodes `record` into rows and rejects and holds it until settled. Held (Added::held), the
  // caller hands its handle to acks() next, as record messages() - 1.
  Added Add(const Record& record, contract::Envelope envelope,
            std::chrono::steady_clock::time_point now);
  // The same for a record `decoded` already decoded as its payload i (ParallelDecoder): the
  // batch ends up exactly as Add would have left it. A record it does not take is to be added to
  // the next batch with Add (the decoder's copy of it is spent), so its payload must live on.
  Added AddDecoded(const Record& record, ParallelDecoder& decoded, size_t i,
                   std::chrono::steady_clock::time_point now);
  // Clears the acknowledger too: every record must have been settled or handed on.
  void Clear();

  table::Acknowledger& acks() const { return *acks_; }
  // Replaces the acknowledger (a drain's needs its KeepAlive, made when it runs). REQUIRES: empty().
  void SetAcknowledger(std::unique_ptr<table::Acknowledger> acks) { acks_ = std::move(acks); }

  // Takes the rows and rejects of every message whose sequence `committed` holds out of the
  // batch: the table has them already (table/land.h), so they are neither written nor
  // dead-lettered again. Such a message stays held, with no rows and no rejects, and is
  // acknowledged with the batch; its sequence leaves Acknowledged() and the first/last range,
  // which name what the flush itself writes. Returns how many messages it took out.
  size_t DropCommitted(const table::CommittedPositions& committed);

  // The most partitions this batch may hold; 0 (the default) = no cap. REQUIRES: empty().
  void SetMaxPartitions(size_t max);
  size_t partitions() const { return cap_.partitions(); }
  // The batch holds as many partitions as its cap allows, or has turned a message away for want
  // of room: it must close.
  bool partitions_full() const { return cap_.full() || turned_away_; }

  bool empty() const { return held.empty(); }
  size_t messages() const { return held.size(); }
  // Message payloads plus decoded row buffers: what the byte limit bounds. The payloads are
  // counted as received although they are freed once decoded, so a batch closes after the same
  // message as when they were held to the end, and the limit stays an upper bound.
  size_t bytes() const { return message_bytes_ + rows.bytes(); }
  std::chrono::steady_clock::time_point first_buffered() const { return first_buffered_; }
  int64_t first_buffered_unix_ns() const { return first_buffered_unix_ns_; }
  uint64_t first_sequence() const { return first_sequence_; }
  uint64_t last_sequence() const { return last_sequence_; }
  // Every sequence held, as ranges: what settling this batch acknowledges (acked or, for a
  // message that gave only dead letters, terminated), rows or none. Goes into the flush stamp.
  std::vector<lake::SequenceRange> Acknowledged() const { return lake::ToRanges(sequences_); }

  std::vector<Held> held;
  std::vector<HeldReject> rejects;
  row::RowBuffer rows;
  // The stream's creation time (jetstream::StreamState::created) when the batch was handed over
  // to be settled: with the stream's name, its identity in the flush's positions.
  std::string source_created;

 private:
  // What every Add does besides decoding (rows [rows_before, rows.rows()) and the rejects in
  // scratch_): the partition cap, the sequence, the bytes, the rejects.
  Added Hold(const Record& record, size_t rows_before, contract::Envelope envelope,
             std::chrono::steady_clock::time_point now);
  // Turns the rows of the message being held that the cap has no room for (capped_, indices from
  // rows_before) into kTooManyPartitions rejects in scratch_, in event order, and drops them.
  void RejectCapped(std::string_view message, size_t rows_before, contract::Envelope envelope);

  std::unique_ptr<table::Acknowledger> acks_;
  contract::WireDecoder decoder_;
  std::vector<contract::Reject> scratch_;
  partition::PartitionCap cap_;
  bool turned_away_ = false;
  std::vector<uint32_t> capped_;  // RejectCapped's input
  size_t message_bytes_ = 0;
  std::chrono::steady_clock::time_point first_buffered_{};
  int64_t first_buffered_unix_ns_ = 0;
  uint64_t first_sequence_ = 0;  // 0: none yet (sequences start at 1)
  uint64_t last_sequence_ = 0;
  std::vector<uint64_t> sequences_;
};

// Records shown in full in the one line a batch's unreadable records get.
inline constexpr size_t kRejectSample = 3;

// One ERROR line for `batch`'s unreadable records, however many (none: no line): their count,
// the count by reason, the batch's sequence range and the first kRejectSample in full. A drain
// logs it when a batch closes, an import when it starts a flush; a bad producer would otherwise
// print a line per record.
void LogRejects(const Batch& batch, Logger& log);

}  // namespace sinkd::drain
