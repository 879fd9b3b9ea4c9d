// What verify can see of a drain's dead letters: the records on GARM_SINK_DEAD under
// garm.v1.sink.dead.<origin>, read through an EphemeralReader (no durable, no ack: nothing moves),
// headers only. A whole-message dead letter (Garm-Dead-Event-Index -1) accounts for its origin
// sequence (Garm-Dead-Sequence in Garm-Dead-Stream) in verify's input. Records the stream's own
// limits have already removed are not seen: their sequences show as gaps only if no Part's stamp
// acknowledged them (a flush that wrote rows acknowledges its dead-lettered messages itself).
// Threads: one thread at a time (the Connection's rule).
#pragma once

#include <string>

#include "base/status.h"
#include "jetstream/connection.h"
#include "verify/verify.h"

namespace sinkd::verify {

Status AddStreamDeadLetters(jetstream::Connection& connection, const std::string& origin,
                            VerifyInput& input);

}  // namespace sinkd::verify
