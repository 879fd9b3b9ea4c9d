#include "jetstream/ephemeral_reader.h"

#include "jetstream/pull_consumer.h"

namespace sinkd::jetstream {

namespace {

constexpr auto kInactiveThreshold = std::chrono::seconds(30);

// The timestamp of the message at `seq`, or of the next one that exists up to `last` (a ledger
// stream may have deleted messages): {sequence found, timestamp}; sequence last+1 when none.
Result<std::pair<uint64_t, int64_t>> TimeAtOrAfter(Connection& c, const std::string& stream,
                                                   uint64_t seq, uint64_t last) {
  for (; seq <= last; ++seq) {
    natsMsg* raw = nullptr;
    jsErrCode jerr = static_cast<jsErrCode>(0);
    natsStatus s = js_GetMsg(&raw, c.js(), stream.c_str(), seq, nullptr, &jerr);
    MsgPtr msg(raw);
    if (s == NATS_OK) return std::make_pair(seq, natsMsg_GetTime(raw));
    if (s != NATS_NOT_FOUND && jerr != 10037 /* no message found */) {
      return FromNats(s, "read " + stream + " seq " + std::to_string(seq), jerr);
    }
  }
  return std::make_pair(last + 1, int64_t{0});
}

}  // namespace

Result<uint64_t> SequenceAtTime(Connection& connection, const std::string& stream, int64_t unix_ns,
                                uint64_t first, uint64_t last) {
  // Invariant: every existing message below lo is older than unix_ns; the answer is <= hi.
  uint64_t lo = first, hi = last + 1;
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    SINKD_ASSIGN_OR_RETURN(auto found, TimeAtOrAfter(connection, stream, mid, hi - 1));
    if (found.first >= hi) {
      hi = mid;  // nothing exists in [mid, hi)
    } else if (found.second >= unix_ns) {
      hi = found.first;
    } else {
      lo = found.first + 1;
    }
  }
  return lo;
}

Result<std::unique_ptr<EphemeralReader>> EphemeralReader::Open(Connection& connection,
                                                               const std::string& stream,
                                                               const std::string& filter,
                                                               ReaderStart start) {
  std::unique_ptr<EphemeralReader> r(new EphemeralReader());
  jsSubOptions so;
  jsSubOptions_Init(&so);
  so.Stream = stream.c_str();
  so.ManualAck = true;  // AckNone: there is nothing to ack; stop the library from trying
  jsConsumerConfig& cc = so.Config;
  cc.Description = "sinkd reader (tail, dead, lake verify): ephemeral, acks nothing";
  cc.AckPolicy = js_AckNone;
  cc.InactiveThreshold = std::chrono::nanoseconds(kInactiveThreshold).count();
  cc.FilterSubject = filter.c_str();
  if (start.all) {
    cc.DeliverPolicy = js_DeliverAll;
  } else {
    cc.DeliverPolicy = js_DeliverByStartSequence;
    cc.OptStartSeq = start.sequence;
  }
  natsSubscription* sub = nullptr;
  jsErrCode jerr = static_cast<jsErrCode>(0);
  natsStatus s = js_PullSubscribe(&sub, connection.js(), filter.c_str(), nullptr, nullptr, &so, &jerr);
  if (s != NATS_OK) return FromNats(s, "consumer on " + stream, jerr);
  r->sub_.reset(sub);
  s = natsSubscription_SetPendingLimits(sub, -1, -1);  // as PullConsumer: the fetch bounds it
  if (s != NATS_OK) return FromNats(s, "consumer on " + stream);
  jsConsumerInfo* ci = nullptr;
  s = natsSubscription_GetConsumerInfo(&ci, sub, nullptr, &jerr);
  ConsumerInfoPtr owned(ci);
  if (s != NATS_OK) return FromNats(s, "consumer on " + stream, jerr);
  r->name_ = ci->Name != nullptr ? ci->Name : "";
  r->initial_pending_ = ci->NumPending;
  if (ci->Config != nullptr) {
    r->durable_ = ci->Config->Durable != nullptr && *ci->Config->Durable != '\0';
    r->ack_policy_ = static_cast<int64_t>(ci->Config->AckPolicy);
    r->inactive_threshold_ = std::chrono::nanoseconds(ci->Config->InactiveThreshold);
  }
  return r;
}

EphemeralReader::~EphemeralReader() {
  // Unsubscribe deletes a consumer the subscribe call created: the ephemeral is gone at once
  // rather than after its inactivity threshold.
  if (sub_) natsSubscription_Unsubscribe(sub_.get());
}

Status EphemeralReader::Fetch(int max, std::chrono::milliseconds timeout,
                              std::vector<Message>& out) {
  // No connection for the messages: an AckNone consumer has nothing to settle.
  return FetchBounded(nullptr, sub_.get(), max, timeout, out, name_);
}

}  // namespace sinkd::jetstream
