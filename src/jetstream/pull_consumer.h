// PullConsumer is a bound pull subscription on a durable consumer: the drain's source. Binding
// creates the durable when it is missing and updates it to the given configuration when it exists
// (any number of drains share one durable and fetch from it in turn), but never creates a stream:
// a missing stream is a refusal that tells the operator to run `sinkd provision`. An existing
// durable keeps where it delivers from (the server refuses to change it): all of the stream, or,
// once Recreate made it again, from a sequence.
// Ownership: borrows the Connection (must outlive it); owns the subscription. Destroying it leaves
// the durable on the server with its ack floor and pending messages.
// Threads: Fetch from one thread at a time; State may be called from another thread meanwhile
// (it only asks the server, on the thread-safe connection).
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

struct ConsumerConfig {
  std::string stream;       // GARM_LEDGER, GARM_AUDIT
  std::string durable;      // sink-ledger, sink-audit
  std::string filter;       // garm.v1.ledger.>, garm.v1.audit.>
  std::chrono::nanoseconds ack_wait{std::chrono::minutes(11)};
  int64_t max_ack_pending = 1000;  // messages delivered and not yet acked, across all instances
  std::string description;
};

// A consumer's counters as the server reports them.
struct ConsumerState {
  uint64_t pending = 0;       // not yet delivered
  int64_t ack_pending = 0;    // delivered, not yet acked
  int64_t redelivered = 0;
  uint64_t delivered_stream = 0;  // last delivered stream sequence
  uint64_t ack_floor_stream = 0;  // every stream sequence at or below it is acked
  int64_t ack_wait_ns = 0;
  int64_t max_ack_pending = 0;
  int64_t ack_policy = 0;     // js_AckExplicit = 0, js_AckNone = 1
  int64_t deliver_policy = 0;  // js_DeliverAll = 0, js_DeliverByStartSequence = 3, …
  uint64_t opt_start_seq = 0;  // where a DeliverByStartSequence durable starts
};

// Bytes asked for per fetch: far below the server's 64 MB per-client buffer, and still dozens of
// ledger Batches per request.
inline constexpr int64_t kFetchMaxBytes = int64_t{16} << 20;

// Appends up to `max` messages (at most kFetchMaxBytes of them) to `out`, waiting at most
// `timeout` when none are there. OK with nothing appended when nothing came. `connection` is the
// subscription's: the messages are settled on it.
Status FetchBounded(natsConnection* connection, natsSubscription* sub, int max,
                    std::chrono::milliseconds timeout, std::vector<Message>& out,
                    const std::string& what);

// NotFound when the consumer does not exist.
Result<ConsumerState> GetConsumerState(Connection& connection, const std::string& stream,
                                       const std::string& consumer);

class PullConsumer {
 public:
  static Result<std::unique_ptr<PullConsumer>> Bind(Connection& connection,
                                                    const ConsumerConfig& config);

  // Appends up to `max` messages to `out`, waiting at most `timeout` for the first; returns
  // earlier with what has arrived. Nothing available in time is OK with nothing appended.
  // Retry when the connection is down or the request failed.
  Status Fetch(int max, std::chrono::milliseconds timeout, std::vector<Message>& out);

  // Makes the durable again, with this consumer's settings, after it vanished under a running
  // drain (an operator's delete, a lost replica set): delivering from stream sequence
  // `start_sequence`, or all of the stream for 0. The subscription stays as it is: a fetch names
  // the durable, so the next one reaches the new durable. OK too when another drain made it
  // first. NotFound when the stream is gone as well.
  Status Recreate(uint64_t start_sequence);

  Result<ConsumerState> State();
  const ConsumerConfig& config() const { return config_; }
  // The stream's creation time (StreamState::created) as read at Bind, and again after a
  // Recreate, which may find the stream made again.
  const std::string& stream_created() const { return stream_created_; }
  bool connected() const { return connection_.connected(); }

 private:
  PullConsumer(Connection& connection, ConsumerConfig config)
      : connection_(connection), config_(std::move(config)) {}

  Connection& connection_;
  ConsumerConfig config_;
  SubscriptionPtr sub_;
  std::string stream_created_;
};

}  // namespace sinkd::jetstream
