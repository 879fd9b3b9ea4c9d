// RFC 3339 timestamps as ComputeEvent.time carries them ("2026-11-30T20:28:46.123Z",
// "2026-11-30T21:28:46+01:00"), to microseconds since the Unix epoch, UTC. Digits past the
// microsecond are truncated, as the ledger truncates nanoseconds. Pure function.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace sinkd::sinks {

// nullopt for anything that is not a full RFC 3339 date-time with an offset (a bare date, a
// missing zone, month 13, second 61 …). Years 0000–9999; 'T'/'t'/' ' and 'Z'/'z' both accepted.
std::optional<int64_t> ParseRfc3339Micros(std::string_view text);

}  // namespace sinkd::sinks
