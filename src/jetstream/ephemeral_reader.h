// EphemeralReader is a pure reader of a stream: an ephemeral pull consumer with no durable name,
// AckNone at the broker (there is no ack for it to get wrong) and an inactivity threshold (30s) so
// the broker deletes it even after a kill -9; it is deleted on destruction. It never moves any
// durable's ack floor or pending count. `sinkd tail` reads through it.
// Ownership: borrows the Connection (must outlive it). Threads: one thread at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/result.h"
#include "jetstream/connection.h"
#include "jetstream/message.h"

namespace sinkd::jetstream {

struct ReaderStart {
  bool all = false;          // from the first message still in the stream
  uint64_t sequence = 0;     // otherwise from this stream sequence
};

class EphemeralReader {
 public:
  static Result<std::unique_ptr<EphemeralReader>> Open(Connection& connection,
                                                       const std::string& stream,
                                                       const std::string& filter,
                                                       ReaderStart start);
  ~EphemeralReader();
  EphemeralReader(const EphemeralReader&) = delete;
  EphemeralReader& operator=(const EphemeralReader&) = delete;

  const std::string& name() const { return name_; }
  bool durable() const { return durable_; }
  int64_t ack_policy() const { return ack_policy_; }  // js_AckNone = 1
  uint64_t initial_pending() const { return initial_pending_; }
  std::chrono::nanoseconds inactive_threshold() const { return inactive_threshold_; }

  // As PullConsumer::Fetch.
  Status Fetch(int max, std::chrono::milliseconds timeout, std::vector<Message>& out);

 private:
  EphemeralReader() = default;
  SubscriptionPtr sub_;
  std::string name_;
  bool durable_ = false;
  int64_t ack_policy_ = 0;
  uint64_t initial_pending_ = 0;
  std::chrono::nanoseconds inactive_threshold_{0};
};

// The stream sequence of the first message at or after `unix_ns` (by its stored timestamp), found
// by binary search over [first, last] with direct message reads (js_GetMsg). last + 1 when every
// message is older. Used instead of DeliverByStartTime because cnats 3.4.1 mis-encodes start times
// whose fraction of a second begins with a zero and silently skips messages.
Result<uint64_t> SequenceAtTime(Connection& connection, const std::string& stream, int64_t unix_ns,
                                uint64_t first, uint64_t last);

}  // namespace sinkd::jetstream
