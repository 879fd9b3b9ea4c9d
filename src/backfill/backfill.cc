#include "backfill/backfill.h"

#include <algorithm>
#include <chrono>
#include <span>

#include "backfill/dead_letter_file.h"
#include "table/key.h"

namespace sinkd::backfill {

namespace {

// The subject an input's messages carry: its name, "-" for standard input.
std::string_view InputName(std::string_view subject) { return subject.empty() ? "-" : subject; }

// libnats and protobuf count a message's length in an int.
Status CheckSize(std::string_view message, uint64_t sequence) {
  if (message.size() <= static_cast<size_t>(INT32_MAX)) return Status::OK();
  return Status::Refuse("import: message " + std::to_string(sequence) + " is over 2 GiB");
}

// A copy of a message as the drain holds it. It is never settled: it has no connection.
Result<jetstream::Message> Held(std::string_view data, std::string_view subject,
                                uint64_t sequence) {
  const std::string name(InputName(subject));
  natsMsg* msg = nullptr;
  natsStatus s = natsMsg_Create(&msg, name.c_str(), nullptr, data.data(),
                                static_cast<int>(data.size()));
  if (s != NATS_OK) {
    return Status::Internal("import: cannot hold message " + std::to_string(sequence) + ": " +
                            natsStatus_GetText(s));
  }
  return jetstream::Message(msg);
}

}  // namespace

Backfill::Backfill(lake::Destination& destination, BackfillOptions options, Logger& log)
    : destination_(destination),
      options_(std::move(options)),
      log_(log),
      writer_(destination, options_.lake),
      decode_pool_(std::make_unique<WorkPool>(std::max<size_t>(1, options_.decode_threads))),
      decoder_(*decode_pool_) {
  for (drain::Batch& b : batches_) b.SetMaxPartitions(options_.max_partitions_per_flush);
}

Backfill::~Backfill() { (void)WaitForFlush(); }

Status Backfill::WaitForFlush() {
  if (!flusher_.joinable()) return Status::OK();
  flusher_.join();
  return flushed_;
}

Status Backfill::StartFlush() {
  SINKD_RETURN_IF_ERROR(WaitForFlush());
  drain::Batch& full = batches_[filling_];
  if (full.empty()) return Status::OK();
  drain::LogRejects(full, log_);
  filling_ = 1 - filling_;
  flushing_ = true;
  flusher_ = std::thread([this, &full] {
    flushed_ = Flush(full);
    flushing_ = false;
  });
  return Status::OK();
}

Status Backfill::Add(std::string_view message, std::string_view subject) {
  const uint64_t sequence = next_sequence_++;
  ++report_.messages;
  SINKD_RETURN_IF_ERROR(CheckSize(message, sequence));
  SINKD_ASSIGN_OR_RETURN(jetstream::Message held, Held(message, subject, sequence));
  run_.push_back({std::move(held), sequence});
  run_bytes_ += message.size();
  if (run_.size() >= options_.run_messages || run_bytes_ >= drain::ParallelDecoder::kRunBytes) {
    return DecodeRun();
  }
  return Status::OK();
}

Status Backfill::AddRun(std::span<const std::string_view> messages, std::string_view subject) {
  // Refused as Add refuses it, before any of the run is held: its bytes go when this returns.
  for (size_t i = 0; i < messages.size(); ++i) {
    SINKD_RETURN_IF_ERROR(CheckSize(messages[i], next_sequence_ + i));
  }
  const std::string_view name = InputName(subject);
  for (std::string_view message : messages) {
    run_.push_back({jetstream::Message::Recorded(message, name), next_sequence_++});
    ++report_.messages;
    run_bytes_ += message.size();
  }
  return DecodeRun();
}

Status Backfill::DecodeRun() {
  // While no batch flushes the other threads would idle: the run is shared out.
  Status status;
  decoder_.AddRun(
      run_.size(), !flushing_, options_.envelope,
      [&](size_t i) { return run_[i].message.data(); },
      [&](size_t i, drain::ParallelDecoder* decoded, size_t index) {
        status = AddToBatch(i, decoded, index);
        return status.ok();
      });
  run_.clear();
  run_bytes_ = 0;
  return status;
}

Status Backfill::AddToBatch(size_t i, drain::ParallelDecoder* decoded, size_t decoded_index) {
  const uint64_t sequence = run_[i].sequence;
  const auto now = std::chrono::steady_clock::now();
  drain::Added added =
      decoded != nullptr ? batches_[filling_].AddDecoded(std::move(run_[i].message), sequence,
                                                         *decoded, decoded_index, now)
                         : batches_[filling_].Add(std::move(run_[i].message), sequence,
                                                  options_.envelope, now);
  if (!added.held) {
    // No room for its partitions: it starts the next batch, where it is taken (an empty batch
    // takes every message, its events past the cap as rejects), decoded again from its payload.
    SINKD_RETURN_IF_ERROR(StartFlush());
    added = batches_[filling_].Add(std::move(run_[i].message), sequence, options_.envelope, now);
  }
  drain::Batch& batch = batches_[filling_];
  if (batch.rows.rows() >= options_.batch_max_rows || batch.bytes() >= options_.batch_max_bytes ||
      batch.partitions_full()) {
    return StartFlush();
  }
  return Status::OK();
}

Status Backfill::Finish() {
  SINKD_RETURN_IF_ERROR(DecodeRun());
  SINKD_RETURN_IF_ERROR(StartFlush());
  return WaitForFlush();
}

// Same order as a drain's flush: dead letters first (small, and a record must never be lost
// because its neighbours' Parts failed), then the Parts.
Status Backfill::Flush(drain::Batch& batch) {
  const uint64_t first = batch.first_sequence(), last = batch.last_sequence();
  if (!batch.rejects.empty()) {
    std::string lines;
    for (const drain::HeldReject& r : batch.rejects) {
      // Messages are numbered one after another, so the held index gives the sequence.
      const jetstream::Message& from = batch.held[r.message].message;
      lines += DeadLetterLine(DeadLetter{r.reject, options_.stream, std::string(from.subject()),
                                         first + r.message});
    }
    SINKD_ASSIGN_OR_RETURN(
        const std::string key,
        WriteDeadLetters(
            destination_,
            [&](uint32_t alternative) {
              return table::DeadLetterKey(options_.lake.key_prefix, options_.lake.instance, first,
                                          last, alternative);
            },
            lines));
    SINKD_RETURN_IF_ERROR(destination_.Sync());
    report_.dead_letter_keys.push_back(key);
    report_.rejects += batch.rejects.size();
  }
  lake::Provenance provenance{options_.stream, first, last};
  provenance.acknowledged = batch.Acknowledged();
  provenance.scope = "run";  // numbered from 1 on every run: meaningful with the instance only
  auto flushed = writer_.Flush(batch.rows, provenance);
  if (!flushed.ok()) return flushed.status();
  log_.Info("flushed batch", {{"rows", flushed->rows},
                              {"parts", static_cast<uint64_t>(flushed->parts.size())},
                              {"bytes", flushed->bytes},
                              {"first_seq", first},
                              {"last_seq", last}});
  report_.rows += flushed->rows;
  report_.parts += flushed->parts.size();
  report_.bytes += flushed->bytes;
  ++report_.flushes;
  batch.Clear();
  return Status::OK();
}

}  // namespace sinkd::backfill
