// The tenant and app of a wire message's event, read straight off the wire without decoding the
// rest: what `sinkd publish` needs to send a recorded message on the subject a garm publisher
// would (garm.v1.<origin>.<tenant>.<app>). The event is the message itself (Envelope::kEvent) or
// the first events entry of a Batch (kBatch); a repeated tenant or app field reads as its last
// value, as protobuf reads it. Never fails: a publisher forwards bad records as they are (a broker
// does not read payloads), so framing that breaks ends the reading and keeps what was read
// before it; a field never read is empty.
// Ownership: the views point into `message`, which must outlive them.
// Threads: pure function.
#pragma once

#include <string_view>

#include "contract/reject.h"

namespace sinkd::contract {

struct EventScope {
  std::string_view tenant;  // Event field 10
  std::string_view app;     // Event field 11
};

EventScope ScopeOf(Envelope envelope, std::string_view message);

}  // namespace sinkd::contract
