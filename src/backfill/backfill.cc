#include "backfill/backfill.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <span>


namespace sinkd::backfill {

namespace {

// The subject an input's messages carry: its name, "-" for standard input.
std::string_view InputName(std::string_view subject) { return subject.empty() ? "-" : subject; }

// libnats and protobuf count a message's length in an int.
Status CheckSize(std::string_view message, uint64_t sequence) {
  if (message.size() <= static_cast<size_t>(INT32_MAX)) return Status::OK();
  return Status::Refuse("import: message " + std::to_string(sequence) + " is over 2 GiB");
}

}  // namespace

Backfill::Backfill(lake::Destination& destination, BackfillOptions options, Logger& log,
                   table::Commit& commit)
    : options_(std::move(options)),
      log_(log),
      store_(destination, options_.lake, commit),
      dead_letters_(destination, options_.lake.key_prefix, options_.lake.instance),
      backoff_(Backoff{}),
      decode_pool_(std::make_unique<WorkPool>(std::max<size_t>(1, options_.decode_threads))),
      decoder_(*decode_pool_) {
  for (drain::Batch& b : batches_) {
    b.SetAcknowledger(std::make_unique<RunProgress>(report_.landed));
    b.SetMaxPartitions(options_.max_partitions_per_flush);
  }
  drain::SettleContext context{dead_letters_, store_, log_, backoff_, nullptr, options_.stream};
  context.scope = "run";  // numbered from 1 on every run: meaningful with the instance only
  settler_ = std::make_unique<drain::Settler>(std::move(context), std::chrono::nanoseconds(0));
}

Backfill::~Backfill() { (void)WaitForFlush(); }

Status Backfill::WaitForFlush() {
  while (failed_.ok()) {
    std::optional<drain::SettleReport> settled = settler_->WaitFor(std::chrono::seconds(1));
    if (!settled) {
      if (settler_->busy()) continue;
      break;  // nothing was settling
    }
    if (!settled->status.ok()) {
      failed_ = settled->status;
      break;
    }
    report_.rows += settled->flushed.rows;
    report_.parts += settled->flushed.parts.size();
    report_.bytes += settled->flushed.bytes;
    report_.rejects += settled->dead_letters;
    ++report_.flushes;
    break;
  }
  report_.dead_letter_keys = dead_letters_.keys();
  return failed_;
}

Status Backfill::StartFlush() {
  SINKD_RETURN_IF_ERROR(WaitForFlush());
  drain::Batch& full = batches_[filling_];
  if (full.empty()) return Status::OK();
  drain::LogRejects(full, log_);
  filling_ = 1 - filling_;
  settler_->Start(full);
  return Status::OK();
}

Status Backfill::Add(std::string_view message, std::string_view subject) {
  const uint64_t sequence = next_sequence_++;
  ++report_.messages;
  SINKD_RETURN_IF_ERROR(CheckSize(message, sequence));
  // A copy, held until the run is decoded: the caller's bytes go when this returns.
  copies_.emplace_back(message);
  run_.push_back({copies_.back(), std::string(InputName(subject)), sequence});
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
    run_.push_back({message, std::string(name), next_sequence_++});
    ++report_.messages;
    run_bytes_ += message.size();
  }
  return DecodeRun();
}

Status Backfill::DecodeRun() {
  // While no batch flushes the other threads would idle: the run is shared out.
  Status status;
  decoder_.AddRun(
      run_.size(), !settler_->busy(), options_.envelope,
      [&](size_t i) { return run_[i].payload; },
      [&](size_t i, drain::ParallelDecoder* decoded, size_t index) {
        status = AddToBatch(i, decoded, index);
        return status.ok();
      });
  run_.clear();
  copies_.clear();
  run_bytes_ = 0;
  return status;
}

Status Backfill::AddToBatch(size_t i, drain::ParallelDecoder* decoded, size_t decoded_index) {
  const drain::Record record{run_[i].payload, run_[i].subject, run_[i].sequence};
  const auto now = std::chrono::steady_clock::now();
  drain::Added added = decoded != nullptr
                           ? batches_[filling_].AddDecoded(record, *decoded, decoded_index, now)
                           : batches_[filling_].Add(record, options_.envelope, now);
  if (!added.held) {
    // No room for its partitions: it starts the next batch, where it is taken (an empty batch
    // takes every message, its events past the cap as rejects), decoded again from its payload.
    SINKD_RETURN_IF_ERROR(StartFlush());
    added = batches_[filling_].Add(record, options_.envelope, now);
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

}  // namespace sinkd::backfill
