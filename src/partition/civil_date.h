// UTC calendar dates of instants, for the `date=YYYY-MM-DD` partition. Pure functions.
#pragma once

#include <cstdint>
#include <string>

namespace sinkd::partition {

inline constexpr int64_t kMicrosPerDay = 86'400'000'000;

// Days since 1970-01-01 of the UTC instant `micros` (floor, so instants before 1970 work too).
constexpr int64_t DayOf(int64_t micros) {
  return micros >= 0 ? micros / kMicrosPerDay : -((-(micros + 1)) / kMicrosPerDay) - 1;
}

// "YYYY-MM-DD" of a day number. REQUIRES: the year is within 0000–9999 (the decoder guarantees it).
std::string FormatDay(int64_t day);

}  // namespace sinkd::partition
