// The one rule both decoders apply to a google.protobuf.Timestamp before it becomes the `time`
// column: the instant must lie in years 0001..9999 UTC with nanos in 0..999,999,999 (the range the
// Timestamp type itself documents, and the one RFC 3339 text and Go's time can represent), and it
// is stored as INT64 microseconds since the Unix epoch, nanoseconds truncated towards the past.
// Anything outside is an `unmarshal` reject rather than a clamped or wrapped value: a ledger row
// dated 292,277 years out is corruption, not data. Within the range the arithmetic cannot overflow.
// Threads: pure functions, share freely.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace sinkd::contract {

inline constexpr int64_t kMinTimestampSeconds = -62135596800;  // 0001-01-01T00:00:00Z
inline constexpr int64_t kMaxTimestampSeconds = 253402300799;  // 9999-12-31T23:59:59Z
inline constexpr int32_t kMaxTimestampNanos = 999999999;

// Microseconds since 1970-01-01T00:00:00Z (floor of the instant), or nullopt when out of range.
constexpr std::optional<int64_t> TimestampMicros(int64_t seconds, int32_t nanos) {
  if (seconds < kMinTimestampSeconds || seconds > kMaxTimestampSeconds) return std::nullopt;
  if (nanos < 0 || nanos > kMaxTimestampNanos) return std::nullopt;
  // nanos is non-negative, so dividing truncates towards the past for negative seconds too.
  return seconds * 1000000 + nanos / 1000;
}

// The error text of an out-of-range Timestamp, naming both parts and the valid range.
std::string TimestampRangeError(int64_t seconds, int32_t nanos);

}  // namespace sinkd::contract
