// GARM_SINK_DEAD read back, and dead letters published back to their origin streams. Reading
// never consumes: a direct get for one sequence, an ephemeral AckNone consumer
// (jetstream/ephemeral_reader.h) for a scan, so no durable and no dead letter changes.
// Ownership: borrows the Connection for the call. Threads: one thread at a time per Connection.
// Errors: NotFound for a sequence GARM_SINK_DEAD does not hold (or a missing stream), Retry for
// the server, the visitor's own error as it returned it.
#pragma once

#include <functional>

#include "base/result.h"
#include "dead/dead_letter.h"
#include "dead/selection.h"
#include "jetstream/connection.h"

namespace sinkd::dead {

Result<DeadLetter> GetDeadLetter(jetstream::Connection& connection, uint64_t dead_sequence);

// Calls `visit` for every dead letter the selection takes, in dead-stream order, among those
// stored when the call began (a scan stops at the last sequence it saw then, or at the first
// stored at or after `until`). Stops at the first error `visit` returns and returns it.
Status ForEachDeadLetter(jetstream::Connection& connection, const Selection& selection,
                         const std::function<Status(const DeadLetter&)>& visit);

// Publishes `plan` to its subject with Nats-Msg-Id plan.msg_id, requiring that the origin stream
// stores it (a subject another stream took is an error, not a publish elsewhere), with the header
// Garm-Replay-Of: GARM_SINK_DEAD-<dead sequence>. True when stored, false when the stream already
// held that id (a replay within the duplicate window); Retry naming the subject when not stored.
Result<bool> PublishReplay(jetstream::Connection& connection, const ReplayPlan& plan,
                           uint64_t dead_sequence);

}  // namespace sinkd::dead
