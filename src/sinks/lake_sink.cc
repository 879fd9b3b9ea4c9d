#include "sinks/lake_sink.h"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>

#include "iceberg/iceberg_commit.h"
#include "row/outbox_columns.h"
#include "sinks/outbox_landing.h"
#include "sinks/rfc3339.h"
#include "table/land.h"

namespace sinkd::sinks {

namespace {

void PushString(row::RowBuffer& b, int col, std::string_view v) { b.column(col).strings.push_back(v); }
void PushInt(row::RowBuffer& b, int col, int64_t v) { b.column(col).int64s.push_back(v); }

std::string_view JsonOrNull(const std::string& json) {
  return json.empty() ? std::string_view("null") : std::string_view(json);
}

// Lands `records` (pushed one row each by `push`) through table::Land: leaves out the records
// whose positions the table holds already (a delivery repeated after its commit landed and its
// cursor save was lost: table/commit.h, CommittedThrough), not written again and acknowledged
// with the rest; flushes the others in sub-ranges (OutboxLanding); then acknowledges them all. A
// table that cannot say is a Retry.
template <typename Record, typename Push>
Status LandDelivery(std::span<const Record> records, const std::string& id,
                    lake::LakeStore& store, row::RowBuffer& rows, partition::PartitionCap& cap,
                    size_t batch_max_bytes, const Push& push) {
  rows.Clear();
  cap.Clear();
  if (records.empty()) return Status::OK();
  CursorAcks acks;
  OutboxLanding<Record, Push> landing(records, id, rows, cap, batch_max_bytes, push, acks);
  table::LandReport landed = table::Land(landing, store);
  switch (landed.failed) {
    case table::LandStep::kNone:
      break;
    case table::LandStep::kCommitted:
      return landed.status.IsInternal() ? landed.status : landed.status.As(Status::Retry);
    default:
      // A flush's status keeps its kind: a Reject (rows the Parquet writer can never encode) is
      // the caller's to keep, so the dispatcher isolates the event.
      return landed.status;
  }
  // The dispatcher's cursor save is the acknowledgement: an OK without every record acked would
  // move the cursor past a record the landing never settled.
  if (acks.acked() != records.size()) {
    return Status::Internal(fmt::format("the landing acknowledged {} of the delivery's {} records",
                                        acks.acked(), records.size()));
  }
  return Status::OK();
}

// Ensures the lake; with a table, refuses a store whose creates can replace an object. With an
// sql catalog in the outbox's own database, every commit saves the cursor in its transaction
// (`in_commit` set true).
Status OpenLake(lake::Destination& destination, const lake::LakeWriter& writer,
                const std::string& what, CursorSaver* cursor, bool& in_commit) {
  const std::string context = what + " (" + destination.Describe() + ")";
  SINKD_RETURN_IF_ERROR(destination.Ensure().WithContext(context));
  if (writer.commit().format() == table::kNoCommitFormat) return Status::OK();
  SINKD_RETURN_IF_ERROR(
      destination.CheckExclusiveCreates(writer.options().key_prefix)
          .WithContext(context + ", table_format " + std::string(writer.commit().format())));
  auto* iceberg = dynamic_cast<iceberg::IcebergCommit*>(&writer.commit());
  if (cursor == nullptr || iceberg == nullptr || !iceberg->sql()) return Status::OK();
  SINKD_ASSIGN_OR_RETURN(const bool same,
                         iceberg::SameDatabase(iceberg->sql()->url, cursor->conninfo()));
  if (!same) return Status::OK();
  iceberg->set_in_swap([cursor](outbox::PgConn& conn, const table::Provenance& p) {
    return cursor->SaveCursorIn(conn, p.last_txid.value_or(0),
                                static_cast<int64_t>(p.last_sequence));
  });
  in_commit = true;
  return Status::OK();
}

}  // namespace

LakeEventSink::LakeEventSink(std::string id, std::unique_ptr<lake::Destination> destination,
                             lake::LakeWriterOptions options, size_t batch_max_bytes,
                             size_t max_partitions, table::Commit& commit)
    : id_(std::move(id)),
      destination_(std::move(destination)),
      store_(*destination_, std::move(options), commit),
      batch_max_bytes_(batch_max_bytes),
      batch_(row::kOutboxEventColumns),
      cap_(row::kOutboxEventColumns, max_partitions) {}

LakeEventSink::LakeEventSink(std::string id, std::unique_ptr<lake::Destination> destination,
                             lake::LakeWriterOptions options, size_t batch_max_bytes,
                             size_t max_partitions, std::unique_ptr<table::Commit> commit)
    : id_(std::move(id)),
      destination_(std::move(destination)),
      owned_commit_(std::move(commit)),
      store_(*destination_, std::move(options), *owned_commit_),
      batch_max_bytes_(batch_max_bytes),
      batch_(row::kOutboxEventColumns),
      cap_(row::kOutboxEventColumns, max_partitions) {}

Status LakeEventSink::Open() {
  return OpenLake(*destination_, store_.writer(), "lake sink " + id_, cursor_, cursor_in_commit_);
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
  Status s = LandDelivery(events, id_, store_, batch_, cap_, batch_max_bytes_,
                          [&](const Event& e, size_t i) {
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
                          });
  // A Reject (rows the Parquet writer can never encode) stays one, so a lone event is
  // dead-lettered at once; every other failure is transient for the dispatcher.
  if (!s.ok()) return (s.IsReject() ? s : s.As(Status::Retry)).WithContext("lake sink " + id_);
  return Status::OK();
}

LakeAuditSink::LakeAuditSink(std::string id, std::unique_ptr<lake::Destination> destination,
                             lake::LakeWriterOptions options, size_t batch_max_bytes,
                             size_t max_partitions, table::Commit& commit)
    : id_(std::move(id)),
      destination_(std::move(destination)),
      store_(*destination_, std::move(options), commit),
      batch_max_bytes_(batch_max_bytes),
      batch_(row::kOutboxAuditColumns),
      cap_(row::kOutboxAuditColumns, max_partitions) {}

LakeAuditSink::LakeAuditSink(std::string id, std::unique_ptr<lake::Destination> destination,
                             lake::LakeWriterOptions options, size_t batch_max_bytes,
                             size_t max_partitions, std::unique_ptr<table::Commit> commit)
    : id_(std::move(id)),
      destination_(std::move(destination)),
      owned_commit_(std::move(commit)),
      store_(*destination_, std::move(options), *owned_commit_),
      batch_max_bytes_(batch_max_bytes),
      batch_(row::kOutboxAuditColumns),
      cap_(row::kOutboxAuditColumns, max_partitions) {}

Status LakeAuditSink::Open() {
  return OpenLake(*destination_, store_.writer(), "lake audit sink " + id_, cursor_,
                  cursor_in_commit_);
}

Status LakeAuditSink::Write(std::span<const AuditRecord> records) {
  // Audit rows are never skipped, so nothing here refuses one: an empty id is written as it is.
  Status s = LandDelivery(records, id_, store_, batch_, cap_, batch_max_bytes_,
                          [&](const AuditRecord& r, size_t) {
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
                          });
  if (!s.ok()) return s.As(Status::Retry).WithContext("lake audit sink " + id_);
  return Status::OK();
}

}  // namespace sinkd::sinks
