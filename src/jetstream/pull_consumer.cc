#include "jetstream/pull_consumer.h"

#include "jetstream/streams.h"

namespace sinkd::jetstream {

namespace {

ConsumerState StateOf(const jsConsumerInfo& ci) {
  ConsumerState s;
  s.pending = ci.NumPending;
  s.ack_pending = ci.NumAckPending;
  s.redelivered = ci.NumRedelivered;
  s.delivered_stream = ci.Delivered.Stream;
  s.ack_floor_stream = ci.AckFloor.Stream;
  if (ci.Config != nullptr) {
    s.ack_wait_ns = ci.Config->AckWait;
    s.max_ack_pending = ci.Config->MaxAckPending;
    s.ack_policy = static_cast<int64_t>(ci.Config->AckPolicy);
    s.deliver_policy = static_cast<int64_t>(ci.Config->DeliverPolicy);
    s.opt_start_seq = ci.Config->OptStartSeq;
  }
  return s;
}

// The durable's configuration as sinkd makes it; `config` must outlive the result (it points
// into it).
jsConsumerConfig DurableConfig(const ConsumerConfig& config) {
  jsConsumerConfig cc;
  jsConsumerConfig_Init(&cc);
  cc.Durable = config.durable.c_str();
  cc.Description = config.description.empty() ? nullptr : config.description.c_str();
  cc.FilterSubject = config.filter.c_str();
  cc.AckPolicy = js_AckExplicit;
  cc.DeliverPolicy = js_DeliverAll;
  cc.AckWait = config.ack_wait.count();
  cc.MaxAckPending = config.max_ack_pending;
  // MaxDeliver stays unlimited: a message that reached it would vanish from the consumer
  // unacked and unwritten, which is loss; a batch that cannot land keeps coming back instead.
  return cc;
}

}  // namespace

Result<ConsumerState> GetConsumerState(Connection& connection, const std::string& stream,
                                       const std::string& consumer) {
  jsConsumerInfo* ci = nullptr;
  jsErrCode jerr = static_cast<jsErrCode>(0);
  natsStatus s =
      js_GetConsumerInfo(&ci, connection.js(), stream.c_str(), consumer.c_str(), nullptr, &jerr);
  ConsumerInfoPtr owned(ci);
  if (s != NATS_OK) return FromNats(s, "consumer " + consumer + " on " + stream, jerr);
  return StateOf(*ci);
}

Result<std::unique_ptr<PullConsumer>> PullConsumer::Bind(Connection& connection,
                                                         const ConsumerConfig& config) {
  auto stream = GetStreamState(connection, config.stream);
  if (!stream.ok() && stream.status().IsNotFound()) {
    return Status::Refuse("stream " + config.stream +
                          " does not exist: run `sinkd provision` to create it (a drain never "
                          "creates streams)");
  }
  if (!stream.ok()) return stream.status();

  jsConsumerConfig cc = DurableConfig(config);
  jsConsumerInfo* ci = nullptr;
  jsErrCode jerr = static_cast<jsErrCode>(0);
  auto existing = GetConsumerState(connection, config.stream, config.durable);
  natsStatus s;
  if (existing.ok()) {
    // The server refuses to change where a durable delivers from (Recreate may have set it).
    cc.DeliverPolicy = static_cast<jsDeliverPolicy>(existing->deliver_policy);
    cc.OptStartSeq = existing->opt_start_seq;
    s = js_UpdateConsumer(&ci, connection.js(), config.stream.c_str(), &cc, nullptr, &jerr);
  } else if (existing.status().IsNotFound()) {
    s = js_AddConsumer(&ci, connection.js(), config.stream.c_str(), &cc, nullptr, &jerr);
  } else {
    return existing.status();
  }
  ConsumerInfoPtr owned(ci);
  if (s != NATS_OK) {
    return FromNats(s, "consumer " + config.durable + " on stream " + config.stream, jerr);
  }

  std::unique_ptr<PullConsumer> consumer(new PullConsumer(connection, config));
  consumer->stream_created_ = stream->created;
  jsSubOptions so;
  jsSubOptions_Init(&so);
  so.Stream = config.stream.c_str();
  so.Consumer = config.durable.c_str();
  so.ManualAck = true;
  natsSubscription* sub = nullptr;
  s = js_PullSubscribe(&sub, connection.js(), config.filter.c_str(), config.durable.c_str(),
                       nullptr, &so, &jerr);
  if (s != NATS_OK) {
    return FromNats(s, "bind to consumer " + config.durable + " on " + config.stream, jerr);
  }
  consumer->sub_.reset(sub);
  // One fetch of 512 ledger Batches is ~150 MB, over libnats' 64 MB per-subscription default,
  // which would drop the rest as a slow consumer; the fetch size is what bounds it here.
  s = natsSubscription_SetPendingLimits(sub, -1, -1);
  if (s != NATS_OK) return FromNats(s, "pending limits of " + config.durable);
  return consumer;
}

namespace {

size_t Take(natsConnection* connection, natsMsgList& list, std::vector<Message>& out) {
  const size_t n = static_cast<size_t>(list.Count);
  for (int i = 0; i < list.Count; ++i) {
    out.emplace_back(list.Msgs[i], connection);
    list.Msgs[i] = nullptr;  // now owned by the Message
  }
  natsMsgList_Destroy(&list);
  return n;
}

bool Nothing(natsStatus s) { return s == NATS_OK || s == NATS_TIMEOUT || s == NATS_NOT_FOUND; }

}  // namespace

// Two requests, because libnats offers no single one that is both bounded in bytes and returns
// as soon as something arrives: a byte-bounded request that does not wait (ledger Batches are
// ~300 KB; 512 of them would overrun the server's 64 MB per-client buffer and it would close the
// connection as a slow consumer), and, only when nothing was there, a wait for one message.
Status FetchBounded(natsConnection* connection, natsSubscription* sub, int max,
                    std::chrono::milliseconds timeout, std::vector<Message>& out,
                    const std::string& what) {
  const int64_t wait_ms = std::max<int64_t>(timeout.count(), 1);
  jsFetchRequest req;
  jsFetchRequest_Init(&req);
  req.Batch = max;
  req.MaxBytes = kFetchMaxBytes;
  req.NoWait = true;
  req.Expires = std::chrono::nanoseconds(std::chrono::milliseconds(wait_ms)).count();
  natsMsgList list{nullptr, 0};
  natsStatus s = natsSubscription_FetchRequest(&list, sub, &req);
  if (Take(connection, list, out) > 0) return Status::OK();
  if (!Nothing(s)) return FromNats(s, "fetch from " + what);
  jsErrCode jerr = static_cast<jsErrCode>(0);
  s = natsSubscription_Fetch(&list, sub, 1, wait_ms, &jerr);
  Take(connection, list, out);
  if (Nothing(s)) return Status::OK();
  return FromNats(s, "fetch from " + what, jerr);
}

Status PullConsumer::Fetch(int max, std::chrono::milliseconds timeout, std::vector<Message>& out) {
  return FetchBounded(connection_.nc(), sub_.get(), max, timeout, out,
                      config_.durable + " on " + config_.stream);
}

Status PullConsumer::Recreate(uint64_t start_sequence) {
  jsConsumerConfig cc = DurableConfig(config_);
  if (start_sequence > 0) {
    cc.DeliverPolicy = js_DeliverByStartSequence;
    cc.OptStartSeq = start_sequence;
  }
  jsConsumerInfo* ci = nullptr;
  jsErrCode jerr = static_cast<jsErrCode>(0);
  natsStatus s = js_AddConsumer(&ci, connection_.js(), config_.stream.c_str(), &cc, nullptr, &jerr);
  ConsumerInfoPtr owned(ci);
  if (s == NATS_OK) {
    if (auto stream = GetStreamState(connection_, config_.stream); stream.ok()) {
      stream_created_ = stream->created;
    }
    return Status::OK();
  }
  const Status failed =
      FromNats(s, "re-create consumer " + config_.durable + " on stream " + config_.stream, jerr);
  // Another drain on the durable may have made it first, from its own start.
  if (GetConsumerState(connection_, config_.stream, config_.durable).ok()) return Status::OK();
  return failed;
}

Result<ConsumerState> PullConsumer::State() {
  return GetConsumerState(connection_, config_.stream, config_.durable);
}

}  // namespace sinkd::jetstream
