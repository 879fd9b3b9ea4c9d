#include "sinks/lake_sink.h"

#include <algorithm>

#include "sinks/lake_columns.h"
#include "sinks/rfc3339.h"

namespace sinkd::sinks {

namespace {

void PushString(row::RowBatch& b, int col, std::string_view v) { b.column(col).strings.push_back(v); }
void PushInt(row::RowBatch& b, int col, int64_t v) { b.column(col).int64s.push_back(v); }

std::string_view JsonOrNull(const std::string& json) {
  return json.empty() ? std::string_view("null") : std::string_view(json);
}

// The stamp's sequences are the outbox's seq (a bigserial, unique across the outbox, with holes
// where transactions rolled back), its txids the range of positions.
template <typename Record>
lake::Provenance ProvenanceOf(const std::string& id, std::span<const Record> records) {
  lake::Provenance p;
  p.source = "outbox:" + id;
  p.scope = "outbox";
  std::vector<uint64_t> seqs;
  seqs.reserve(records.size());
  for (const Record& r : records) seqs.push_back(static_cast<uint64_t>(std::max<int64_t>(r.seq, 0)));
  p.first_sequence = static_cast<uint64_t>(std::max<int64_t>(records.front().seq, 0));
  p.last_sequence = static_cast<uint64_t>(std::max<int64_t>(records.back().seq, 0));
  p.first_txid = records.front().txid;
  p.last_txid = records.back().txid;
  p.acknowledged = lake::ToRanges(std::move(seqs));
  return p;
}

}  // namespace

LakeEventSink::LakeEventSink(std::string id, std::unique_ptr<lake::Destination> destination,
                             lake::LakeWriterOptions options, size_t batch_max_bytes)
    : id_(std::move(id)),
      destination_(std::move(destination)),
      writer_(*destination_, std::move(options)),
      batch_max_bytes_(batch_max_bytes),
      batch_(kOutboxEventColumns) {}

Status LakeEventSink::Open() {
  return destination_->Ensure().WithContext("lake sink " + id_ + " (" + destination_->Describe() +
                                            ")");
}

Status LakeEventSink::Deliver(std::span<const Event> events) {
  // Checked before anything is written: no Part holds part of a batch that is then refused.
  micros_.clear();
  for (const Event& e : events) {
    const std::optional<int64_t> micros = ParseRfc3339Micros(e.time);
    if (e.id.empty() || !micros) {
      return Status::Reject("the lake cannot take event " + e.sequence +
                            (e.id.empty() ? ": it has no id" : ": its time \"" + e.time +
                                                                   "\" is not RFC 3339"));
    }
    micros_.push_back(*micros);
  }
  batch_.Clear();
  batch_.Reserve(events.size());
  size_t first = 0;  // of the rows in batch_
  for (size_t i = 0; i < events.size(); ++i) {
    const Event& e = events[i];
    PushString(batch_, 0, e.id);
    PushString(batch_, 1, e.type);
    PushString(batch_, 2, e.tenant_id);
    PushString(batch_, 3, e.subject);
    PushInt(batch_, 4, micros_[i]);
    PushString(batch_, 5, e.sequence);
    PushInt(batch_, 6, static_cast<int64_t>(e.txid));
    PushInt(batch_, 7, e.seq);
    PushString(batch_, 8, JsonOrNull(e.data_json));
    batch_.CommitRow();
    if (batch_.bytes() < batch_max_bytes_ && i + 1 < events.size()) continue;
    auto report = writer_.Flush(batch_, ProvenanceOf(id_, events.subspan(first, i + 1 - first)));
    if (!report.ok()) {
      // A Reject (rows the Parquet writer can never encode) stays one, so a lone event is
      // dead-lettered at once; every other failure is transient for the dispatcher.
      const Status& s = report.status();
      return (s.IsReject() ? s : s.As(Status::Retry)).WithContext("lake sink " + id_);
    }
    batch_.Clear();
    first = i + 1;
  }
  return Status::OK();
}

LakeAuditSink::LakeAuditSink(std::string id, std::unique_ptr<lake::Destination> destination,
                             lake::LakeWriterOptions options, size_t batch_max_bytes)
    : id_(std::move(id)),
      destination_(std::move(destination)),
      writer_(*destination_, std::move(options)),
      batch_max_bytes_(batch_max_bytes),
      batch_(kOutboxAuditColumns) {}

Status LakeAuditSink::Open() {
  return destination_->Ensure().WithContext("lake audit sink " + id_ + " (" +
                                            destination_->Describe() + ")");
}

Status LakeAuditSink::Write(std::span<const AuditRecord> records) {
  // Audit rows are never skipped, so nothing here refuses one: an empty id is written as it is.
  batch_.Clear();
  batch_.Reserve(records.size());
  size_t first = 0;  // of the rows in batch_
  for (size_t i = 0; i < records.size(); ++i) {
    const AuditRecord& r = records[i];
    PushString(batch_, 0, r.id);
    PushString(batch_, 1, r.tenant_id);
    PushInt(batch_, 2, r.time_micros);
    PushString(batch_, 3, r.action);
    PushString(batch_, 4, r.resource_type);
    PushString(batch_, 5, r.resource_id);
    PushString(batch_, 6, JsonOrNull(r.admission_json));
    PushString(batch_, 7, JsonOrNull(r.details_json));
    PushString(batch_, 8, r.sequence);
    batch_.CommitRow();
    if (batch_.bytes() < batch_max_bytes_ && i + 1 < records.size()) continue;
    auto report = writer_.Flush(batch_, ProvenanceOf(id_, records.subspan(first, i + 1 - first)));
    if (!report.ok()) {
      return report.status().As(Status::Retry).WithContext("lake audit sink " + id_);
    }
    batch_.Clear();
    first = i + 1;
  }
  return Status::OK();
}

}  // namespace sinkd::sinks
