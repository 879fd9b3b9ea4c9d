// Durations on the command line, in Go's spelling so they read like the reference's flags:
// "300ms", "1.5s", "10m", "1h30m", "168h". Pure functions.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "base/result.h"

namespace sinkd {

// Parses a non-negative duration: one or more <number><unit> with units ns, us, µs, ms, s, m, h.
// A bare "0" is zero. Errors (Refuse) quote the text.
Result<std::chrono::nanoseconds> ParseDuration(std::string_view text);

// Go's time.Duration.String form: "5m0s", "1h0m0s", "300ms", "1.5s", "0s".
std::string FormatDuration(std::chrono::nanoseconds d);

}  // namespace sinkd
