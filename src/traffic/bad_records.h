// The bad records of generated traffic: events a drain must reject one by one, and whole messages
// it must dead-letter. Each kind is built so that it is bad by construction, not by luck: a test
// that counts rejects must never meet a "garbage" payload that happens to parse. Internal to
// src/traffic and its tests. Pure functions; an Rng is the only state they touch.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "traffic/event_draft.h"
#include "traffic/random.h"
#include "traffic/traffic_generator.h"

namespace sinkd::traffic {

// Turns a good draft into a bad event of `kind`:
//   kMissingEventId  clears event_id;
//   kMissingTime     drops the time field;
//   kInvalidUtf8     appends an invalid UTF-8 sequence (Latin-1 text, a lone continuation byte,
//                    a surrogate, an overlong or cut-off sequence) to a string field.
// REQUIRES: kind is one of those three.
void CorruptEvent(BadKind kind, Rng& rng, EventDraft& draft);

// Appends 1..2048 random bytes whose first byte is a one-byte tag with wire type 6 or 7, which no
// protobuf decoder accepts (otherwise ~1 in 40 random payloads parse as an empty-ish Batch).
void AppendGarbage(Rng& rng, std::string& out);

// Appends `draft` as a protojson-looking object ({"event_id":"…","time":"…",…}), as a publisher
// misconfigured to JSON would send it. Only ASCII is written and '|' never is: '{' (0x7B) reads
// as the start of group 15, whose end tag would be 0x7C ('|'), so the group can never close and
// the payload can never parse as protobuf.
void AppendJsonEvent(const EventDraft& draft, std::string& out);

// A length in [1, message.size()) at which `message` can be cut so that it no longer parses:
// inside one of its top-level fields, never between two (a cut there leaves a valid, shorter
// message). REQUIRES: message is well-formed protobuf of at least 2 bytes.
size_t TruncationPoint(std::string_view message, Rng& rng);

}  // namespace sinkd::traffic
