// The two sink interfaces the outbox dispatcher delivers to, and the records they receive. A
// built-in sink (lake, jetstream) or your own C++ class implements one of them; the dispatcher
// calls it from that sink's own loop, so a slow sink delays nobody else.
// Outcomes, as Status codes (sinkd throws nothing; these play the role of the document's throws):
//   OK      every record of the call is safely stored on the sink's side;
//   Reject  a permanent failure: this input can never be taken (an event without an id or a
//           time for the lake). A lone rejected event is dead-lettered at once;
//   any other code (Retry, Redeliver, …) is transient: the cursor stays, the batch is bisected
//           (events) or retried whole (audit) after a back-off.
// Delivery is at least once: the same event can arrive twice (after a crash, a lost save, or a
// bisection), so a sink must be idempotent on the event id.
// Threads: one thread at a time per sink object; the dispatcher never calls one sink concurrently.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "base/status.h"

namespace sinkd::outbox {
class PgConn;
}  // namespace sinkd::outbox

namespace sinkd::sinks {

// The dispatcher's side of a sink's cursor, for a sink that commits to the outbox's own database
// (an outbox lake sink whose table's pointer lives in an sql catalog there): the sink may save
// its cursor inside its own transaction, so that what it stores and how far the cursor says it
// got commit together or not at all. Given to every sink by Bind before Open; a sink that has no
// such transaction ignores it. Borrowed: outlives the sink's calls.
class CursorSaver {
 public:
  virtual ~CursorSaver() = default;
  // The outbox database's connection string (it may hold a password: never log it).
  virtual const std::string& conninfo() const = 0;
  // Saves the sink's cursor at (txid, seq) on `conn`, a connection to the outbox's database with
  // a transaction open, forward only. Retry when this process no longer holds the sink's lease
  // (the caller then rolls its transaction back: a holder that was taken over moves nothing).
  // Called from the sink's thread, inside Deliver/Write only.
  virtual Status SaveCursorIn(outbox::PgConn& conn, uint64_t txid, int64_t seq) = 0;
};

// A ComputeEvent: the outbox row's payload {id, type, tenantId, subject, time, data} plus its
// position. Fields the payload lacks are empty strings (data: "null").
struct Event {
  std::string id;         // evt_…, stable across redeliveries: the deduplication key
  std::string type;       // payload.type, or the row's topic when the payload has none
  std::string tenant_id;  // payload.tenantId
  std::string subject;    // payload.subject, e.g. reservation/rsv_…
  std::string time;       // payload.time, RFC 3339 as written by the application
  std::string sequence;   // "<txid>:<seq>", the outbox position
  std::string data_json;  // payload.data as JSON text, "null" when absent
  uint64_t txid = 0;      // the position as numbers
  int64_t seq = 0;
  std::string topic;      // the outbox row's topic column
};

// The event as JSON: {"id","type","tenantId","subject","time","sequence","data"} — what the
// jetstream sink publishes and what outbox_dead_letters.event stores ("as delivered").
std::string EventJson(const Event& event);

// A committed audit_events row.
struct AuditRecord {
  std::string id;
  std::string tenant_id;
  int64_t time_micros = 0;      // audit_events.time, microseconds since the Unix epoch, UTC
  std::string action;
  std::string resource_type;
  std::string resource_id;
  std::string admission_json;   // JSON text, "" when NULL
  std::string details_json;     // JSON text, "" when NULL
  std::string sequence;         // "<txid>:<seq>"
  uint64_t txid = 0;
  int64_t seq = 0;
};

// The record as the document's JSON: {id, tenantId, time (epoch ms), action,
// resource: {type, id}, admission?, details?, sequence}.
std::string AuditRecordJson(const AuditRecord& record);

class EventSink {
 public:
  virtual ~EventSink() = default;
  // The sink's id: names its cursor (sink:<id>) and its lease. Constant.
  virtual const std::string& id() const = 0;
  // Called once, before Open; see CursorSaver.
  virtual void Bind(CursorSaver& cursor) { (void)cursor; }
  // Called once before the first Deliver: connect, create or check the destination. A non-OK
  // status stops dispatch at startup, before anything is read.
  virtual Status Open() { return Status::OK(); }
  // Stores `events` (1 or more, in (txid, seq) order). See the outcomes above.
  virtual Status Deliver(std::span<const Event> events) = 0;
};

class AuditSink {
 public:
  virtual ~AuditSink() = default;
  virtual const std::string& id() const = 0;
  // Called once, before Open; see CursorSaver.
  virtual void Bind(CursorSaver& cursor) { (void)cursor; }
  virtual Status Open() { return Status::OK(); }
  // Stores `records` (1 to 500, in (txid, seq) order). Any failure retries the whole batch.
  virtual Status Write(std::span<const AuditRecord> records) = 0;
};

}  // namespace sinkd::sinks
