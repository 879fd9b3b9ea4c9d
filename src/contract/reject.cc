#include "contract/reject.h"

#include <utility>

namespace sinkd::contract {

std::string_view ReasonName(RejectReason reason) {
  switch (reason) {
    case RejectReason::kUnmarshal:
      return "unmarshal";
    case RejectReason::kMissingEventId:
      return "missing_event_id";
    case RejectReason::kMissingTime:
      return "missing_time";
    case RejectReason::kTooManyPartitions:
      return "too_many_partitions";
  }
  return "unknown";
}

std::string_view EnvelopeName(Envelope envelope) {
  switch (envelope) {
    case Envelope::kBatch:
      return "batch";
    case Envelope::kEvent:
      return "event";
  }
  return "unknown";
}

std::string Reject::ToString() const {
  std::string out;
  if (index >= 0) {
    out += "event ";
    out += std::to_string(index);
    out += ": ";
  }
  out += ReasonName(reason);
  out += ": ";
  out += error;
  return out;
}

Reject MakeReject(RejectReason reason, std::string error, int index, std::string_view payload) {
  if (!payload.empty() && (payload.front() == '{' || payload.front() == '[')) error += kJsonHint;
  return Reject{reason, std::move(error), index, std::string(payload)};
}

}  // namespace sinkd::contract
