#include "contract/timestamp.h"

namespace sinkd::contract {

std::string TimestampRangeError(int64_t seconds, int32_t nanos) {
  return "time is out of range (seconds " + std::to_string(seconds) + ", nanos " +
         std::to_string(nanos) +
         "): a Timestamp must lie in 0001-01-01T00:00:00Z..9999-12-31T23:59:59.999999999Z with "
         "nanos in 0..999999999";
}

}  // namespace sinkd::contract
